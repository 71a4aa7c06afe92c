"""Async refreshes: work a read starts in the background and a client may poll (Mastodon's
AsyncRefresh, a Redis hash there): `GET /api/v1/statuses/:id/context` fetching a remote
thread's replies (`Mastodon-Async-Refresh`, `GET /api/v1_alpha/async_refreshes/:id`).

One item per refresh name: `status` running or finished, `result_count`, `fetched_at` (when
it started: its insert, or a restart, is what the outbox turns into the job). A running one
lives a day, a finished one an hour, as Mastodon's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from stratus.core import clock
from stratus.repo import base, keys

RUNNING, FINISHED = "running", "finished"
NEW_TTL = 86400  # AsyncRefresh::NEW_REFRESH_EXPIRATION
FINISHED_TTL = 3600  # AsyncRefresh::FINISHED_REFRESH_EXPIRATION


def get(name: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.async_refresh(name)))


def start(name: str, *, subject: dict[str, str], cooldown: timedelta) -> dict[str, Any] | None:
    """Start the refresh unless one started less than `cooldown` ago (a conditional put: of
    two readers at once, one starts it); the refresh started, or None. `subject` says what it
    refreshes (the job reads it from the item)."""
    now = clock.now()
    item = {**keys.async_refresh(name), "type": "async_refresh", "name": name,
            "status": RUNNING, "result_count": 0, "fetched_at": clock.iso(now),
            "ttl": int(now.timestamp()) + NEW_TTL, **subject}
    started = base.put(item, condition="attribute_not_exists(PK) OR fetched_at <= :since",
                       vals={":since": clock.iso(now - cooldown)})
    return base.record(item) if started else None


def counted(name: str, found: int) -> None:
    """`found` more results (statuses the refresh stored)."""
    if found:
        base.update(keys.async_refresh(name), "ADD result_count :n", vals={":n": found},
                    condition="attribute_exists(PK)")


def finish(name: str) -> None:
    base.update(keys.async_refresh(name), "SET #s = :done, #ttl = :ttl",
                names={"#s": "status", "#ttl": "ttl"},
                vals={":done": FINISHED, ":ttl": base.now_epoch() + FINISHED_TTL},
                condition="attribute_exists(PK)")
