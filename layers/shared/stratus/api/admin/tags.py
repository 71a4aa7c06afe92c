"""Staff's hashtags (Mastodon's Api::V1::Admin::TagsController, Manage Taxonomies): every tag
ever used, newest id first (100, `Link`), one tag by id, and changing what staff decide about
it — its display name (another spelling of the same name), whether it may be used in posts,
listed in search and trend. A change marks the tag reviewed, as Mastodon's does (it writes no
audit log entry either). The Admin::Tag entity is rendered here, for the trends review too."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from stratus.convert import tags as convert_tags
from stratus.core import clock, ids
from stratus.core.errors import NotFound, ValidationFailed
from stratus.core.paging import Page
from stratus.core.params import truthy
from stratus.model.viewer import Viewer
from stratus.read import tag_policy
from stratus.read import trends as trends_read
from stratus.read.trends import TAGS
from stratus.repo import tag_admin, transaction
from stratus.repo import tags as tags_repo
from stratus.repo import trends as trends_repo
from stratus.text import formatter

LIMIT = 100
NOT_IN_A_HASHTAG = re.compile(r"[^\w\u00b7\u200c]")  # Tag's HASHTAG_INVALID_CHARS_RE


def admin_tag(name: str, marker: dict[str, Any] | None, trend: dict[str, Any] | None,
              stats: dict[str, Any] | None, now: datetime, *,
              following: bool | None = None, featuring: bool | None = None) -> dict[str, Any]:
    """REST::Admin::TagSerializer: the Tag (its display name as `name`) with `trendable`
    (staff's decision, else the instance default), `usable` and `listable` (true unless staff
    said no), and `requires_review` (no staff decision yet: Reviewable#requires_review?)."""
    marker = marker or {}
    display = marker.get("display_name") or name
    reviewed = marker.get("reviewed_at") or (trend or {}).get("reviewed_at")
    return {**convert_tags.hashtag(name, display, stats, following, featuring, now=now),
            "trendable": trends_read.allowed(trend),
            "usable": marker.get("usable") is not False,
            "listable": marker.get("listable") is not False,
            "requires_review": not reviewed}


def _render(viewer: Viewer, names: list[str]) -> list[dict[str, Any]]:
    """Admin::Tags in the order of `names`: their markers, trend records and counters, and the
    viewer's follows and features of them, in two batched reads at once."""
    if not names:
        return []
    from stratus.core import parallel

    markers, trends, (stats, edges, featured) = parallel.gather(
        lambda: tag_admin.markers(names),
        lambda: trends_repo.records(TAGS, [convert_tags.tag_id(n) for n in names]),
        lambda: tags_repo.load_for_viewer(names, viewer.account_id))
    now = clock.now()
    return [admin_tag(n, markers.get(n), trends.get(convert_tags.tag_id(n)), stats.get(n), now,
                      following=n in edges, featuring=n in featured) for n in names]


def listing(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/admin/tags: a page of tags by id, newest first; (tags, their ids)."""
    names = tag_admin.page(*page.id_range(), descending=not page.ascending, limit=page.limit)
    if page.ascending:
        names.reverse()
    rendered = _render(viewer, names)
    return rendered, [t["id"] for t in rendered]


def _name(tag_id: str) -> str:
    name = tag_admin.name_of(tag_id) if ids.is_id(tag_id) else None
    if name is None:
        raise NotFound()
    return name


def show(viewer: Viewer, tag_id: str) -> dict[str, Any]:
    return _render(viewer, [_name(tag_id)])[0]


def _boolean(raw: Any) -> bool | None:
    """A Rails boolean column's cast: blank is NULL (the default, true), else true or false."""
    return truthy(raw) if not isinstance(raw, (dict, list)) else None


def update(viewer: Viewer, tag_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """PUT /api/v1/admin/tags/:id: `display_name`, `usable`, `listable`, `trendable` (each
    only when given); the tag is reviewed now."""
    name = _name(tag_id)
    now = clock.iso(clock.now())
    changes: dict[str, Any] = {"reviewed_at": now}
    if "display_name" in params:
        display = params["display_name"] if isinstance(params["display_name"], str) else ""
        display = NOT_IN_A_HASHTAG.sub("", display)
        if display and formatter.normalize_tag(display) != name:
            raise ValidationFailed({"display_name": [("ERR_DOES_NOT_MATCH_PREVIOUS_NAME",
                                                      "does not match the previous name")]})
        changes["display_name"] = display or None
    for attribute in ("usable", "listable"):
        if attribute in params:
            changes[attribute] = _boolean(params[attribute]) is not False
    ops = tag_admin.change_ops(name, changes)
    trendable = None
    if "trendable" in params:
        # blank is Rails' NULL: the instance's default (as of now)
        trendable = _boolean(params["trendable"])
        trendable = trends_read.allowed(None) if trendable is None else trendable
        ops.append(trends_repo.review_op(TAGS, tag_id, trendable, now, {"name": name}))
    transaction.write(ops)
    tag_policy.forget()
    if trendable is not None:
        trends_repo.set_allowed(TAGS, tag_id, trendable)
    return show(viewer, tag_id)
