"""The server rules, one at a time (beyond Mastodon's API): list, create, show, update,
delete; Manage Rules, each change in the audit log."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.admin import rules
from stratus.auth.deps import Viewer, require_permission
from stratus.http.forms import request_params
from stratus.model.roles import Permission

router = APIRouter()
read = require_permission(Permission.MANAGE_RULES, "admin:read")
write = require_permission(Permission.MANAGE_RULES, "admin:write")


@router.get("/api/v1/admin/rules")
def admin_rules(viewer: Viewer = Depends(read)):
    return rules.listing()


@router.post("/api/v1/admin/rules")
async def admin_rule_create(request: Request, viewer: Viewer = Depends(write)):
    return rules.create(viewer, await request_params(request))


@router.get("/api/v1/admin/rules/{rule_id}")
def admin_rule(rule_id: str, viewer: Viewer = Depends(read)):
    return rules.show(rule_id)


@router.put("/api/v1/admin/rules/{rule_id}")
async def admin_rule_update(rule_id: str, request: Request, viewer: Viewer = Depends(write)):
    return rules.update(viewer, rule_id, await request_params(request))


@router.delete("/api/v1/admin/rules/{rule_id}")
def admin_rule_delete(rule_id: str, viewer: Viewer = Depends(write)):
    rules.destroy(viewer, rule_id)
    return {}
