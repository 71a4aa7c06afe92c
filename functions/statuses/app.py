"""Statuses function: posting, reading, context, edits, interactions, polls, scheduled
statuses, favourites/bookmarks lists and an account's statuses."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.statuses import card, context, interactions, polls, scheduled, statuses, translate
from stratus.auth.deps import Viewer, optional, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.read import statuses as statuses_read

router = APIRouter()
read_statuses = optional("read:statuses")


def _viewer_id(viewer: Viewer | None) -> str | None:
    return viewer.account_id if viewer is not None else None


@router.post("/api/v1/statuses")
async def statuses_create(request: Request, viewer: Viewer = Depends(require("write:statuses"))):
    return statuses.post(viewer, await request_params(request),
                         request.headers.get("idempotency-key"), request.scope.get("aws.context"))


@router.get("/api/v1/statuses")
def statuses_many(request: Request, response: Response, viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    return statuses_read.show_many(_viewer_id(viewer), request.query_params.getlist("id[]")
                              or request.query_params.getlist("id"))


@router.get("/api/v1/statuses/{status_id}")
def statuses_show(status_id: str, request: Request, response: Response,
                  viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    return statuses_read.show(_viewer_id(viewer), status_id)


@router.delete("/api/v1/statuses/{status_id}")
def statuses_delete(status_id: str, viewer: Viewer = Depends(require("write:statuses"))):
    return statuses.delete(viewer, status_id)


@router.put("/api/v1/statuses/{status_id}")
async def statuses_edit(status_id: str, request: Request,
                        viewer: Viewer = Depends(require("write:statuses"))):
    return statuses.edit(viewer, status_id, await request_params(request))


@router.get("/api/v1/statuses/{status_id}/context")
def statuses_context(status_id: str, request: Request, response: Response,
                     viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    found, refreshing = context.context(_viewer_id(viewer), status_id)
    if refreshing:
        response.headers["Mastodon-Async-Refresh"] = refreshing
    return found


@router.get("/api/v1/statuses/{status_id}/card")
def statuses_card(status_id: str, request: Request, response: Response,
                  viewer: Viewer | None = Depends(read_statuses)):
    """Removed in Mastodon 3.0 but still called by older clients."""
    cache_if_unauthenticated(response, request)
    return card.for_status(_viewer_id(viewer), status_id)


@router.post("/api/v1/statuses/{status_id}/translate")
async def statuses_translate(status_id: str, request: Request,
                            viewer: Viewer = Depends(require("read:statuses"))):
    params = await request_params(request)
    target = translate.target_language(params.get("lang"), (viewer.user or {}).get("locale"),
                                       request.headers.get("accept-language"))
    return translate.translate(viewer, status_id, target)


@router.get("/api/v1/statuses/{status_id}/history")
def statuses_history(status_id: str, viewer: Viewer | None = Depends(read_statuses)):
    return statuses_read.history(_viewer_id(viewer), status_id)


@router.get("/api/v1/statuses/{status_id}/source")
def statuses_source(status_id: str, viewer: Viewer = Depends(require("read:statuses", user=False))):
    return statuses_read.source(viewer.account_id, status_id)


def _page_of(request: Request, response: Response, items_and_ids):
    """Return a page and set its Link header from the ids it paginates by."""
    items, ids_ = items_and_ids
    set_link(response, request, ids_)
    return items


@router.get("/api/v1/statuses/{status_id}/reblogged_by")
def statuses_reblogged_by(status_id: str, request: Request, response: Response,
                          viewer: Viewer | None = Depends(read_statuses)):
    page = page_params(dict(request.query_params), default=40, maximum=80)
    return _page_of(request, response,
                    interactions.actors(_viewer_id(viewer), status_id, "reblogged", page))


@router.get("/api/v1/statuses/{status_id}/favourited_by")
def statuses_favourited_by(status_id: str, request: Request, response: Response,
                           viewer: Viewer | None = Depends(read_statuses)):
    page = page_params(dict(request.query_params), default=40, maximum=80)
    return _page_of(request, response,
                    interactions.actors(_viewer_id(viewer), status_id, "favourited", page))


@router.post("/api/v1/statuses/{status_id}/favourite")
def statuses_favourite(status_id: str, viewer: Viewer = Depends(require("write:favourites"))):
    return interactions.favourite(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/unfavourite")
def statuses_unfavourite(status_id: str, viewer: Viewer = Depends(require("write:favourites"))):
    return interactions.unfavourite(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/reblog")
async def statuses_reblog(status_id: str, request: Request,
                          viewer: Viewer = Depends(require("write:statuses"))):
    params = await request_params(request)
    return interactions.reblog(viewer, status_id, params.get("visibility"))


@router.post("/api/v1/statuses/{status_id}/unreblog")
def statuses_unreblog(status_id: str, viewer: Viewer = Depends(require("write:statuses"))):
    return interactions.unreblog(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/bookmark")
def statuses_bookmark(status_id: str, viewer: Viewer = Depends(require("write:bookmarks"))):
    return interactions.bookmark(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/unbookmark")
def statuses_unbookmark(status_id: str, viewer: Viewer = Depends(require("write:bookmarks"))):
    return interactions.unbookmark(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/pin")
def statuses_pin(status_id: str, viewer: Viewer = Depends(require("write:accounts"))):
    return interactions.pin(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/unpin")
def statuses_unpin(status_id: str, viewer: Viewer = Depends(require("write:accounts"))):
    return interactions.unpin(viewer, status_id)


@router.post("/api/v1/statuses/{status_id}/mute")
def statuses_mute(status_id: str, viewer: Viewer = Depends(require("write:mutes"))):
    return interactions.mute(viewer, status_id, True)


@router.post("/api/v1/statuses/{status_id}/unmute")
def statuses_unmute(status_id: str, viewer: Viewer = Depends(require("write:mutes"))):
    return interactions.mute(viewer, status_id, False)


@router.get("/api/v1/polls/{poll_id}")
def polls_show(poll_id: str, viewer: Viewer | None = Depends(read_statuses)):
    return polls.show(_viewer_id(viewer), poll_id)


@router.post("/api/v1/polls/{poll_id}/votes")
async def polls_vote(poll_id: str, request: Request,
                     viewer: Viewer = Depends(require("write:statuses"))):
    params = await request_params(request)
    return polls.vote(viewer, poll_id, params.get("choices"))


@router.get("/api/v1/scheduled_statuses")
def scheduled_list(request: Request, response: Response,
                   viewer: Viewer = Depends(require("read:statuses"))):
    items = scheduled.list_(viewer, page_params(dict(request.query_params)))
    return _page_of(request, response, (items, [i["id"] for i in items]))


@router.get("/api/v1/scheduled_statuses/{scheduled_id}")
def scheduled_show(scheduled_id: str, viewer: Viewer = Depends(require("read:statuses"))):
    return scheduled.show(viewer, scheduled_id)


@router.put("/api/v1/scheduled_statuses/{scheduled_id}")
async def scheduled_update(scheduled_id: str, request: Request,
                           viewer: Viewer = Depends(require("write:statuses"))):
    params = await request_params(request)
    return scheduled.move(viewer, scheduled_id, params.get("scheduled_at"))


@router.delete("/api/v1/scheduled_statuses/{scheduled_id}")
def scheduled_delete(scheduled_id: str, viewer: Viewer = Depends(require("write:statuses"))):
    scheduled.cancel(viewer, scheduled_id)
    return {}


@router.get("/api/v1/favourites")
def favourites(request: Request, response: Response,
               viewer: Viewer = Depends(require("read:favourites"))):
    return _page_of(request, response, interactions.own_list(
        viewer, "favourited", page_params(dict(request.query_params))))


@router.get("/api/v1/bookmarks")
def bookmarks(request: Request, response: Response,
              viewer: Viewer = Depends(require("read:bookmarks"))):
    return _page_of(request, response, interactions.own_list(
        viewer, "bookmarked", page_params(dict(request.query_params))))


@router.get("/api/v1/accounts/{account_id}/statuses")
def account_statuses(account_id: str, request: Request, response: Response,
                     viewer: Viewer | None = Depends(read_statuses)):
    cache_if_unauthenticated(response, request)
    params = dict(request.query_params)
    return _page_of(request, response, statuses_read.account_statuses(
        _viewer_id(viewer), account_id, params, page_params(params)))


app = create_app([router], name="statuses")
handler = http_handler(app)
