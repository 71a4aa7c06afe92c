"""Conversations: direct statuses grouped per user, as Mastodon's AccountConversation: the
list, marking one read or unread, and removing one.

A user's conversation is one thread (Mastodon's `conversation_id`; ours is the thread's root)
with one set of other participants, holding its statuses' ids, the last of which orders the
list and is shown, and an `unread` flag. The effects worker keeps them from the stream
(workers/conversations.py).
"""

from __future__ import annotations

from typing import Any

from stratus.core.errors import NotFound
from stratus.core.ids import is_id
from stratus.core.paging import Page
from stratus.model.viewer import Viewer
from stratus.read.conversations import render
from stratus.repo import conversations as repo


def page(viewer: Viewer, page_: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/conversations: newest last status first; `max_id`, `since_id` and `min_id`
    are last status ids, and so are the Link header's cursors (Mastodon)."""
    found = repo.page(viewer.account_id, *page_.id_range(), not page_.ascending, page_.limit)
    if page_.ascending:
        found.reverse()
    cursors = [str(found[0]["last_status_id"]), str(found[-1]["last_status_id"])] \
        if found else []
    return render(found, viewer.account_id), cursors


def _checked(conversation_id_: str) -> str:
    if not is_id(conversation_id_):
        raise NotFound()
    return conversation_id_


def mark(viewer: Viewer, conversation_id_: str, unread: bool) -> dict[str, Any]:
    """POST /api/v1/conversations/:id/read (and /unread): the Conversation; 404 if the viewer
    has none with that id."""
    found = repo.set_unread(viewer.account_id, _checked(conversation_id_), unread)
    if found is None:
        raise NotFound()
    return render([found], viewer.account_id)[0]


def remove(viewer: Viewer, conversation_id_: str) -> None:
    """DELETE /api/v1/conversations/:id: the conversation goes (a later status of it makes it
    anew); its statuses stay."""
    if not repo.delete(viewer.account_id, _checked(conversation_id_)):
        raise NotFound()
