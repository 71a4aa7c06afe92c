"""The URI index: which stored remote object an ActivityPub id names (docs/data-model.md).

One item per URI (`keys.object_uri`), kind `account` (an actor id), `key` (a key id, naming
the account that owns the key) or `status` (an object id: a status or a boost). Local objects
are never in it: their URLs are parsed (federation/remote_accounts.local_account_id,
federation/remote_statuses.local_status_id).

The index is fed with ids other servers choose, so it is written as Mastodon's unique URI
columns are (docs/security.md, "Federation threats"):

- an entry is only made for an id on its owner's host (the actor's own server: an actor's id,
  its key id, its statuses' and boosts' ids) — `Foreign` otherwise;
- an entry is never written over another owner's: the write is conditional (no entry yet, or
  already this same kind and object), and a transaction carrying a refused write fails whole
  (`base.ConditionFailed`), so nothing of it is half-stored;
- an entry is only removed by its owner's change (the same condition).
"""

from __future__ import annotations

from typing import Any

from stratus.core import urls
from stratus.repo import base, keys

KINDS = ("account", "status", "key")
# Absent, or this same object's: what a write or a removal of an entry requires.
_OWNED = "attribute_not_exists(PK) OR (#kind = :kind AND #id = :id)"


class Foreign(ValueError):
    """The id is not on its owner's host: no server may index an id of another's."""


def item(uri: str, kind: str, object_id: str) -> dict[str, Any]:
    if kind not in KINDS:
        raise ValueError(f"unknown URI kind {kind!r}")
    return {**keys.object_uri(uri), "type": "uri", "uri": uri, "kind": kind, "id": str(object_id)}


def find(uri: str) -> tuple[str, str] | None:
    """(kind, id) of the stored object with this ActivityPub id, or None."""
    found = base.get(keys.object_uri(uri))
    return (found["kind"], found["id"]) if found else None


def find_many(uris: list[str]) -> dict[str, tuple[str, str]]:
    """{uri: (kind, id)} of those URIs that are stored, in one batch."""
    wanted = list(dict.fromkeys(uris))
    if not wanted:
        return {}
    return {found["uri"]: (found["kind"], found["id"])
            for found in base.batch_get([keys.object_uri(u) for u in wanted])}


def _owned(op: base.Op, kind: str, object_id: str) -> base.Op:
    op.condition = _OWNED
    op.names = {"#kind": "kind", "#id": "id"}
    op.vals = {":kind": kind, ":id": str(object_id)}
    return op


def on_host_of(uri: str, owner_uri: str) -> bool:
    """Whether `uri` is on the host of `owner_uri` (read as browsers read URLs, core/urls.py;
    ports count)."""
    return urls.same_origin(uri, owner_uri)


def claim_op(uri: str, kind: str, object_id: str, *, owner_uri: str) -> base.Op:
    """Index `uri` as (kind, object_id), owned by the actor `owner_uri`: `Foreign` unless the
    uri is on the owner's host; in a transaction, a condition that fails (ConditionFailed)
    when another object holds the entry."""
    if not on_host_of(uri, owner_uri):
        raise Foreign(f"{uri} is not on the host of {owner_uri}")
    return _owned(base.Op("Put", item=item(uri, kind, object_id)), kind, object_id)


def release_op(uri: str, kind: str, object_id: str) -> base.Op:
    """Remove `uri`'s entry if it is (kind, object_id)'s (or already gone); in a transaction,
    a condition that fails when the entry is another object's."""
    return _owned(base.Op("Delete", key=keys.object_uri(uri)), kind, object_id)


def release(uri: str, kind: str, object_id: str) -> bool:
    """`release_op` on its own; False when the entry is another object's (kept)."""
    try:
        base.transact([release_op(uri, kind, object_id)])
    except base.ConditionFailed:
        return False
    return True
