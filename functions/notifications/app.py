"""Notifications function: notifications (v1) and grouped notifications (v2), unread counts,
the notification policy, notification requests, and markers."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.notifications import grouped, markers, policy, requests, unread, v1
from stratus.auth.deps import Viewer, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.forms import request_params
from stratus.http.pagination import set_link

router = APIRouter()
read = require("read:notifications")
write = require("write:notifications")


def _page(request: Request):
    return page_params(dict(request.query_params), default=40, maximum=80)


def _linked(request: Request, response: Response, result):
    body, link_ids = result
    set_link(response, request, link_ids)
    return body


# --- v1 -------------------------------------------------------------------------------------------
@router.get("/api/v1/notifications")
async def notifications_list(request: Request, response: Response, viewer: Viewer = Depends(read)):
    params = await request_params(request)
    return _linked(request, response,
                   v1.list_notifications(viewer, params, _page(request)))


@router.get("/api/v1/notifications/unread_count")
async def notifications_unread_count(request: Request, viewer: Viewer = Depends(read)):
    return unread.unread_count(viewer, await request_params(request))


@router.post("/api/v1/notifications/clear")
def notifications_clear(viewer: Viewer = Depends(write)):
    return v1.clear(viewer)


@router.get("/api/v1/notifications/requests")
def requests_list(request: Request, response: Response, viewer: Viewer = Depends(read)):
    return _linked(request, response, requests.list_requests(viewer, _page(request)))


@router.get("/api/v1/notifications/requests/merged")
def requests_merged(viewer: Viewer = Depends(read)):
    return requests.requests_merged(viewer)


@router.post("/api/v1/notifications/requests/accept")
async def requests_accept_many(request: Request, viewer: Viewer = Depends(write)):
    return requests.accept_requests(viewer, await request_params(request))


@router.post("/api/v1/notifications/requests/dismiss")
async def requests_dismiss_many(request: Request, viewer: Viewer = Depends(write)):
    return requests.dismiss_requests(viewer, await request_params(request))


@router.get("/api/v1/notifications/requests/{request_id}")
def requests_show(request_id: str, viewer: Viewer = Depends(read)):
    return requests.show_request(viewer, request_id)


@router.post("/api/v1/notifications/requests/{request_id}/accept")
def requests_accept(request_id: str, viewer: Viewer = Depends(write)):
    return requests.accept_request(viewer, request_id)


@router.post("/api/v1/notifications/requests/{request_id}/dismiss")
def requests_dismiss(request_id: str, viewer: Viewer = Depends(write)):
    return requests.dismiss_request(viewer, request_id)


@router.delete("/api/v1/notifications/destroy_multiple")
async def notifications_destroy_multiple(request: Request, viewer: Viewer = Depends(write)):
    params = await request_params(request)
    return v1.dismiss_many(viewer, params.get("ids"))


@router.get("/api/v1/notifications/{notification_id}")
def notifications_show(notification_id: str, viewer: Viewer = Depends(read)):
    return v1.show(viewer, notification_id)


@router.post("/api/v1/notifications/{notification_id}/dismiss")
@router.delete("/api/v1/notifications/{notification_id}")  # Mastodon's destroy: a dismiss
def notifications_dismiss(notification_id: str, viewer: Viewer = Depends(write)):
    return v1.dismiss(viewer, notification_id)


# --- v2 (grouped) ---------------------------------------------------------------------------------
@router.get("/api/v2/notifications")
async def grouped_list(request: Request, response: Response, viewer: Viewer = Depends(read)):
    params = await request_params(request)
    return _linked(request, response, grouped.list_grouped(viewer, params, _page(request)))


@router.post("/api/v2/notifications/clear")
def grouped_clear(viewer: Viewer = Depends(write)):
    return v1.clear(viewer)


@router.get("/api/v2/notifications/unread_count")
async def grouped_unread_count(request: Request, viewer: Viewer = Depends(read)):
    return unread.unread_count(viewer, await request_params(request), grouped=True)


@router.get("/api/v2/notifications/policy")
def policy_show(viewer: Viewer = Depends(read)):
    return policy.get_policy(viewer)


@router.api_route("/api/v2/notifications/policy", methods=["PATCH", "PUT"])
async def policy_update(request: Request, viewer: Viewer = Depends(write)):
    return policy.update_policy(viewer, await request_params(request))


@router.get("/api/v2/notifications/{group_key}")
def grouped_show(group_key: str, viewer: Viewer = Depends(read)):
    return grouped.show_group(viewer, group_key)


@router.get("/api/v2/notifications/{group_key}/accounts")
def grouped_accounts(group_key: str, request: Request, response: Response,
                     viewer: Viewer = Depends(read)):
    return _linked(request, response,
                   grouped.group_accounts(viewer, group_key, _page(request)))


@router.post("/api/v2/notifications/{group_key}/dismiss")
def grouped_dismiss(group_key: str, viewer: Viewer = Depends(write)):
    return grouped.dismiss_group(viewer, group_key)


# --- markers --------------------------------------------------------------------------------------
@router.get("/api/v1/markers")
async def markers_get(request: Request, viewer: Viewer = Depends(require("read:statuses"))):
    return markers.get(viewer, await request_params(request))


@router.post("/api/v1/markers")
async def markers_save(request: Request, viewer: Viewer = Depends(require("write:statuses"))):
    return markers.save(viewer, await request_params(request))


app = create_app([router], name="notifications")
handler = http_handler(app)
