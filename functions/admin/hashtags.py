"""Staff's hashtags (Api::V1::Admin::TagsController): list, show, update; Manage Taxonomies."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.admin import tags
from stratus.auth.deps import Viewer, require_permission
from stratus.core.paging import page_params
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.model.roles import Permission

router = APIRouter()
read = require_permission(Permission.MANAGE_TAXONOMIES, "admin:read")
write = require_permission(Permission.MANAGE_TAXONOMIES, "admin:write")


@router.get("/api/v1/admin/tags")
def admin_tags(request: Request, response: Response, viewer: Viewer = Depends(read)):
    page = page_params(dict(request.query_params), default=tags.LIMIT, maximum=2 * tags.LIMIT)
    found, link_ids = tags.listing(viewer, page)
    set_link(response, request, link_ids)
    return found


@router.get("/api/v1/admin/tags/{tag_id}")
def admin_tag(tag_id: str, viewer: Viewer = Depends(read)):
    return tags.show(viewer, tag_id)


@router.put("/api/v1/admin/tags/{tag_id}")
async def admin_tag_update(tag_id: str, request: Request, viewer: Viewer = Depends(write)):
    return tags.update(viewer, tag_id, await request_params(request))
