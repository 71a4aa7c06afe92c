"""The writes of a status that the local and the federated path share, one layout for both: its
creation (item and counters, a remote status's attachments by reference), an edit (the new
fields and the edit history) and its removal (the status, its counters, poll and media).

Each verb returns ops for the use case's one transaction (repo/transaction.write), so a use
case adds what is its own (the local path's unpin, the federated path's URI entry claim).
What a change sets off — feeds, notifications, counters, the likes and boosts and edits of a
removed status — follows from the stream (jobs/outbox.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import ApiError
from stratus.repo import base, keys, polls, uris
from stratus.repo.statuses import edits, stats_item, status_item


def create_ops(item: dict[str, Any], *, media: Iterable[dict[str, Any]] = ()
               ) -> list[base.Op]:
    """The ops that create a status: its item and its counters, written only while neither
    exists, and the media items of `media` (a remote status's attachments, by their remote
    URLs: nothing is copied), written only if new."""
    ops = [base.put_new({**keys.media(each["id"]), "type": "media_attachment", **each})
           for each in media]
    return ops + [base.put_new(status_item(item)), base.put_new(stats_item(item["id"]))]


def _version(data: dict[str, Any], at: str, media_ids: list[str],
             poll_options: list[str] | None) -> dict[str, Any]:
    """One version in the edit history (Mastodon's StatusEdit)."""
    return {"type": "status_edit", "content": data.get("content", ""),
            "spoiler_text": data.get("spoiler_text", ""),
            "sensitive": bool(data.get("sensitive", False)), "created_at": at,
            "media_ids": media_ids, "poll_options": poll_options}


def edit_ops(item: dict[str, Any], changes: dict[str, Any], *,
             poll_options_before: list[str] | None, poll_options_after: list[str] | None
             ) -> list[base.Op]:
    """The ops of an edit of `item`: its new fields (`changes`, with `edited_at`), and its edit
    history — on the first edit the original version first (dated and ordered at the status's
    creation), then the new one. Reads whether the status has been edited before."""
    status_id = item["id"]
    media_ids = list(item.get("media_ids", []))
    ops: list[base.Op] = []
    if not edits(status_id):
        first_id = ids.id_at(int(clock.parse_iso(item["created_at"]).timestamp() * 1000))
        ops.append(base.Op("Put", item={**keys.status_edit(status_id, first_id),
                                        **_version(item, item["created_at"], media_ids,
                                                   poll_options_before)}))
    ops.append(base.Op("Put", item={**keys.status_edit(status_id, ids.new_id()),
                                    **_version(changes, changes["edited_at"], media_ids,
                                               poll_options_after)}))
    ops.append(base.set_op(keys.status(status_id), changes))
    return ops


def removal_ops(item: dict[str, Any], *, gone: ApiError | None = None,
                media_kept_until: int | None = None, uri: str | None = None
                ) -> list[base.Op]:
    """The ops that remove a status: the item, only while it exists (else `gone` is raised,
    or ConditionFailed), its counters and its poll; its media deleted or, with
    `media_kept_until` (epoch seconds), back in the unattached pool until then (a local
    delete-and-redraft attaches them again); `uri`: the URI index entry of a remote status,
    released only while it names this status."""
    status_id = item["id"]
    ops = [base.Op("Delete", key=keys.status(status_id), condition="attribute_exists(PK)",
                   on_conflict=gone),
           base.Op("Delete", key=keys.status_stats(status_id))]
    for media_id in item.get("media_ids", []):
        if media_kept_until is None:
            ops.append(base.Op("Delete", key=keys.media(media_id)))
        else:
            ops.append(base.Op("Update", key=keys.media(media_id),
                               expression="REMOVE status_id SET #ttl = :ttl",
                               names={"#ttl": "ttl"}, vals={":ttl": media_kept_until}))
    if item.get("poll_id"):
        ops.append(polls.remove_op(item["poll_id"]))
    if uri:
        ops.append(uris.release_op(uri, "status", status_id))
    return ops
