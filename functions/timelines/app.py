"""Timelines function: home (fed by fan-out), public and hashtag timelines, and Mastodon's async
refreshes: a home feed being rebuilt, a thread's replies being fetched."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.statuses import context
from stratus.api.timelines import timelines
from stratus.api.timelines.links import timeline as link_timeline
from stratus.auth.deps import Viewer, optional, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.forms import request_params
from stratus.http.pagination import set_link

router = APIRouter()
read_statuses = optional("read:statuses")


def _viewer_id(viewer: Viewer | None) -> str | None:
    return viewer.account_id if viewer is not None else None


def _timeline_page(params: dict):
    return page_params(params, default=20, maximum=40)


@router.get("/api/v1/timelines/home")
async def timelines_home(request: Request, response: Response,
                         viewer: Viewer = Depends(require("read:statuses"))):
    items, link_ids, refresh = timelines.home(viewer, _timeline_page(
        await request_params(request)))
    set_link(response, request, link_ids)
    if refresh is not None:
        # Mastodon: 206 while the feed is rebuilt; 4.4 clients also read the header.
        response.status_code = 206
        response.headers["Mastodon-Async-Refresh"] = \
            f'id="{refresh.id}", retry={timelines.REFRESH_RETRY_SECONDS}'
    return items


@router.get("/api/v1_alpha/async_refreshes/{refresh_id}")
def async_refresh(refresh_id: str, viewer: Viewer = Depends(require("read"))):
    """The viewer's home rebuild, or a thread's replies being fetched (api/statuses/context)."""
    if refresh_id.startswith("home-"):
        return timelines.refresh_status(viewer, refresh_id)
    return context.async_refresh(viewer.account_id, refresh_id)


@router.get("/api/v1/timelines/public")
async def timelines_public(request: Request, response: Response,
                           viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    params = await request_params(request)
    items, link_ids = timelines.public(_viewer_id(viewer), params, _timeline_page(params))
    set_link(response, request, link_ids)
    return items


@router.get("/api/v1/timelines/tag/{hashtag}")
async def timelines_tag(hashtag: str, request: Request, response: Response,
                        viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    params = await request_params(request)
    items, link_ids = timelines.tag(_viewer_id(viewer), hashtag, params, _timeline_page(params))
    set_link(response, request, link_ids)
    return items


@router.get("/api/v1/timelines/list/{list_id}")
async def timelines_list(list_id: str, request: Request, response: Response,
                         viewer: Viewer = Depends(require("read:lists"))):
    items, link_ids = timelines.list_timeline(viewer, list_id, _timeline_page(
        await request_params(request)))
    set_link(response, request, link_ids)
    return items


@router.get("/api/v1/timelines/link")
async def timelines_link(request: Request, response: Response,
                         viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    params = await request_params(request)
    items, link_ids = link_timeline(_viewer_id(viewer), params, _timeline_page(params))
    set_link(response, request, link_ids)
    return items


app = create_app([router], name="timelines")
handler = http_handler(app)
