"""The staff dashboard's numbers: Admin::Metrics measures, dimensions and retention
(VIEW_DASHBOARD)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.admin import metrics
from stratus.auth.deps import Viewer, require_permission
from stratus.http.forms import request_params
from stratus.model.roles import Permission

router = APIRouter()
dashboard = require_permission(Permission.VIEW_DASHBOARD, "admin:read")


@router.post("/api/v1/admin/measures")
async def admin_measures(request: Request, viewer: Viewer = Depends(dashboard)):
    return metrics.measures(await request_params(request))


@router.post("/api/v1/admin/dimensions")
async def admin_dimensions(request: Request, viewer: Viewer = Depends(dashboard)):
    return metrics.dimensions(await request_params(request))


@router.post("/api/v1/admin/retention")
async def admin_retention(request: Request, viewer: Viewer = Depends(dashboard)):
    return metrics.retention(await request_params(request))
