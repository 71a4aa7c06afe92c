"""Admin routes of the roles area: e-mail domain blocks, canonical e-mail blocks, IP blocks
(all MANAGE_BLOCKS, as Mastodon's policies)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.admin import access_blocks as blocks
from stratus.auth.deps import Viewer, require_permission
from stratus.core.paging import page_params
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.model.roles import Permission

router = APIRouter()


def _needs(kind: str, access: str):
    return require_permission(Permission.MANAGE_BLOCKS, f"admin:{access}:{kind}")


read_email_domains = _needs("email_domain_blocks", "read")
write_email_domains = _needs("email_domain_blocks", "write")
read_canonical = _needs("canonical_email_blocks", "read")
write_canonical = _needs("canonical_email_blocks", "write")
read_ips = _needs("ip_blocks", "read")
write_ips = _needs("ip_blocks", "write")


async def _listing(request: Request, response: Response, lister):
    params = await request_params(request)
    items, link_ids = lister(page_params(params, default=100, maximum=200))
    set_link(response, request, link_ids)
    return items


# --- e-mail domain blocks ---------------------------------------------------------------------
@router.get("/api/v1/admin/email_domain_blocks")
async def email_domain_blocks(request: Request, response: Response,
                              viewer: Viewer = Depends(read_email_domains)):
    return await _listing(request, response, blocks.email_domain_blocks)


@router.post("/api/v1/admin/email_domain_blocks")
async def email_domain_blocks_create(request: Request,
                                     viewer: Viewer = Depends(write_email_domains)):
    return blocks.create_email_domain_block(viewer, await request_params(request))


@router.get("/api/v1/admin/email_domain_blocks/{block_id}")
def email_domain_block(block_id: str, viewer: Viewer = Depends(read_email_domains)):
    return blocks.email_domain_block(block_id)


@router.delete("/api/v1/admin/email_domain_blocks/{block_id}")
def email_domain_block_delete(block_id: str, viewer: Viewer = Depends(write_email_domains)):
    blocks.delete_email_domain_block(viewer, block_id)
    return {}


# --- canonical e-mail blocks --------------------------------------------------------------------
@router.get("/api/v1/admin/canonical_email_blocks")
async def canonical_email_blocks(request: Request, response: Response,
                                 viewer: Viewer = Depends(read_canonical)):
    return await _listing(request, response, blocks.canonical_email_blocks)


@router.post("/api/v1/admin/canonical_email_blocks/test")
async def canonical_email_blocks_test(request: Request, viewer: Viewer = Depends(read_canonical)):
    return blocks.test_canonical_email(await request_params(request))


@router.post("/api/v1/admin/canonical_email_blocks")
async def canonical_email_blocks_create(request: Request,
                                        viewer: Viewer = Depends(write_canonical)):
    return blocks.create_canonical_email_block(viewer, await request_params(request))


@router.get("/api/v1/admin/canonical_email_blocks/{block_id}")
def canonical_email_block(block_id: str, viewer: Viewer = Depends(read_canonical)):
    return blocks.canonical_email_block(block_id)


@router.delete("/api/v1/admin/canonical_email_blocks/{block_id}")
def canonical_email_block_delete(block_id: str, viewer: Viewer = Depends(write_canonical)):
    blocks.delete_canonical_email_block(viewer, block_id)
    return {}


# --- IP blocks ----------------------------------------------------------------------------------
@router.get("/api/v1/admin/ip_blocks")
async def ip_blocks(request: Request, response: Response, viewer: Viewer = Depends(read_ips)):
    return await _listing(request, response, blocks.ip_blocks)


@router.post("/api/v1/admin/ip_blocks")
async def ip_blocks_create(request: Request, viewer: Viewer = Depends(write_ips)):
    return blocks.create_ip_block(viewer, await request_params(request))


@router.get("/api/v1/admin/ip_blocks/{block_id}")
def ip_block(block_id: str, viewer: Viewer = Depends(read_ips)):
    return blocks.ip_block(block_id)


@router.put("/api/v1/admin/ip_blocks/{block_id}")
async def ip_block_update(block_id: str, request: Request, viewer: Viewer = Depends(write_ips)):
    return blocks.update_ip_block(viewer, block_id, await request_params(request))


@router.delete("/api/v1/admin/ip_blocks/{block_id}")
def ip_block_delete(block_id: str, viewer: Viewer = Depends(write_ips)):
    blocks.delete_ip_block(viewer, block_id)
    return {}
