"""A filter as stored: its record with its keyword and status records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stratus.core import clock


@dataclass
class Stored:
    """One filter and its rules as stored."""

    item: dict[str, Any]
    keywords: list[dict[str, Any]]
    statuses: list[dict[str, Any]]

    @property
    def id(self) -> str:
        return self.item["id"]

    def expired(self, now_iso: str | None = None) -> bool:
        expires = self.item.get("expires_at")
        return bool(expires) and clock.parse_iso(expires) <= (
            clock.parse_iso(now_iso) if now_iso else clock.now())
