"""Our copies of remote media (federation/remote_media.py): one item per remote image, keyed by
what the remote account and status items already store (the account for its avatar and header,
the media item for an attachment, the URL's digest for a custom emoji), and the copy's keys
written onto the item that renders it (profile, media item) so a page is rendered with no
extra read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.repo import base, keys
from stratus.repo.client import dynamodb

ITEM_TYPE = "remote_media"


def cache_folder(kind: str, ref: str) -> str:
    """Where the objects of a copy are stored in the media bucket: by the attachment's or the
    account's padded id, or the emoji URL's digest."""
    if kind == "attachment":
        return f"cache/media_attachments/files/{keys.pad(ref)}"
    if kind == "emoji":
        return f"cache/custom_emojis/images/{ref}"
    return f"cache/accounts/{kind}s/{keys.pad(ref)}"


def get(kind: str, ref: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.remote_media(kind, ref), consistent=True))


def get_many(kind: str, refs: list[str]) -> dict[str, dict[str, Any]]:
    """{ref: copy} for the refs that have one (one batched read)."""
    if not refs:
        return {}
    found = base.batch_get([keys.remote_media(kind, r) for r in dict.fromkeys(refs)])
    return {item["ref"]: base.record(item) for item in found if item.get("ref") is not None}


def claim(kind: str, ref: str, *, source: str, now: int, seconds: int) -> bool:
    """Take the right to fetch the object from `source` for `seconds` (False: another fetch
    holds it, or a copy of `source` was stored since the caller looked)."""
    try:
        base.update(keys.remote_media(kind, ref),
                    "SET #type = :type, #kind = :kind, #ref = :ref, lease_until = :until",
                    names={"#type": "type", "#kind": "kind", "#ref": "ref", "#source": "source"},
                    vals={":type": ITEM_TYPE, ":kind": kind, ":ref": ref,
                          ":until": now + seconds, ":now": now, ":source": source},
                    condition="(attribute_not_exists(lease_until) OR lease_until < :now) AND "
                              "(attribute_not_exists(object_keys) OR #source <> :source)")
    except dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


def failed(kind: str, ref: str, source: str, at: str) -> None:
    """Remember that `source` could not be had (not asked again for a while); the lease goes."""
    base.update(keys.remote_media(kind, ref),
                "SET failed_source = :source, failed_at = :at REMOVE lease_until",
                vals={":source": source, ":at": at})


def release(kind: str, ref: str) -> None:
    base.update(keys.remote_media(kind, ref), "REMOVE lease_until")


def stored_op(kind: str, ref: str, *, owner_id: str, source: str, object_keys: dict[str, str],
              fetched_at: str, content_type: str, domain: str) -> base.Op:
    """The item of a copy just stored (replacing what was there: lease, failure, older copy);
    listed by age and by the domain of the account it belongs to."""
    return base.Op("Put", item={**keys.remote_media(kind, ref),
                                **keys.remote_media_age(fetched_at, kind, ref),
                                **keys.remote_media_domain(domain, kind, ref),
                                "type": ITEM_TYPE, "kind": kind, "ref": ref,
                                "owner_id": owner_id, "source": source,
                                "object_keys": object_keys, "fetched_at": fetched_at,
                                "content_type": content_type})


def _owner_key(kind: str, owner_id: str) -> tuple[dict[str, str], str]:
    """The item a copy is named on, and the attribute holding the remote URL it was made from."""
    if kind in ("avatar", "header"):
        return keys.account_profile(owner_id), f"{kind}_remote_url"
    return keys.media(owner_id), "remote_url"


def mirror_op(kind: str, owner_id: str, source: str, fields: dict[str, Any]) -> base.Op:
    """Name the copy on its owner's item, while that item still points at `source`."""
    key, attribute = _owner_key(kind, owner_id)
    op = base.set_op(key, fields, condition="attribute_exists(PK) AND #source = :source")
    op.names["#source"] = attribute
    return op.with_vals({":source": source})


def clear_mirror(kind: str, owner_id: str, key_attribute: str, key: str,
                 fields: tuple[str, ...]) -> bool:
    """Unname a copy on its owner's item, if the item still names that copy (`key_attribute`
    holds `key`: every fetch writes new keys)."""
    owner, _ = _owner_key(kind, owner_id)
    op = base.set_op(owner, {}, remove=fields, condition="attribute_exists(PK) AND #key = :key")
    op.names["#key"] = key_attribute
    try:
        base.transact([op.with_vals({":key": key})])
    except base.ConditionFailed:
        return False
    return True


def commit(ops: list[base.Op]) -> None:
    base.transact(ops)


def stored_before(fetched_before: str) -> Iterator[dict[str, Any]]:
    """Copies fetched before the ISO time `fetched_before`, oldest first."""
    for entry in base.query(keys.REMOTE_MEDIA_BY_AGE, index="GSI1",
                            sk_between=("0", fetched_before)):
        item = base.get({"PK": entry["PK"], "SK": entry["SK"]}, consistent=True)
        if item is not None and item.get("fetched_at"):
            yield base.record(item)


def stored_for_domain(domain: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` copies of the accounts of `domain` (its exact host name): one Query of
    the index, one batched read of the items."""
    entries = list(base.query(keys.remote_media_of_domain(domain), index="GSI2", limit=limit))
    found = base.batch_get([{"PK": e["PK"], "SK": e["SK"]} for e in entries], consistent=True)
    return [base.record(item) for item in found if item.get("fetched_at")]


def delete(kind: str, ref: str, fetched_at: str) -> bool:
    """Forget a copy (unless it was fetched again meanwhile)."""
    try:
        base.transact([base.Op("Delete", key=keys.remote_media(kind, ref),
                               condition="fetched_at = :at", vals={":at": fetched_at})])
    except base.ConditionFailed:
        return False
    return True
