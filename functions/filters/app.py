"""Filters function: v2 filters with their keywords and status filters, and the deprecated v1
filters (one keyword each). The keyword routes also answer where clients of Mastodon 4.0's
development sent them (`/api/v1/filters/keywords/:id`, `/api/v2/filter_keywords/:id`)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.filters import filter_edits as edits
from stratus.auth.deps import Viewer, require
from stratus.core.observability import http_handler
from stratus.http.app import create_app
from stratus.http.deprecation import deprecated
from stratus.http.forms import request_params

router = APIRouter()
read_filters = require("read:filters")
write_filters = require("write:filters")
V1_FILTERS = deprecated("2022-11-14")  # Api::V1::FiltersController
KEYWORD_PATHS = ("/api/v2/filters/keywords/{keyword_id}", "/api/v1/filters/keywords/{keyword_id}",
                 "/api/v2/filter_keywords/{keyword_id}")


# --- keywords and status filters by their own id (before /filters/{id}) ---------------------------
def keyword_show(keyword_id: str, viewer: Viewer = Depends(read_filters)):
    return edits.show_keyword(viewer, keyword_id)


async def keyword_update(keyword_id: str, request: Request,
                         viewer: Viewer = Depends(write_filters)):
    return edits.update_keyword(viewer, keyword_id, await request_params(request))


def keyword_delete(keyword_id: str, viewer: Viewer = Depends(write_filters)):
    return edits.delete_keyword(viewer, keyword_id)


for _path in KEYWORD_PATHS:
    router.add_api_route(_path, keyword_show, methods=["GET"])
    router.add_api_route(_path, keyword_update, methods=["PUT"])
    router.add_api_route(_path, keyword_delete, methods=["DELETE"])


@router.get("/api/v2/filters/statuses/{status_filter_id}")
def status_filter_show(status_filter_id: str, viewer: Viewer = Depends(read_filters)):
    return edits.show_status(viewer, status_filter_id)


@router.delete("/api/v2/filters/statuses/{status_filter_id}")
def status_filter_delete(status_filter_id: str, viewer: Viewer = Depends(write_filters)):
    return edits.delete_status(viewer, status_filter_id)


# --- v2 filters ------------------------------------------------------------------------------------
@router.get("/api/v2/filters")
def filters_index(viewer: Viewer = Depends(read_filters)):
    return edits.index(viewer)


@router.post("/api/v2/filters")
async def filters_create(request: Request, viewer: Viewer = Depends(write_filters)):
    return edits.create(viewer, await request_params(request))


@router.get("/api/v2/filters/{filter_id}")
def filters_show(filter_id: str, viewer: Viewer = Depends(read_filters)):
    return edits.show(viewer, filter_id)


@router.put("/api/v2/filters/{filter_id}")
async def filters_update(filter_id: str, request: Request,
                         viewer: Viewer = Depends(write_filters)):
    return edits.update(viewer, filter_id, await request_params(request))


@router.delete("/api/v2/filters/{filter_id}")
def filters_delete(filter_id: str, viewer: Viewer = Depends(write_filters)):
    return edits.delete(viewer, filter_id)


@router.get("/api/v2/filters/{filter_id}/keywords")
def filter_keywords(filter_id: str, viewer: Viewer = Depends(read_filters)):
    return edits.keywords(viewer, filter_id)


@router.post("/api/v2/filters/{filter_id}/keywords")
async def filter_keywords_add(filter_id: str, request: Request,
                              viewer: Viewer = Depends(write_filters)):
    return edits.add_keyword(viewer, filter_id, await request_params(request))


@router.post("/api/v2/filters/{filter_id}/keywords/{keyword_id}")
async def filter_keywords_add_with_id(filter_id: str, keyword_id: str, request: Request,
                                      viewer: Viewer = Depends(write_filters)):
    """Older clients add a keyword here; the trailing id means nothing (a new keyword)."""
    return edits.add_keyword(viewer, filter_id, await request_params(request))


@router.get("/api/v2/filters/{filter_id}/statuses")
def filter_statuses(filter_id: str, viewer: Viewer = Depends(read_filters)):
    return edits.statuses(viewer, filter_id)


@router.post("/api/v2/filters/{filter_id}/statuses")
async def filter_statuses_add(filter_id: str, request: Request,
                              viewer: Viewer = Depends(write_filters)):
    return edits.add_status(viewer, filter_id, await request_params(request))


# --- v1 filters (deprecated) ---------------------------------------------------------------------------
@router.get("/api/v1/filters", **V1_FILTERS)
def v1_index(viewer: Viewer = Depends(read_filters)):
    return edits.v1_index(viewer)


@router.post("/api/v1/filters", **V1_FILTERS)
async def v1_create(request: Request, viewer: Viewer = Depends(write_filters)):
    return edits.v1_create(viewer, await request_params(request))


@router.get("/api/v1/filters/{keyword_id}", **V1_FILTERS)
def v1_show(keyword_id: str, viewer: Viewer = Depends(read_filters)):
    return edits.v1_show(viewer, keyword_id)


@router.put("/api/v1/filters/{keyword_id}", **V1_FILTERS)
async def v1_update(keyword_id: str, request: Request, viewer: Viewer = Depends(write_filters)):
    return edits.v1_update(viewer, keyword_id, await request_params(request))


@router.delete("/api/v1/filters/{keyword_id}", **V1_FILTERS)
def v1_delete(keyword_id: str, viewer: Viewer = Depends(write_filters)):
    return edits.v1_delete(viewer, keyword_id)


app = create_app([router], name="filters")
handler = http_handler(app)
