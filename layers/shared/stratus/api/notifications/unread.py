"""Unread counts (v1: notifications, v2: groups) against the notifications marker."""

from __future__ import annotations

from itertools import islice
from typing import Any

from stratus.api.notifications import grouped as grouping
from stratus.api.notifications import listing
from stratus.core.paging import EXAMINED_PER_PAGE, Budget
from stratus.model.viewer import Viewer
from stratus.repo import notifications as repo

COUNT_LIMIT, COUNT_MAX = 100, 1000  # unread_count's `limit`


def _marker_position(viewer: Viewer) -> str | None:
    marker = repo.get_markers(viewer.account_id, ["notifications"]).get("notifications")
    return marker["last_read_id"] if marker else None


def _count_limit(params: dict[str, Any]) -> int:
    try:
        limit = int(params.get("limit", COUNT_LIMIT))
    except (TypeError, ValueError):
        limit = COUNT_LIMIT
    return min(max(abs(limit), 1), COUNT_MAX)


def unread_count(viewer: Viewer, params: dict[str, Any], *, grouped: bool = False
                 ) -> dict[str, int]:
    """How many notifications (v2: groups) are newer than the notifications marker, up to
    `limit` (default 100, at most 1000)."""
    limit = _count_limit(params)
    wanted = listing.browse(params)
    if wanted.nothing:
        return {"count": 0}
    after = _marker_position(viewer)
    budget = Budget(max(2 * limit, EXAMINED_PER_PAGE))
    if grouped and wanted.types is None and not wanted.exclude and \
            grouping.heads_serve(wanted, grouping.grouped_types(params)):
        # Every entry of the grouped listing is a group (types would need reading each one).
        return {"count": repo.count_heads_since(viewer.account_id, after, limit, budget)}
    found = repo.entries(viewer.account_id, int(after) + 1 if after else None, None, False,
                         budget=budget,
                         step=min(limit, 100), filter=wanted.listing_filter())
    if not grouped:
        return {"count": sum(1 for _ in islice(found, limit))}
    kinds = grouping.grouped_types(params)
    seen: set[str] = set()
    for item in found:
        seen.add(grouping.effective_key(item, kinds))
        if len(seen) >= limit:
            break
    return {"count": len(seen)}
