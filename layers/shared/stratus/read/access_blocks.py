"""The IP blocks as every request reads them: the strictest unexpired block that covers the
caller's address (`ip_severity`), and whether it refuses everything (`denies_access`, the
per-request check of http/app.py). Managing the blocks, and the e-mail blocks sign-up
applies, is the admin API's (api/admin/access_blocks.py).

IP blocks are few: the whole set is one Query, kept per warm Lambda for `IP_BLOCKS_TTL`
seconds (a change made here forgets it at once: `forget`)."""

from __future__ import annotations

import ipaddress
from typing import Any

from stratus.core import warm
from stratus.repo import access_blocks as repo

SEVERITIES = {"sign_up_requires_approval": 5000, "sign_up_block": 5500, "no_access": 9999}
IP_BLOCKS_TTL = 60.0


def _load_ip_blocks() -> list[tuple[Any, int, int | None]]:
    return [(ipaddress.ip_network(b["ip"]), SEVERITIES[b["severity"]],
             int(b["ttl"]) if b.get("ttl") else None) for b in repo.all_ip_blocks()]


_ip_blocks = warm.Warm(_load_ip_blocks, IP_BLOCKS_TTL)


def forget() -> None:
    """The blocks changed: the next check reads them again."""
    _ip_blocks.forget()


def ip_severity(address: str) -> str | None:
    """The strictest unexpired IP block that covers `address`, or None."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    found = [level for network, level, ends in _ip_blocks.get()
             if ip.version == network.version and ip in network and not repo.expired(ends)]
    if not found:
        return None
    strictest = max(found)
    return next(name for name, level in SEVERITIES.items() if level == strictest)


def denies_access(address: str) -> bool:
    """Whether every request from this address is refused (a `no_access` block)."""
    return ip_severity(address) == "no_access"
