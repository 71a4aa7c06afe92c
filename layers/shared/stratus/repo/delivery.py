"""Delivery state in the Main table: each remote host's circuit breaker (federation/delivery.py).

One item per host (`keys.delivery_host`): `failures` (consecutive failed attempts) and
`open_until` (epoch seconds). Each failure is one atomic ADD; the attempt that reaches the
threshold opens the breaker with a conditional write, so two workers failing at once open it
once."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys


def host_state(host: str) -> dict[str, Any] | None:
    """The host's breaker (`failures`, `open_until`), or None when it has none."""
    return base.record(base.get(keys.delivery_host(host)))


def failed(host: str) -> int:
    """Count one more consecutive failure; the count now."""
    item = base.update(keys.delivery_host(host), "ADD failures :one SET #t = :t",
                       names={"#t": "type"}, vals={":one": 1, ":t": "delivery_host"})
    return int(item.get("failures", 0))


def open_breaker(host: str, until: float) -> None:
    """Open the breaker until `until` and start counting again."""
    base.update(keys.delivery_host(host), "SET open_until = :u, failures = :zero",
                vals={":u": int(until), ":zero": 0})


def succeeded(host: str) -> None:
    """A success closes the breaker: the host item goes (written again on the next failure)."""
    base.delete(keys.delivery_host(host))
