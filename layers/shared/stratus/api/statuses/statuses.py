"""Statuses: `POST /api/v1/statuses` (now, api/statuses/post.py, or scheduled), edits and
deletion of one's own. Reading them as a viewer may see them is read/statuses.py."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from stratus.actions import posting
from stratus.api.statuses import scheduled
from stratus.api.statuses.post import create_idempotent
from stratus.convert import statuses as convert_statuses
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.model.viewer import Viewer
from stratus.read import status_views
from stratus.read import statuses as statuses_read
from stratus.repo import counters as counters_repo
from stratus.repo import interactions as interactions_repo
from stratus.repo import polls as polls_repo
from stratus.repo import scheduler, status_writes, transaction
from stratus.repo import statuses as repo
from stratus.text import formatter


def post(viewer: Viewer, params: dict[str, Any], idempotency_key: str | None,
         lambda_context: Any = None) -> dict[str, Any]:
    """POST /api/v1/statuses: a Status now, or a ScheduledStatus when `scheduled_at` is given."""
    if params.get("scheduled_at"):
        return scheduled.create(viewer, params, params["scheduled_at"])
    status_id = create_idempotent(viewer, params, idempotency_key, lambda_context)
    return statuses_read.show(viewer.account_id, status_id)


def own_item(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    if item is None or item["account_id"] != viewer.account_id or item.get("reblog_of_id"):
        raise NotFound()
    return item


def delete(viewer: Viewer, status_id: str) -> dict[str, Any]:
    """Delete an own status; returns it with `text` (and its poll/media) for delete-and-redraft."""
    item = own_item(viewer, status_id)
    entity = status_views.render_one(item, viewer.account_id)
    entity["text"] = item.get("text", "")
    entity["spoiler_text"] = item.get("spoiler_text", "")
    pinned = interactions_repo.edge(interactions_repo.PIN, viewer.account_id,
                                    status_id) is not None
    # The author's statuses_count and the parent's replies_count go down with it; others'
    # likes, boosts and bookmarks, notifications and edits of it follow from the stream (the
    # outbox's status removal rule). Media goes back to the unattached pool (kept for a
    # redraft, expires if unused).
    expiry = int((clock.now() + timedelta(days=1)).timestamp())
    ops = status_writes.removal_ops(item, gone=NotFound(), media_kept_until=expiry)
    if pinned:
        ops += interactions_repo.unpin_ops(viewer.account_id, status_id)
    counters_repo.write_counted(lambda now: ops, removed=[("status", item)])
    if item.get("poll_id"):
        scheduler.cancel(f"poll-{item['poll_id']}")
    return entity


def edit(viewer: Viewer, status_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """PUT /api/v1/statuses/:id: new text, spoiler, sensitivity, language, poll and media
    descriptions; attachments cannot be swapped. The first edit also records the original."""
    item = own_item(viewer, status_id)
    merged = {"status": params.get("status", item.get("text", "")),
              "spoiler_text": params.get("spoiler_text", item.get("spoiler_text", "")),
              "media_ids": params.get("media_ids", item.get("media_ids", [])),
              "poll": params.get("poll"), "visibility": item["visibility"],
              "content_type": params.get("content_type", item.get("content_type", "text/plain")),
              "language": params.get("language", item.get("language")),
              "sensitive": params.get("sensitive", item.get("sensitive", False))}
    prepared = posting.prepare(viewer, merged)
    if sorted(prepared["media_ids"]) != sorted(item.get("media_ids", [])):
        raise Unprocessable("Validation failed: Media attachments cannot be changed when editing")
    parsed = formatter.parse(prepared["status"])
    mentions = posting.mentioned_accounts(parsed)
    now = clock.now()
    changes: dict[str, Any] = {
        "text": prepared["status"], "content_type": prepared["content_type"],
        "content": convert_statuses.render_text(prepared["status"], prepared["content_type"],
                                                mentions),
        "spoiler_text": prepared["spoiler_text"], "sensitive": prepared["sensitive"],
        "language": prepared["language"], "tags": [formatter.normalize_tag(t) for t in parsed.tags],
        "mention_ids": list(dict.fromkeys(list(item.get("mention_ids", [])) +
                                          [a["id"] for a in mentions.values()])),
        "edited_at": clock.iso(now)}
    if prepared["status"] != item.get("text"):
        changes["card_url"] = None  # cards: a new text's card comes from the cards worker
    ops: list[transaction.Op] = []
    media_attributes = params.get("media_attributes") or []
    if isinstance(media_attributes, dict):
        media_attributes = list(media_attributes.values())
    attached = repo.get_media(item.get("media_ids", [])) if media_attributes else {}
    for attributes in media_attributes if isinstance(media_attributes, list) else []:
        if not isinstance(attributes, dict) or str(attributes.get("id")) not in attached:
            continue
        from stratus.api.media import media

        op = media.attribute_op(attached[str(attributes["id"])], attributes)
        if op is not None:
            ops.append(op)
    old_poll_options = statuses_read.poll_options(item)
    if prepared["poll"] and prepared["poll"]["options"] != old_poll_options:
        poll = prepared["poll"]
        poll_id = ids.new_id()
        expires_at = now + timedelta(seconds=poll["expires_in"])
        if item.get("poll_id"):
            ops.append(polls_repo.remove_op(item["poll_id"]))
        ops.append(polls_repo.create_op(
            poll_id, status_id, viewer.account_id, options=poll["options"],
            multiple=poll["multiple"], hide_totals=poll["hide_totals"],
            expires_at=clock.iso(expires_at)))
        changes["poll_id"] = poll_id
    new_options = prepared["poll"]["options"] if prepared["poll"] else old_poll_options
    ops += status_writes.edit_ops(item, changes, poll_options_before=old_poll_options,
                                  poll_options_after=new_options)
    transaction.write(ops)
    if changes.get("poll_id"):
        from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

        if item.get("poll_id"):
            scheduler.cancel(f"poll-{item['poll_id']}")
        scheduler.schedule(f"poll-{changes['poll_id']}",
                           now + timedelta(seconds=prepared["poll"]["expires_in"]),
                           jobs.PollExpired(poll_id=changes["poll_id"]).to_dict())
    return statuses_read.show(viewer.account_id, status_id)
