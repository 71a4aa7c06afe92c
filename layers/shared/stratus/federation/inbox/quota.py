"""Each remote host's share of the inbox worker's time (docs/federation.md, "Inbox: each
host's share"), so that one host flooding us with slow activities cannot take the time and the
concurrency the other hosts' activities need.

A share is counted in seconds of the worker's time, per host (the signing actor's, with its
port: `inbox.common.host`), in fixed windows of `WINDOW` seconds: every activity the inbox
accepts costs `COST_PER_ACTIVITY` when it is queued, and the inbox worker adds the seconds a job
took once it made an outbound request and took at least `CHARGED_FROM` (a peer whose objects
drip in pays for the time it held the worker). A host past `SHARE` seconds in a window is
answered 429 with `Retry-After` (the seconds left in its window), and nothing is queued.

Mastodon has no such limit (rack-attack throttles its API, sign-ups and sign-ins, not its
inboxes); a 429 is what its delivery worker, like GoToSocial's, retries later (Mastodon's
`response_error_unsalvageable?` excludes 429), so an activity answered 429 comes back."""

from __future__ import annotations

import time

from stratus.core.errors import TooManyRequests
from stratus.repo import ratelimit

FAMILY = "inbox_share"
WINDOW = 60  # seconds
# Seconds of the worker's time a host may take in a window: two invocations busy with it, on
# average (the worker's concurrency is not capped: the other hosts' invocations run beside).
SHARE = 120.0
# Seconds charged when an activity is queued: at most 24,000 a window from one host, so that a
# burst of quick ones (issue #22's 10,000 in 10 s from one server) still gets in.
COST_PER_ACTIVITY = 0.005
CHARGED_FROM = 0.5  # a job that waited on peers this long or more is charged what it took


def _window(now: float) -> tuple[int, int]:
    start = int(now // WINDOW) * WINDOW
    return start, start + WINDOW


def admit(host: str, now: float | None = None) -> None:
    """Charge one activity of `host` to its share; TooManyRequests (429, Retry-After) when its
    share of this window is spent."""
    now = time.time() if now is None else now
    start, end = _window(now)
    used = ratelimit.hit(FAMILY, host, start, end, round(COST_PER_ACTIVITY * 1000))
    if used > SHARE * 1000:
        raise TooManyRequests("Too many requests", headers={
            "Retry-After": str(max(1, int(end - now + 0.999)))})


def charge(host: str, seconds: float, now: float | None = None) -> None:
    """Add the seconds a job of `host` took (waiting on peers) to its share, when they count."""
    if seconds < CHARGED_FROM:
        return
    now = time.time() if now is None else now
    start, end = _window(now)
    ratelimit.hit(FAMILY, host, start, end, round(seconds * 1000))
