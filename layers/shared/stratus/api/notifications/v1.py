"""GET /api/v1/notifications and one notification: listing, showing, dismissing one and
clearing them all (the newest at once, any beyond that by the effects worker)."""

from __future__ import annotations

from typing import Any

from stratus.api.notifications import listing
from stratus.core import ids
from stratus.core.errors import NotFound
from stratus.core.paging import Budget, Page, fill_page
from stratus.model.viewer import Viewer
from stratus.read import notifications as notes
from stratus.repo import notifications as repo


def list_notifications(viewer: Viewer, params: dict[str, Any], page: Page
                       ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/notifications: (Notification entities, the ids the Link header uses)."""
    wanted = listing.browse(params)
    if wanted.nothing:
        return [], []
    budget = Budget()
    found = repo.entries(viewer.account_id, *page.id_range(), not page.ascending, budget=budget,
                         step=page.step, filter=wanted.listing_filter())
    shown = notes.Shown(viewer.account_id)
    filled = fill_page(found, lambda batch: notes.keep_visible(viewer.account_id, batch, shown),
                       page, budget=budget, id_of=lambda i: i["id"],
                       result_id=lambda p: p[0]["id"])
    return notes.render(viewer.account_id, filled.items, shown), filled.link_ids


def show(viewer: Viewer, notification_id: str) -> dict[str, Any]:
    item = listing.own(viewer, notification_id)
    rendered = notes.render(viewer.account_id, notes.keep_visible(viewer.account_id, [item]))
    if not rendered:
        raise NotFound()
    return rendered[0]


def dismiss(viewer: Viewer, notification_id: str) -> dict[str, Any]:
    repo.remove([listing.own(viewer, notification_id)])
    return {}


MAX_DISMISSED = 100  # ids one DELETE /api/v1/notifications/destroy_multiple takes


def dismiss_many(viewer: Viewer, raw: Any) -> dict[str, Any]:
    """Mastodon's destroy_multiple: the viewer's notifications among `ids[]` (others, unknown
    and malformed ids change nothing), at most `MAX_DISMISSED` of them."""
    from stratus.core.errors import Unprocessable

    wanted = raw if isinstance(raw, list) else [raw] if raw is not None else []
    wanted = list(dict.fromkeys(str(i) for i in wanted if ids.is_id(str(i))))
    if len(wanted) > MAX_DISMISSED:
        raise Unprocessable(f"Validation failed: at most {MAX_DISMISSED} ids")
    found = [item for item in (repo.get(viewer.account_id, i) for i in wanted) if item]
    if found:
        repo.remove(found)
    return {}


def clear(viewer: Viewer) -> dict[str, Any]:
    """Remove every notification: the newest at once, any beyond that by the effects worker."""
    newest = repo.newest_first(viewer.account_id, listing.INLINE_REMOVALS + 1)
    repo.remove(newest[:listing.INLINE_REMOVALS])
    if len(newest) > listing.INLINE_REMOVALS:
        listing.sweep(viewer, up_to_id=newest[listing.INLINE_REMOVALS]["id"])
    return {}
