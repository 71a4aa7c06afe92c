"""Announcements function: the published announcements a user sees, dismissing one, and
reacting to one (Mastodon's Api::V1::AnnouncementsController and Announcements::
ReactionsController); donation campaigns, of which there are none. Staff write announcements
through the admin API (functions/admin/announcements.py)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.announcements import announcements
from stratus.auth.deps import Viewer, require
from stratus.core.observability import http_handler
from stratus.http.app import create_app
from stratus.http.forms import request_params

router = APIRouter()
signed_in = require()
dismissing = require("write", "write:accounts")
reacting = require("write", "write:favourites")


@router.get("/api/v1/announcements")
async def list_announcements(request: Request, viewer: Viewer = Depends(signed_in)):
    return announcements.list_for(viewer, await request_params(request))


@router.get("/api/v1/donation_campaigns")
def donation_campaigns(viewer: Viewer = Depends(signed_in)):
    """Mastodon asks its campaign service when one is configured (DONATION_CAMPAIGNS_URL);
    this server runs none, and answers as Mastodon does without one: 204, no body."""
    return Response(status_code=204)


@router.post("/api/v1/announcements/{announcement_id}/dismiss")
def dismiss(announcement_id: str, viewer: Viewer = Depends(dismissing)):
    announcements.dismiss(viewer, announcement_id)
    return {}


@router.put("/api/v1/announcements/{announcement_id}/reactions/{name}")
def react(announcement_id: str, name: str, viewer: Viewer = Depends(reacting)):
    announcements.react(viewer, announcement_id, name)
    return {}


@router.delete("/api/v1/announcements/{announcement_id}/reactions/{name}")
def unreact(announcement_id: str, name: str, viewer: Viewer = Depends(reacting)):
    announcements.unreact(viewer, announcement_id, name)
    return {}


app = create_app([router], name="announcements")
handler = http_handler(app)
