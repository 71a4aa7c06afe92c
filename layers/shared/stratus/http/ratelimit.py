"""Rate limits like Mastodon's rack-attack throttles: fixed windows aligned to the epoch,
keyed by client IP (IPv6 by /64) or by account, 429 with `X-RateLimit-*` headers."""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from stratus.core import clock
from stratus.core.errors import TooManyRequests
from stratus.repo import ratelimit as repo


@dataclass(frozen=True)
class Limit:
    family: str
    limit: int
    period: int  # seconds


SIGN_UP = Limit("api_sign_up", 5, 30 * 60)
CONFIRMATION_RESEND_IP = Limit("email_confirmations_ip", 25, 5 * 60)
CONFIRMATION_RESEND_USER = Limit("email_confirmations_user", 5, 30 * 60)
SIGN_IN = Limit("sign_in_ip", 25, 5 * 60)
FOLLOWS = Limit("follows", 400, 24 * 60 * 60)  # new follows and follow requests, per account
REPORTS = Limit("reports", 400, 24 * 60 * 60)  # reports filed, per account


def ip_key(address: str) -> str:
    """The client's address, with IPv6 reduced to its /64 (one subscriber's network)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def check(rule: Limit, discriminator: str, now: float | None = None) -> dict[str, str]:
    """Count a request; raise 429 over the limit. Returns the headers to send either way."""
    now = time.time() if now is None else now
    start = int(now // rule.period) * rule.period
    end = start + rule.period
    count = repo.hit(rule.family, discriminator, start, end)
    headers = {
        "X-RateLimit-Limit": str(rule.limit),
        "X-RateLimit-Remaining": str(max(rule.limit - count, 0)),
        "X-RateLimit-Reset": clock.iso(datetime.fromtimestamp(end, UTC)),
    }
    if count > rule.limit:
        raise TooManyRequests("Too many requests", headers=headers)
    return headers
