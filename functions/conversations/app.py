"""Conversations function: direct statuses grouped per conversation — list, mark read or
unread, remove."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.conversations import conversations
from stratus.auth.deps import Viewer, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.pagination import set_link

router = APIRouter()
write = require("write:conversations")


@router.get("/api/v1/conversations")
@router.get("/api/v1/conversations/")  # Mastodon.py asks with a trailing slash
def conversations_list(request: Request, response: Response,
                       viewer: Viewer = Depends(require("read:statuses"))):
    items, cursors = conversations.page(viewer, page_params(dict(request.query_params),
                                                            default=20, maximum=40))
    set_link(response, request, cursors)
    return items


@router.post("/api/v1/conversations/{conversation_id}/read")
def conversations_read(conversation_id: str, viewer: Viewer = Depends(write)):
    return conversations.mark(viewer, conversation_id, unread=False)


@router.post("/api/v1/conversations/{conversation_id}/unread")
def conversations_unread(conversation_id: str, viewer: Viewer = Depends(write)):
    return conversations.mark(viewer, conversation_id, unread=True)


@router.delete("/api/v1/conversations/{conversation_id}")
def conversations_delete(conversation_id: str, viewer: Viewer = Depends(write)):
    conversations.remove(viewer, conversation_id)
    return {}


app = create_app([router], name="conversations")
handler = http_handler(app)
