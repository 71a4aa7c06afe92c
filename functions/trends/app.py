"""Trends function: trending hashtags, statuses and links (api/trends/ranking.py ranks them on a
schedule; this reads the rankings)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.trends import trends
from stratus.auth.deps import Viewer, optional
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.deprecation import deprecated
from stratus.http.pagination import set_offset_link

router = APIRouter()


def _user_id(viewer: Viewer | None) -> str | None:
    return viewer.account_id if viewer is not None and viewer.user is not None else None


def _page(request: Request, default: int, maximum: int):
    return page_params(dict(request.query_params), default=default, maximum=maximum)


@router.get("/api/v1/trends", **deprecated("2022-03-30"))
@router.get("/api/v1/trends/tags")
def trending_tags(request: Request, response: Response,
                  viewer: Viewer | None = Depends(optional())):
    cache_if_unauthenticated(response, request)
    page = _page(request, 10, 20)
    found = trends.trending_tags(_user_id(viewer), page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


@router.get("/api/v1/trends/statuses")
def trending_statuses(request: Request, response: Response,
                      viewer: Viewer | None = Depends(optional())):
    cache_if_unauthenticated(response, request)
    page = _page(request, 20, 40)
    found = trends.trending_statuses(_user_id(viewer), page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


@router.get("/api/v1/trends/links")
def trending_links(request: Request, response: Response,
                   viewer: Viewer | None = Depends(optional())):
    cache_if_unauthenticated(response, request)
    page = _page(request, 10, 20)
    found = trends.trending_links(page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


app = create_app([router], name="trends")
handler = http_handler(app)
