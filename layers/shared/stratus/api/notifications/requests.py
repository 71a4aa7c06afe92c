"""Notification requests (/api/v1/notifications/requests): a sender's notifications the policy
filtered, listed, shown, accepted (they join the lists; the sender's are never filtered again)
or dismissed (they go), one or many at once."""

from __future__ import annotations

from typing import Any

from stratus.api.notifications import listing
from stratus.convert import notifications as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.core.paging import Page
from stratus.model.viewer import Viewer
from stratus.read import notifications as notes
from stratus.read import status_views
from stratus.repo import notifications as repo


def _render_requests(viewer: Viewer, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    accounts = status_views.load_accounts([r["from_account_id"] for r in requests])
    last = notes.visible_statuses(viewer.account_id, ({"notification_type": "mention",
                                                       "status_id": r.get("last_status_id")}
                                                      for r in requests))
    statuses = notes.render_statuses(viewer.account_id, last.values())
    return [convert.request(r, account=accounts[r["from_account_id"]],
                            last_status=statuses.get(r.get("last_status_id") or ""))
            for r in requests if r["from_account_id"] in accounts]


def list_requests(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    found = repo.requests(viewer.account_id, *page.id_range(), not page.ascending,
                          limit=page.limit)
    if page.ascending:
        found.reverse()
    rendered = _render_requests(viewer, found)
    return rendered, [r["id"] for r in rendered]


def _request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    found = repo.request_by_id(viewer.account_id, request_id) if ids.is_id(request_id) else None
    if found is None:
        raise NotFound()
    return found


def show_request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    rendered = _render_requests(viewer, [_request(viewer, request_id)])
    if not rendered:
        raise NotFound()
    return rendered[0]


def accept_request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    """Accept: the sender's filtered notifications join the lists (the effects worker merges
    them; `merged` says when) and theirs are never filtered again."""
    request = _request(viewer, request_id)
    repo.accept_request(viewer.account_id, request["from_account_id"], clock.iso(clock.now()))
    return {}


def dismiss_request(viewer: Viewer, request_id: str) -> dict[str, Any]:
    """Dismiss: the request and the sender's filtered notifications go."""
    request = _request(viewer, request_id)
    repo.dismiss_request(viewer.account_id, request["from_account_id"])
    return {}


def _bulk_ids(params: dict[str, Any]) -> list[str]:
    return [i for i in dict.fromkeys(listing.values(params.get("id"))) if ids.is_id(i)]


def accept_requests(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    now = clock.iso(clock.now())
    for request_id in _bulk_ids(params):
        request = repo.request_by_id(viewer.account_id, request_id)
        if request is not None:
            repo.accept_request(viewer.account_id, request["from_account_id"], now)
    return {}


def dismiss_requests(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    for request_id in _bulk_ids(params):
        request = repo.request_by_id(viewer.account_id, request_id)
        if request is not None:
            repo.dismiss_request(viewer.account_id, request["from_account_id"])
    return {}


def requests_merged(viewer: Viewer) -> dict[str, bool]:
    """Whether every accepted request's notifications have joined the lists."""
    policy = repo.get_policy(viewer.account_id) or {}
    return {"merged": int(policy.get("pending_merges", 0)) <= 0}
