"""Featured hashtags and an account's use counters of each tag.

A featured tag is one item in the account's partition (`keys.featured_tag`), so a profile's
featured tags (at most 10) are one Query. The account's `STATS` item keeps
`featured_tags_count`, checked in the transaction that features a tag (the limit holds under
concurrent requests, as `pins_count` does for pins). The counts a FeaturedTag shows come from
`account_tag` items (`statuses_count`, `last_status_at`), kept by the counters worker from the
stream for every tag an account uses, so featuring a tag needs no count of past statuses.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.core.errors import ApiError
from stratus.repo import base, keys
from stratus.repo.client import dynamodb

FEATURED_TAG, ACCOUNT_TAG = "featured_tag", "account_tag"
SUGGESTION_SCAN = 1000  # an account's tag counters read for suggestions, at most


def featured_item(featured_id: str, account_id: str, tag: str, name: str, created_at: str
                  ) -> dict[str, Any]:
    """A new featured tag's record (`create` writes it). `tag`: the normalised name; `name`:
    as the request wrote it (Mastodon's display name)."""
    return {"type": FEATURED_TAG, "id": featured_id, "account_id": account_id, "tag": tag,
            "name": name, "created_at": created_at}


def featured_of(account_id: str) -> list[dict[str, Any]]:
    """An account's featured tags, as records (one Query; at most 10)."""
    return list(base.records(base.query(keys.account_pk(account_id),
                                        sk_prefix=keys.FEATURED_TAG)))


def create(record: dict[str, Any], limit: int, *, taken: ApiError, full: ApiError) -> None:
    """Feature a tag: the item (`record`, from `featured_item`) and the account's count, with
    the limit checked in the same transaction (`taken` when the tag is featured already,
    `full` at the limit)."""
    account_id = record["account_id"]
    base.transact([
        base.put_new({**keys.featured_tag(account_id, record["tag"]), **record},
                     on_conflict=taken),
        base.Op("Update", key=keys.account_stats(account_id),
                expression="ADD featured_tags_count :one",
                condition="attribute_exists(PK) AND (attribute_not_exists(featured_tags_count)"
                          " OR featured_tags_count < :max)",
                vals={":one": 1, ":max": limit}, on_conflict=full),
    ])


def remove(account_id: str, tag: str) -> bool:
    """Unfeature a tag; False if it was not featured."""
    try:
        base.transact([
            base.Op("Delete", key=keys.featured_tag(account_id, tag),
                    condition="attribute_exists(PK)"),
            base.Op("Update", key=keys.account_stats(account_id),
                    expression="ADD featured_tags_count :minus", vals={":minus": -1}),
        ])
    except base.ConditionFailed:
        return False
    return True


# --- an account's use of each tag (counters worker) ------------------------------------------
def account_tags(account_id: str, tags: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{tag: counters record} for these tags of an account (one batched read)."""
    return {item["tag"]: item for item in base.records(base.batch_get(
        [keys.account_tag(account_id, t) for t in dict.fromkeys(tags)]))}


def most_used(account_id: str) -> list[dict[str, Any]]:
    """The account's tag counters as records (at most SUGGESTION_SCAN), for suggestions."""
    return list(base.records(base.query(keys.account_pk(account_id),
                                        sk_prefix=keys.ACCOUNT_TAG, limit=SUGGESTION_SCAN)))


def replace_last_status_at(account_id: str, tag: str, was: str, now: str | None) -> bool:
    """Move an account's latest use of a tag back from `was` (a deleted status's time) to
    `now` (None: no use left); False if it is no longer `was` (a newer use came first)."""
    names = {"#l": "last_status_at"}
    expression = "SET #l = :now" if now else "REMOVE #l"
    vals: dict[str, Any] = {":was": was, **({":now": now} if now else {})}
    try:
        base.update(keys.account_tag(account_id, tag), expression, names=names, vals=vals,
                    condition="#l = :was")
    except dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True
