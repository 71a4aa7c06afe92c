"""The URI index: which stored remote object an ActivityPub id names (docs/data-model.md).

One item per URI (`keys.object_uri`), kind `account` (an actor id), `key` (a key id, naming
the account that owns the key) or `status` (an object id). Local objects are never in it:
their URLs are parsed (services/remote_accounts.local_account_id,
services/remote_statuses.local_status_id).
"""

from __future__ import annotations

from typing import Any

from . import base, keys

KINDS = ("account", "status", "key")


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


def put_op(uri: str, kind: str, object_id: str) -> base.Op:
    """Index `uri` (overwrites: a key id may move to another account of the same actor)."""
    return base.Op("Put", item=item(uri, kind, object_id))


def delete_op(uri: str) -> base.Op:
    return base.Op("Delete", key=keys.object_uri(uri))


def delete(uri: str) -> None:
    base.delete(keys.object_uri(uri))
