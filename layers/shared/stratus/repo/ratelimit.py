"""Fixed-window request counters."""

from __future__ import annotations

from stratus.repo import base, keys


def hit(family: str, discriminator: str, window_start: int, window_end: int,
        amount: int = 1) -> int:
    """Count one request (or `amount`: a cost) in the window; returns the count including it."""
    item = base.update(keys.rate_window(family, discriminator, window_start),
                       "ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl), #t = :type",
                       names={"#n": "count", "#ttl": "ttl", "#t": "type"},
                       vals={":one": amount, ":ttl": window_end + 60, ":type": "rate_window"})
    return int(item["count"])
