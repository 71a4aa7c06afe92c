"""Conversation entities for their owner: what the conversations API lists and the stream
worker sends on the `direct` stream (Mastodon's REST::ConversationSerializer)."""

from __future__ import annotations

from typing import Any

from stratus.policy import visibility
from stratus.read import relationships, status_views
from stratus.repo import statuses as statuses_repo


def render(conversations: list[dict[str, Any]], viewer_id: str) -> list[dict[str, Any]]:
    """REST::ConversationSerializer for a page, in batches: the last statuses (through the
    visibility policy: one the viewer may no longer see is `null`) and every participant."""
    relations = relationships.loader(viewer_id)
    found = statuses_repo.get_many([str(c["last_status_id"]) for c in conversations])
    visible = visibility.filter_visible(found.values(), relations.statuses(found.values()))
    statuses = {s["id"]: s for s in status_views.render(visible, viewer_id, relations=relations)}
    people = status_views.load_accounts(
        [str(p) for c in conversations for p in c.get("participant_ids", [])] + [viewer_id])
    rendered = []
    for conversation in conversations:
        others = [people[str(p)] for p in conversation.get("participant_ids", [])
                  if str(p) in people]
        if not conversation.get("participant_ids"):
            others = [people[viewer_id]] if viewer_id in people else []  # a note to oneself
        rendered.append({"id": str(conversation["id"]), "unread": bool(conversation["unread"]),
                         "accounts": others,
                         "last_status": statuses.get(str(conversation["last_status_id"]))})
    return rendered


def render_for(viewer_id: str, conversations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Conversation entities as the list renders them (the stream worker sends one)."""
    return render(conversations, viewer_id)
