"""A filter as stored: its record with its keyword and status records (records as repo/
returns them: no storage keys; an attribute a record does not have is simply absent)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from stratus.core import clock


class Filter(TypedDict, total=False):
    id: str
    type: str  # "filter"
    account_id: str
    title: str
    context: list[str]
    filter_action: str
    expires_at: str | None
    created_at: str


class Keyword(TypedDict, total=False):
    id: str
    type: str  # "filter_keyword"
    account_id: str
    filter_id: str
    keyword: str
    whole_word: bool


class FilteredStatus(TypedDict, total=False):
    id: str
    type: str  # "filter_status"
    account_id: str
    filter_id: str
    status_id: str


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
