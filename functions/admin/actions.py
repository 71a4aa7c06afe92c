"""Staff actions on accounts: moderation actions and their undoing, purge
requests, and the moderation log. Permissions as Mastodon's policies: accounts need Manage
Users (each action then checks the staff-on-staff rules), a purge Delete User Data, the log
View Audit Log."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.admin import action_logs, moderation
from stratus.auth.deps import Viewer, require_permission
from stratus.core.paging import page_params
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.model.roles import Permission

router = APIRouter()
write_accounts = require_permission(Permission.MANAGE_USERS, "admin:write:accounts")
purge_accounts = require_permission(Permission.DELETE_USER_DATA, "admin:write:accounts")
read_log = require_permission(Permission.VIEW_AUDIT_LOG, "admin:read")


@router.post("/api/v1/admin/accounts/{account_id}/action")
async def admin_account_action(account_id: str, request: Request,
                               viewer: Viewer = Depends(write_accounts)):
    moderation.perform(viewer, account_id, await request_params(request))
    return {}


@router.post("/api/v1/admin/accounts/{account_id}/enable")
def admin_account_enable(account_id: str, viewer: Viewer = Depends(write_accounts)):
    return moderation.undo(viewer, account_id, "enable")


@router.post("/api/v1/admin/accounts/{account_id}/unsilence")
def admin_account_unsilence(account_id: str, viewer: Viewer = Depends(write_accounts)):
    return moderation.undo(viewer, account_id, "unsilence")


@router.post("/api/v1/admin/accounts/{account_id}/unsuspend")
def admin_account_unsuspend(account_id: str, viewer: Viewer = Depends(write_accounts)):
    return moderation.undo(viewer, account_id, "unsuspend")


@router.post("/api/v1/admin/accounts/{account_id}/unsensitive")
def admin_account_unsensitive(account_id: str, viewer: Viewer = Depends(write_accounts)):
    return moderation.undo(viewer, account_id, "unsensitive")


@router.delete("/api/v1/admin/accounts/{account_id}")
def admin_account_delete(account_id: str, viewer: Viewer = Depends(purge_accounts)):
    return moderation.request_purge(viewer, account_id)


@router.get("/api/v1/admin/action_logs")
async def admin_action_logs(request: Request, response: Response,
                            viewer: Viewer = Depends(read_log)):
    params = await request_params(request)
    entries, link_ids = action_logs.page(params, page_params(params, default=40, maximum=200))
    set_link(response, request, link_ids)
    return entries
