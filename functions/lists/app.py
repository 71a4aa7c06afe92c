"""Lists function: a user's lists, their members, and the lists an account is in."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.lists import lists
from stratus.auth.deps import Viewer, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.forms import request_params
from stratus.http.pagination import set_link

router = APIRouter()
read_lists = require("read:lists")
write_lists = require("write:lists")


@router.get("/api/v1/lists")
def lists_index(viewer: Viewer = Depends(read_lists)):
    return lists.all_of(viewer)


@router.post("/api/v1/lists")
async def lists_create(request: Request, viewer: Viewer = Depends(write_lists)):
    return lists.create(viewer, await request_params(request))


@router.get("/api/v1/lists/{list_id}")
def lists_show(list_id: str, viewer: Viewer = Depends(read_lists)):
    return lists.show(viewer, list_id)


@router.put("/api/v1/lists/{list_id}")
async def lists_update(list_id: str, request: Request, viewer: Viewer = Depends(write_lists)):
    return lists.update(viewer, list_id, await request_params(request))


@router.delete("/api/v1/lists/{list_id}")
def lists_delete(list_id: str, viewer: Viewer = Depends(write_lists)):
    return lists.delete(viewer, list_id)


@router.get("/api/v1/lists/{list_id}/accounts")
async def lists_accounts(list_id: str, request: Request, response: Response,
                         viewer: Viewer = Depends(read_lists)):
    params = await request_params(request)
    everything = str(params.get("limit")) == "0"
    accounts, link_ids = lists.accounts(viewer, list_id, page_params(params, default=40,
                                                                      maximum=80), everything)
    set_link(response, request, link_ids)
    return accounts


@router.post("/api/v1/lists/{list_id}/accounts")
async def lists_add(list_id: str, request: Request, viewer: Viewer = Depends(write_lists)):
    return lists.add(viewer, list_id, (await request_params(request)).get("account_ids"))


@router.delete("/api/v1/lists/{list_id}/accounts")
async def lists_remove(list_id: str, request: Request, viewer: Viewer = Depends(write_lists)):
    return lists.remove(viewer, list_id, (await request_params(request)).get("account_ids"))


@router.get("/api/v1/accounts/{account_id}/lists")
def account_lists(account_id: str, viewer: Viewer = Depends(read_lists)):
    return lists.containing(viewer, account_id)


app = create_app([router], name="lists")
handler = http_handler(app)
