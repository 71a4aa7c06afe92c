"""Scheduled statuses: the item kept until its time (its parameters as checked when it was
scheduled), listed per account, and the media it holds until it is published or cancelled."""

from __future__ import annotations

from typing import Any

from stratus.core.errors import ApiError
from stratus.repo import base, keys


def get(scheduled_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.scheduled_status(scheduled_id), consistent=True))


def page(account_id: str, low_id: str | None, high_id: str | None, *, descending: bool,
         limit: int) -> list[dict[str, Any]]:
    """Up to `limit` of an account's scheduled statuses between two ids, in reading order."""
    lo, hi = keys.id_range(low_id, high_id)
    entries = []
    for entry in base.query(keys.scheduled_of(account_id), index="GSI2", sk_between=(lo, hi),
                            descending=descending):
        entries.append(entry)
        if len(entries) >= limit:
            break
    found = {i["id"]: base.record(i) for i in base.batch_get([{"PK": e["PK"], "SK": e["SK"]}
                                                              for e in entries])}
    return [found[e["id"]] for e in entries if e["id"] in found]


def create_ops(item: dict[str, Any], media_ids: list[str], *, media_taken: ApiError
               ) -> list[base.Op]:
    """The scheduled item, and its media held for it: each only while it is the author's and
    attached to nothing else (`media_taken` otherwise); held media do not expire."""
    ops = [base.put_new({**keys.scheduled_status(item["id"]), "type": "scheduled_status",
                         **keys.scheduled_index_keys(item["account_id"], item["id"]), **item})]
    for media_id in media_ids:
        ops.append(base.Op("Update", key=keys.media(media_id),
                           expression="SET scheduled_status_id = :s REMOVE #ttl",
                           condition="account_id = :me AND attribute_not_exists(status_id) "
                                     "AND attribute_not_exists(scheduled_status_id)",
                           names={"#ttl": "ttl"}, vals={":s": item["id"],
                                                        ":me": item["account_id"]},
                           on_conflict=media_taken))
    return ops


def move(scheduled_id: str, scheduled_at: str) -> None:
    base.transact([base.set_op(keys.scheduled_status(scheduled_id),
                               {"scheduled_at": scheduled_at})])


def remove_op(scheduled_id: str, *, missing: ApiError | None = None) -> base.Op:
    """Delete the scheduled item only while it exists (`missing`, or ConditionFailed, else):
    publishing it and cancelling it each happen once."""
    return base.Op("Delete", key=keys.scheduled_status(scheduled_id),
                   condition="attribute_exists(PK)", on_conflict=missing)


def release_media_ops(media_ids: list[str], expires: int) -> list[base.Op]:
    """A cancelled schedule's media: held for nothing again, expiring at `expires` (epoch s)."""
    return [base.Op("Update", key=keys.media(m),
                    expression="REMOVE scheduled_status_id SET #ttl = :ttl",
                    names={"#ttl": "ttl"}, vals={":ttl": expires}) for m in media_ids]


def forget(scheduled_id: str) -> None:
    """Delete the item whatever its state (its account is gone)."""
    base.transact([base.Op("Delete", key=keys.scheduled_status(scheduled_id))])
