"""Admin domain blocks and domain allows (Manage Federation)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.admin import domain_blocks
from stratus.auth.deps import Viewer, require_permission
from stratus.core.paging import page_params
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.model.roles import Permission

router = APIRouter()
read_blocks = require_permission(Permission.MANAGE_FEDERATION, "admin:read:domain_blocks")
write_blocks = require_permission(Permission.MANAGE_FEDERATION, "admin:write:domain_blocks")
read_allows = require_permission(Permission.MANAGE_FEDERATION, "admin:read:domain_allows")
write_allows = require_permission(Permission.MANAGE_FEDERATION, "admin:write:domain_allows")
LIMIT, MAX_LIMIT = 100, 200  # Mastodon's admin listings: limit_param(100), at most twice that


# Rails also answers with a trailing slash, and Mastodon.py lists and creates blocks that way.
@router.get("/api/v1/admin/domain_blocks")
@router.get("/api/v1/admin/domain_blocks/", include_in_schema=False)
async def admin_domain_blocks(request: Request, response: Response,
                              viewer: Viewer = Depends(read_blocks)):
    page = page_params(await request_params(request), default=LIMIT, maximum=MAX_LIMIT)
    blocks, link_ids = domain_blocks.list_blocks(page)
    set_link(response, request, link_ids)
    return blocks


@router.post("/api/v1/admin/domain_blocks")
@router.post("/api/v1/admin/domain_blocks/", include_in_schema=False)
async def admin_create_domain_block(request: Request, viewer: Viewer = Depends(write_blocks)):
    return domain_blocks.create_block(viewer, await request_params(request))


@router.get("/api/v1/admin/domain_blocks/{domain_block_id}")
def admin_domain_block(domain_block_id: str, viewer: Viewer = Depends(read_blocks)):
    return domain_blocks.get_block(domain_block_id)


@router.put("/api/v1/admin/domain_blocks/{domain_block_id}")
async def admin_update_domain_block(domain_block_id: str, request: Request,
                                    viewer: Viewer = Depends(write_blocks)):
    return domain_blocks.update_block(viewer, domain_block_id, await request_params(request))


@router.delete("/api/v1/admin/domain_blocks/{domain_block_id}")
def admin_delete_domain_block(domain_block_id: str, viewer: Viewer = Depends(write_blocks)):
    domain_blocks.delete_block(viewer, domain_block_id)
    return {}


@router.get("/api/v1/admin/domain_allows")
async def admin_domain_allows(request: Request, response: Response,
                              viewer: Viewer = Depends(read_allows)):
    page = page_params(await request_params(request), default=LIMIT, maximum=MAX_LIMIT)
    allows, link_ids = domain_blocks.list_allows(page)
    set_link(response, request, link_ids)
    return allows


@router.post("/api/v1/admin/domain_allows")
async def admin_create_domain_allow(request: Request, viewer: Viewer = Depends(write_allows)):
    return domain_blocks.create_allow(viewer, await request_params(request))


@router.get("/api/v1/admin/domain_allows/{domain_allow_id}")
def admin_domain_allow(domain_allow_id: str, viewer: Viewer = Depends(read_allows)):
    return domain_blocks.get_allow(domain_allow_id)


@router.delete("/api/v1/admin/domain_allows/{domain_allow_id}")
def admin_delete_domain_allow(domain_allow_id: str, viewer: Viewer = Depends(write_allows)):
    domain_blocks.delete_allow(viewer, domain_allow_id)
    return {}
