"""Admin routes of the roles area: custom roles (beyond Mastodon's API) and role assignment."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.admin import roles
from stratus.auth.deps import Viewer, require_permission
from stratus.http.forms import request_params
from stratus.model.roles import Permission

router = APIRouter()
read_roles = require_permission(Permission.MANAGE_ROLES, "admin:read")
write_roles = require_permission(Permission.MANAGE_ROLES, "admin:write")
assign_roles = require_permission(Permission.MANAGE_ROLES, "admin:write:accounts")


@router.get("/api/v1/admin/roles")
def admin_roles(viewer: Viewer = Depends(read_roles)):
    return roles.list_roles()


@router.post("/api/v1/admin/roles")
async def admin_roles_create(request: Request, viewer: Viewer = Depends(write_roles)):
    return roles.create(viewer, await request_params(request))


@router.get("/api/v1/admin/roles/{role_id}")
def admin_role(role_id: str, viewer: Viewer = Depends(read_roles)):
    return roles.get_role(role_id)


@router.put("/api/v1/admin/roles/{role_id}")
async def admin_role_update(role_id: str, request: Request, viewer: Viewer = Depends(write_roles)):
    return roles.update(viewer, role_id, await request_params(request))


@router.delete("/api/v1/admin/roles/{role_id}")
def admin_role_delete(role_id: str, viewer: Viewer = Depends(write_roles)):
    roles.delete(viewer, role_id)
    return {}


@router.post("/api/v1/admin/accounts/{account_id}/role")
async def admin_account_role(account_id: str, request: Request,
                             viewer: Viewer = Depends(assign_roles)):
    return roles.assign(viewer, account_id, await request_params(request))


@router.delete("/api/v1/admin/accounts/{account_id}/role")
def admin_account_role_remove(account_id: str, viewer: Viewer = Depends(assign_roles)):
    return roles.unassign(viewer, account_id)
