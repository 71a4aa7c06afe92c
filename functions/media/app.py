"""Media function: uploads to S3 with metadata, preview and blurhash; descriptions and focus."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from stratus.auth.deps import Viewer, require
from stratus.http.forms import request_params
from stratus.http.app import create_app
from stratus.observability import http_handler
from stratus.services import media

router = APIRouter()
write_media = require("write:media")


@router.post("/api/v1/media")
@router.post("/api/v2/media")
async def media_create(request: Request, viewer: Viewer = Depends(write_media)):
    # Images are processed before we answer, so v2 returns 200 (Mastodon answers 202 only
    # while processing continues in the background).
    params = await request_params(request)
    return media.upload(viewer, params.get("file"), params.get("description"),
                        params.get("focus"))


@router.get("/api/v1/media/{media_id}")
def media_show(media_id: str, viewer: Viewer = Depends(write_media)):
    return media.show(viewer, media_id)


@router.put("/api/v1/media/{media_id}")
async def media_update(media_id: str, request: Request, viewer: Viewer = Depends(write_media)):
    return media.update(viewer, media_id, await request_params(request))


@router.delete("/api/v1/media/{media_id}")
def media_delete(media_id: str, viewer: Viewer = Depends(write_media)):
    media.delete(viewer, media_id)
    return {}


app = create_app([router], name="media")
handler = http_handler(app)
