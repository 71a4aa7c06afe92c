"""Markers: the last read position in the home timeline and in notifications, saved by one
client and read by another. Each save of a new position increments `version`; a save that
races another one is refused with 409, as Mastodon's optimistic lock does."""

from __future__ import annotations

from typing import Any

from stratus.convert import notifications as convert
from stratus.core import clock, ids
from stratus.core.errors import Conflict, Unprocessable
from stratus.model.viewer import Viewer
from stratus.repo import notifications as repo

TIMELINES = ("home", "notifications")


def get(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    asked = params.get("timeline")
    asked = asked if isinstance(asked, list) else [asked] if asked else []
    wanted = [t for t in TIMELINES if t in asked]
    found = repo.get_markers(viewer.account_id, wanted) if wanted else {}
    return {t: convert.marker(found[t]) for t in wanted if t in found}


def save(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    """POST /api/v1/markers: `home[last_read_id]`, `notifications[last_read_id]`."""
    asked = {t: params[t] for t in TIMELINES if isinstance(params.get(t), dict)}
    if not asked:
        return {}
    for timeline, values in asked.items():
        if not ids.is_id(str(values.get("last_read_id") or "")):
            raise Unprocessable("Validation failed: Last read can't be blank")
    current = repo.get_markers(viewer.account_id, list(asked))
    changes = []
    result: dict[str, Any] = {}
    for timeline, values in asked.items():
        last_read_id = str(values["last_read_id"])
        existing = current.get(timeline)
        if existing is not None and existing["last_read_id"] == last_read_id:
            result[timeline] = existing  # unchanged: the version stays (Rails saves nothing)
            continue
        changes.append((timeline, last_read_id,
                        int(existing["version"]) if existing is not None else None))
    if changes:
        saved = repo.save_markers(viewer.account_id, changes, clock.iso(clock.now()))
        if saved is None:
            raise Conflict()
        result.update({item["timeline"]: item for item in saved})
    return {t: convert.marker(result[t]) for t in TIMELINES if t in result}
