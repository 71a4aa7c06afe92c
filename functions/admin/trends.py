"""Staff review of trends (Api::V1::Admin::Trends::*): list what ranks, approve or reject."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.admin import trends
from stratus.auth.deps import Viewer, require_permission
from stratus.core.paging import page_params
from stratus.http.pagination import set_offset_link
from stratus.model.roles import Permission

router = APIRouter()
read = require_permission(Permission.MANAGE_TAXONOMIES, "admin:read")
write = require_permission(Permission.MANAGE_TAXONOMIES, "admin:write")


@router.get("/api/v1/admin/trends/tags")
def admin_trending_tags(request: Request, response: Response, viewer: Viewer = Depends(read)):
    page = page_params(dict(request.query_params), default=10, maximum=20)
    found = trends.admin_tags(page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


@router.post("/api/v1/admin/trends/tags/{tag_id}/approve")
def admin_approve_tag(tag_id: str, viewer: Viewer = Depends(write)):
    return trends.review_tag(viewer, tag_id, True)


@router.post("/api/v1/admin/trends/tags/{tag_id}/reject")
def admin_reject_tag(tag_id: str, viewer: Viewer = Depends(write)):
    return trends.review_tag(viewer, tag_id, False)


@router.get("/api/v1/admin/trends/statuses")
def admin_trending_statuses(request: Request, response: Response,
                            viewer: Viewer = Depends(read)):
    page = page_params(dict(request.query_params), default=20, maximum=40)
    found = trends.admin_statuses(viewer.account_id, page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


@router.post("/api/v1/admin/trends/statuses/{status_id}/approve")
def admin_approve_status(status_id: str, viewer: Viewer = Depends(write)):
    return trends.review_status(viewer, status_id, True)


@router.post("/api/v1/admin/trends/statuses/{status_id}/reject")
def admin_reject_status(status_id: str, viewer: Viewer = Depends(write)):
    return trends.review_status(viewer, status_id, False)


@router.get("/api/v1/admin/trends/links")
def admin_trending_links(request: Request, response: Response, viewer: Viewer = Depends(read)):
    page = page_params(dict(request.query_params), default=10, maximum=20)
    found = trends.admin_links(page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


@router.post("/api/v1/admin/trends/links/{link_id}/approve")
def admin_approve_link(link_id: str, viewer: Viewer = Depends(write)):
    return trends.review_link(viewer, link_id, True)


@router.post("/api/v1/admin/trends/links/{link_id}/reject")
def admin_reject_link(link_id: str, viewer: Viewer = Depends(write)):
    return trends.review_link(viewer, link_id, False)


@router.get("/api/v1/admin/trends/links/publishers")
def admin_link_publishers(request: Request, response: Response, viewer: Viewer = Depends(read)):
    page = page_params(dict(request.query_params), default=10, maximum=20)
    found = trends.admin_publishers(page.offset, page.limit)
    set_offset_link(response, request, offset=page.offset, limit=page.limit,
                    more=len(found) == page.limit)
    return found


@router.post("/api/v1/admin/trends/links/publishers/{publisher_id}/approve")
def admin_approve_publisher(publisher_id: str, viewer: Viewer = Depends(write)):
    return trends.review_publisher(viewer, publisher_id, True)


@router.post("/api/v1/admin/trends/links/publishers/{publisher_id}/reject")
def admin_reject_publisher(publisher_id: str, viewer: Viewer = Depends(write)):
    return trends.review_publisher(viewer, publisher_id, False)
