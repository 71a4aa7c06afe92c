"""`GET /api/v1/statuses/:id/context`, and the refresh of a remote thread's replies it starts
(Mastodon 4.5's ContextsController with Status::FetchRepliesConcern and AsyncRefresh): when a
signed-in user reads the thread of a remote public or unlisted status that is at least 5
minutes old and whose replies were not fetched in the last 15, the replies we lack are fetched
from their servers in the background (federation/reply_fetch.py). While that runs, the answer
carries `Mastodon-Async-Refresh: id="…", retry=3, result_count=N`, and
`GET /api/v1_alpha/async_refreshes/:id` tells how far it got; the client reads the context
again when it is finished."""

from __future__ import annotations

import base64
import binascii
from datetime import timedelta
from typing import Any

from stratus.core import clock, ids, parallel
from stratus.core.errors import NotFound
from stratus.read import statuses as statuses_read
from stratus.repo import async_refreshes

INITIAL_WAIT = timedelta(minutes=5)  # FETCH_REPLIES_INITIAL_WAIT_MINUTES
COOLDOWN = timedelta(minutes=15)  # FETCH_REPLIES_COOLDOWN_MINUTES
RETRY_SECONDS = 3  # AsyncRefreshesConcern's retry
DISTRIBUTABLE = ("public", "unlisted")


def _name(status_id: str) -> str:
    return f"context:{status_id}:refresh"  # Mastodon's refresh key


def refresh_id(name: str) -> str:
    """The id clients are given: the name, base64url (Mastodon signs its Redis key; here the
    async refresh endpoint checks that the reader may see the status instead)."""
    return base64.urlsafe_b64encode(name.encode()).decode().rstrip("=")


def _header(refresh: dict[str, Any] | None) -> str | None:
    if refresh is None or refresh.get("status") != async_refreshes.RUNNING:
        return None
    return (f'id="{refresh_id(refresh["name"])}", retry={RETRY_SECONDS}, '
            f'result_count={int(refresh.get("result_count", 0))}')


def _should_fetch(item: dict[str, Any]) -> bool:
    """Status#should_fetch_replies?, but for the cool-down (the refresh's own condition)."""
    if item.get("local", True) is not False or item.get("visibility") not in DISTRIBUTABLE:
        return False
    created = item.get("created_at")
    return bool(created) and clock.parse_iso(created) <= clock.now() - INITIAL_WAIT


def context(viewer_id: str | None, status_id: str
            ) -> tuple[dict[str, list[dict[str, Any]]], str | None]:
    """(the context, the `Mastodon-Async-Refresh` header or None)."""
    if viewer_id is None or not ids.is_id(str(status_id)):
        return statuses_read.context(viewer_id, status_id), None
    known = parallel.start(lambda: async_refreshes.get(_name(str(status_id))))
    found, item = statuses_read.thread(viewer_id, status_id)
    refresh = known.result()
    if item["id"] != str(status_id):  # a boost: its original's thread, nothing to refresh
        return found, None
    if (refresh is None or refresh.get("status") != async_refreshes.RUNNING) and \
            _should_fetch(item):
        refresh = async_refreshes.start(_name(item["id"]), subject={"replies_of": item["id"]},
                                        cooldown=COOLDOWN) or refresh
    return found, _header(refresh)


def async_refresh(viewer_id: str, refresh: str) -> dict[str, Any]:
    """`GET /api/v1_alpha/async_refreshes/:id`: how far a refresh the reader may know of got
    (404 for an unknown or expired one, or one about a status the reader may not see)."""
    try:
        name = base64.urlsafe_b64decode(refresh + "=" * (-len(refresh) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise NotFound() from None
    kind, _, rest = name.partition(":")
    status_id, _, suffix = rest.partition(":")
    if kind != "context" or suffix != "refresh" or not ids.is_id(status_id):
        raise NotFound()
    statuses_read.visible_item(status_id, viewer_id)
    found = async_refreshes.get(name)
    if found is None:
        raise NotFound()
    return {"async_refresh": {"id": refresh_id(name), "status": found["status"],
                              "result_count": int(found.get("result_count", 0))}}
