"""Admin function: staff endpoints. Each route needs an admin scope and a role permission."""

from __future__ import annotations

import access_blocks
import actions
import announcements
import dashboard
import hashtags
import roles
import server_rules
from domains import router as domains_router
from fastapi import APIRouter, Depends, Request, Response
from reports import router as reports_router
from stratus.api.admin import admin
from stratus.auth.deps import Viewer, require_permission
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.model.roles import Permission
from trends import router as trends_router

router = APIRouter()
read_accounts = require_permission(Permission.MANAGE_USERS, "admin:read:accounts")
write_accounts = require_permission(Permission.MANAGE_USERS, "admin:write:accounts")


def _listing(request: Request, response: Response, filters: dict, params: dict):
    page = page_params(params, default=100, maximum=200)
    accounts, link_ids = admin.list_accounts(filters, page)
    set_link(response, request, link_ids)
    return accounts


@router.get("/api/v1/admin/accounts")
async def admin_accounts_v1(request: Request, response: Response,
                            viewer: Viewer = Depends(read_accounts)):
    params = await request_params(request)
    return _listing(request, response, admin.v1_filters(params), params)


@router.get("/api/v2/admin/accounts")
async def admin_accounts_v2(request: Request, response: Response,
                            viewer: Viewer = Depends(read_accounts)):
    params = await request_params(request)
    return _listing(request, response, admin.v2_filters(params), params)


@router.get("/api/v1/admin/accounts/{account_id}")
def admin_account(account_id: str, viewer: Viewer = Depends(read_accounts)):
    return admin.get_account(account_id)


@router.post("/api/v1/admin/accounts/{account_id}/approve")
def admin_account_approve(account_id: str, viewer: Viewer = Depends(write_accounts)):
    return admin.approve(viewer, account_id)


@router.post("/api/v1/admin/accounts/{account_id}/reject")
def admin_account_reject(account_id: str, viewer: Viewer = Depends(write_accounts)):
    admin.reject(viewer, account_id)
    return {}


# Each area's routes live in a module next to this file (Lambda has this directory on sys.path;
# the local stack imports siblings the same way, local/stack.py).
app = create_app([router, actions.router, reports_router, trends_router, domains_router,
                  announcements.router, dashboard.router, roles.router, access_blocks.router,
                  hashtags.router, server_rules.router],
                 name="admin")
handler = http_handler(app)
