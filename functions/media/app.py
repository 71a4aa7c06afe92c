"""Media function: uploads to S3 with metadata, preview and blurhash; descriptions and focus."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.media import media
from stratus.auth.deps import Viewer, require
from stratus.core.observability import http_handler
from stratus.http.app import JSONResponse, create_app
from stratus.http.forms import request_params

router = APIRouter()
write_media = require("write:media")


@router.post("/api/v1/media")
async def media_create_v1(request: Request, viewer: Viewer = Depends(write_media)):
    params = await request_params(request)
    return media.upload(viewer, params.get("file"), params.get("description"),
                        params.get("focus"))[0]


@router.post("/api/v2/media")
async def media_create_v2(request: Request, viewer: Viewer = Depends(write_media)):
    """200 when processed before answering; 202 while the media worker still works on it."""
    params = await request_params(request)
    entity, processed = media.upload(viewer, params.get("file"), params.get("description"),
                                     params.get("focus"), defer_large=True)
    return JSONResponse(entity, status_code=200 if processed else 202)


@router.get("/api/v1/media/{media_id}")
def media_show(media_id: str, viewer: Viewer = Depends(write_media)):
    entity, processed = media.show(viewer, media_id)
    return JSONResponse(entity, status_code=200 if processed else 206)


@router.put("/api/v1/media/{media_id}")
async def media_update(media_id: str, request: Request, viewer: Viewer = Depends(write_media)):
    return media.update(viewer, media_id, await request_params(request))


@router.delete("/api/v1/media/{media_id}")
def media_delete(media_id: str, viewer: Viewer = Depends(write_media)):
    media.delete(viewer, media_id)
    return {}


app = create_app([router], name="media")
handler = http_handler(app)
