"""Staff endpoints for reports (Mastodon's Api::V1::Admin::ReportsController): the listing,
one report, its category and rules, assignment, resolving and reopening. Manage Reports."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.graph import reports
from stratus.auth.deps import Viewer, require_permission
from stratus.core.paging import page_params
from stratus.http.forms import request_params
from stratus.http.pagination import set_link
from stratus.model.roles import Permission

router = APIRouter()
read_reports = require_permission(Permission.MANAGE_REPORTS, "admin:read:reports")
write_reports = require_permission(Permission.MANAGE_REPORTS, "admin:write:reports")


@router.get("/api/v1/admin/reports")
async def admin_reports(request: Request, response: Response,
                        viewer: Viewer = Depends(read_reports)):
    params = await request_params(request)
    found, link_ids = reports.list_reports(viewer, params,
                                           page_params(params, default=100, maximum=200))
    set_link(response, request, link_ids)
    return found


@router.get("/api/v1/admin/reports/{report_id}")
def admin_report(report_id: str, viewer: Viewer = Depends(read_reports)):
    return reports.show(viewer, report_id)


@router.put("/api/v1/admin/reports/{report_id}")
async def admin_report_update(report_id: str, request: Request,
                              viewer: Viewer = Depends(write_reports)):
    return reports.update(viewer, report_id, await request_params(request))


@router.post("/api/v1/admin/reports/{report_id}/assign_to_self")
def admin_report_assign(report_id: str, viewer: Viewer = Depends(write_reports)):
    return reports.assign_to_self(viewer, report_id)


@router.post("/api/v1/admin/reports/{report_id}/unassign")
def admin_report_unassign(report_id: str, viewer: Viewer = Depends(write_reports)):
    return reports.unassign(viewer, report_id)


@router.post("/api/v1/admin/reports/{report_id}/resolve")
def admin_report_resolve(report_id: str, viewer: Viewer = Depends(write_reports)):
    return reports.mark_resolved(viewer, report_id)


@router.post("/api/v1/admin/reports/{report_id}/reopen")
def admin_report_reopen(report_id: str, viewer: Viewer = Depends(write_reports)):
    return reports.reopen(viewer, report_id)
