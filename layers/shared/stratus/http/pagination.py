"""Mastodon pagination: `max_id`/`since_id`/`min_id`/`limit` in, `Link` header out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from ..config import settings
from ..ids import is_id
from ..limits import DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT

CURSORS = ("max_id", "since_id", "min_id")


@dataclass(frozen=True)
class Page:
    max_id: str | None = None
    since_id: str | None = None
    min_id: str | None = None
    limit: int = DEFAULT_PAGE_LIMIT
    offset: int = 0

    @property
    def ascending(self) -> bool:
        """`min_id` asks for the page just newer than it: read upwards, then reverse."""
        return self.min_id is not None

    def id_range(self) -> tuple[int | None, int | None]:
        """Inclusive (lowest, highest) ids the page may contain; None = unbounded."""
        low = int(self.min_id or self.since_id) + 1 if (self.min_id or self.since_id) else None
        high = int(self.max_id) - 1 if self.max_id else None
        return low, high


def page_params(params: dict[str, Any], *, default: int = DEFAULT_PAGE_LIMIT,
                maximum: int = MAX_PAGE_LIMIT) -> Page:
    def cursor(name: str) -> str | None:
        value = params.get(name)
        return str(value) if is_id(str(value) if value is not None else None) else None

    try:
        limit = int(params.get("limit", default))
    except (TypeError, ValueError):
        limit = default
    limit = min(max(limit, 1), maximum)
    try:
        offset = max(int(params.get("offset", 0)), 0)
    except (TypeError, ValueError):
        offset = 0
    return Page(cursor("max_id"), cursor("since_id"), cursor("min_id"), limit, offset)


def link_header(path: str, query: list[tuple[str, str]], *, next_max_id: str | None,
                prev_min_id: str | None) -> str | None:
    """Absolute `next`/`prev` links that keep every non-cursor query parameter."""
    kept = [(k, v) for k, v in query if k not in CURSORS]
    base = settings().base_url + path
    links = []
    if next_max_id is not None:
        links.append(f'<{base}?{urlencode(kept + [("max_id", next_max_id)])}>; rel="next"')
    if prev_min_id is not None:
        links.append(f'<{base}?{urlencode(kept + [("min_id", prev_min_id)])}>; rel="prev"')
    return ", ".join(links) or None


def set_link(response: Any, request: Any, ids: list[str]) -> None:
    """Set `Link` on a FastAPI response for a page whose items have `ids` (newest first)."""
    if not ids:
        return
    header = link_header(request.url.path, list(request.query_params.multi_items()),
                         next_max_id=ids[-1], prev_min_id=ids[0])
    if header:
        response.headers["Link"] = header
