"""Mastodon pagination: `max_id`/`since_id`/`min_id`/`limit` in, `Link` header out."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

from ..config import settings
from ..ids import is_id
from ..limits import DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT

CURSORS = ("max_id", "since_id", "min_id")
E = TypeVar("E")
T = TypeVar("T")


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


def fill_page(entries: Iterable[E], hydrate: Callable[[list[E]], list[T]], page: Page, *,
              chunk: int = 25) -> list[T]:
    """A page from index entries that need reading and filtering: `hydrate(batch)` reads a
    batch of entries at once and returns the results it keeps. DynamoDB applies Limit before
    filters, so filtered lists walk the index in batches until the page is full. Results come
    newest first (a `min_id` page is read upwards, then reversed)."""
    found: list[T] = []
    batch: list[E] = []
    size = max(page.limit, chunk)
    for entry in entries:
        batch.append(entry)
        if len(batch) >= size:
            found.extend(hydrate(batch))
            batch = []
            if len(found) >= page.limit:
                break
    else:
        if batch:
            found.extend(hydrate(batch))
    found = found[:page.limit]
    if page.ascending:
        found.reverse()
    return found


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
