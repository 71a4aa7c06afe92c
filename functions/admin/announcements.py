"""Staff announcements (beyond Mastodon, which has them only in its web UI): list, create,
show, update (publish, unpublish, reschedule) and delete; MANAGE_ANNOUNCEMENTS, each write in the
audit log. The entity is docs/api-coverage.md's "Admin announcement"."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.announcements import announcements
from stratus.auth.deps import Viewer, require_permission
from stratus.http.forms import request_params
from stratus.model.roles import Permission

router = APIRouter()
read = require_permission(Permission.MANAGE_ANNOUNCEMENTS, "admin:read")
write = require_permission(Permission.MANAGE_ANNOUNCEMENTS, "admin:write")


@router.get("/api/v1/admin/announcements")
def admin_announcements(viewer: Viewer = Depends(read)):
    return announcements.admin_list()


@router.post("/api/v1/admin/announcements")
async def admin_announcement_create(request: Request, viewer: Viewer = Depends(write)):
    return announcements.create(viewer, await request_params(request))


@router.get("/api/v1/admin/announcements/{announcement_id}")
def admin_announcement(announcement_id: str, viewer: Viewer = Depends(read)):
    return announcements.admin_get(announcement_id)


@router.put("/api/v1/admin/announcements/{announcement_id}")
async def admin_announcement_update(announcement_id: str, request: Request,
                                    viewer: Viewer = Depends(write)):
    return announcements.update(viewer, announcement_id, await request_params(request))


@router.delete("/api/v1/admin/announcements/{announcement_id}")
def admin_announcement_delete(announcement_id: str, viewer: Viewer = Depends(write)):
    announcements.destroy(viewer, announcement_id)
    return {}
