"""Graph function: follows and follow requests, blocks, mutes, user domain blocks, endorsements,
relationships, familiar followers, the followers / following lists, and filing reports."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.graph import blocks, endorsements, follows, reports
from stratus.auth.deps import Viewer, optional, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.core.params import flag
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.read import relationships

router = APIRouter()
ACCOUNTS_PAGE = {"default": 40, "maximum": 80}


async def _params_and_ids(request: Request) -> tuple[dict, list[str]]:
    """Request parameters and `id[]` (query string, or a JSON body as Mastodon.py sends even
    with GET: Rails reads both)."""
    params = await request_params(request)
    ids_ = params.get("id", [])
    return params, [str(i) for i in (ids_ if isinstance(ids_, list) else [ids_])]


def _page_of(request: Request, response: Response, items_and_ids):
    """Return a page and set its Link header from the edge ids it paginates by."""
    items, ids_ = items_and_ids
    set_link(response, request, ids_)
    return items


def _accounts_page(request: Request):
    return page_params(dict(request.query_params), **ACCOUNTS_PAGE)


# --- relationships ------------------------------------------------------------------------------
@router.get("/api/v1/accounts/relationships")
async def accounts_relationships(request: Request,
                                 viewer: Viewer = Depends(require("read:follows"))):
    params, ids_ = await _params_and_ids(request)
    return relationships.relationships(viewer, ids_, flag(params.get("with_suspended")))


@router.get("/api/v1/accounts/familiar_followers")
async def accounts_familiar_followers(request: Request,
                                      viewer: Viewer = Depends(require("read:follows"))):
    return relationships.familiar_followers(viewer, (await _params_and_ids(request))[1])


# --- follows --------------------------------------------------------------------------------------
@router.post("/api/v1/accounts/{account_id}/follow")
async def accounts_follow(account_id: str, request: Request,
                          viewer: Viewer = Depends(require("write:follows"))):
    relationship, headers = follows.follow(viewer, account_id, await request_params(request))
    return JSONResponse(relationship, headers=headers)


@router.post("/api/v1/accounts/{account_id}/unfollow")
def accounts_unfollow(account_id: str, viewer: Viewer = Depends(require("write:follows"))):
    return follows.unfollow(viewer, account_id)


@router.post("/api/v1/accounts/{account_id}/remove_from_followers")
def accounts_remove_from_followers(account_id: str,
                                   viewer: Viewer = Depends(require("write:follows"))):
    return follows.remove_from_followers(viewer, account_id)


@router.get("/api/v1/accounts/{account_id}/followers")
def accounts_followers(account_id: str, request: Request, response: Response,
                       viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return _page_of(request, response,
                    follows.followers(viewer, account_id, _accounts_page(request)))


@router.get("/api/v1/accounts/{account_id}/following")
def accounts_following(account_id: str, request: Request, response: Response,
                       viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return _page_of(request, response,
                    follows.following(viewer, account_id, _accounts_page(request)))


@router.get("/api/v1/follow_requests")
def follow_requests(request: Request, response: Response,
                    viewer: Viewer = Depends(require("read:follows"))):
    return _page_of(request, response, follows.requests(viewer, _accounts_page(request)))


@router.post("/api/v1/follow_requests/{account_id}/authorize")
def follow_requests_authorize(account_id: str,
                              viewer: Viewer = Depends(require("write:follows"))):
    return follows.authorize(viewer, account_id)


@router.post("/api/v1/follow_requests/{account_id}/reject")
def follow_requests_reject(account_id: str, viewer: Viewer = Depends(require("write:follows"))):
    return follows.reject(viewer, account_id)


# --- blocks, mutes, domain blocks --------------------------------------------------------------
@router.post("/api/v1/accounts/{account_id}/block")
def accounts_block(account_id: str, viewer: Viewer = Depends(require("write:blocks"))):
    return blocks.block(viewer, account_id)


@router.post("/api/v1/accounts/{account_id}/unblock")
def accounts_unblock(account_id: str, viewer: Viewer = Depends(require("write:blocks"))):
    return blocks.unblock(viewer, account_id)


@router.post("/api/v1/accounts/{account_id}/mute")
async def accounts_mute(account_id: str, request: Request,
                        viewer: Viewer = Depends(require("write:mutes"))):
    return blocks.mute(viewer, account_id, await request_params(request))


@router.post("/api/v1/accounts/{account_id}/unmute")
def accounts_unmute(account_id: str, viewer: Viewer = Depends(require("write:mutes"))):
    return blocks.unmute(viewer, account_id)


@router.get("/api/v1/blocks")
def blocks_list(request: Request, response: Response,
                viewer: Viewer = Depends(require("read:blocks"))):
    return _page_of(request, response, blocks.blocks(viewer, _accounts_page(request)))


@router.get("/api/v1/mutes")
def mutes_list(request: Request, response: Response,
               viewer: Viewer = Depends(require("read:mutes"))):
    return _page_of(request, response, blocks.mutes(viewer, _accounts_page(request)))


@router.get("/api/v1/domain_blocks")
def domain_blocks_list(request: Request, response: Response,
                       viewer: Viewer = Depends(require("read:blocks"))):
    page = page_params(dict(request.query_params), default=100, maximum=200)
    return _page_of(request, response, blocks.domain_blocks(viewer, page))


@router.get("/api/v1/domain_blocks/preview")
async def domain_blocks_preview(request: Request,
                                viewer: Viewer = Depends(require("write:blocks"))):
    return blocks.domain_block_preview(viewer, (await request_params(request)).get("domain"))


@router.post("/api/v1/domain_blocks")
async def domain_blocks_create(request: Request,
                               viewer: Viewer = Depends(require("write:blocks"))):
    blocks.block_domain(viewer, (await request_params(request)).get("domain"))
    return {}


@router.delete("/api/v1/domain_blocks")
async def domain_blocks_delete(request: Request,
                               viewer: Viewer = Depends(require("write:blocks"))):
    blocks.unblock_domain(viewer, (await request_params(request)).get("domain"))
    return {}


# --- endorsements ---------------------------------------------------------------------------------
@router.post("/api/v1/accounts/{account_id}/endorse")
@router.post("/api/v1/accounts/{account_id}/pin")
def accounts_endorse(account_id: str, viewer: Viewer = Depends(require("write:accounts"))):
    return endorsements.endorse(viewer, account_id)


@router.post("/api/v1/accounts/{account_id}/unendorse")
@router.post("/api/v1/accounts/{account_id}/unpin")
def accounts_unendorse(account_id: str, viewer: Viewer = Depends(require("write:accounts"))):
    return endorsements.unendorse(viewer, account_id)


@router.get("/api/v1/endorsements")
def endorsements_list(request: Request, response: Response,
                      viewer: Viewer = Depends(require("read:accounts"))):
    return _page_of(request, response, endorsements.mine(viewer, _accounts_page(request)))


@router.get("/api/v1/accounts/{account_id}/endorsements")
def accounts_endorsements(account_id: str, request: Request, response: Response,
                          viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return _page_of(request, response,
                    endorsements.of_account(viewer, account_id, _accounts_page(request)))


# --- reports ----------------------------------------------------------------------
# Mastodon.py posts to `/api/v1/reports/`; Rails routes both.
@router.post("/api/v1/reports")
@router.post("/api/v1/reports/", include_in_schema=False)
async def reports_create(request: Request, viewer: Viewer = Depends(require("write:reports"))):
    report, headers = reports.file(viewer, await request_params(request))
    return JSONResponse(report, headers=headers)


app = create_app([router], name="graph")
handler = http_handler(app)
