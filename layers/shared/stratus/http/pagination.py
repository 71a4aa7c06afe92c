"""Mastodon pagination's `Link` header (the page itself is `stratus.core.paging`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from stratus.core.config import settings
from stratus.core.paging import CURSORS


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


def set_offset_link(response: Any, request: Any, *, offset: int, limit: int, more: bool) -> None:
    """`Link` for offset-paginated lists (trends, search, directory), as Mastodon's
    controllers build it: `next` when the page was full, `prev` when the offset is past one
    page (Api::V1::Trends::*Controller#prev_path)."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "offset"]
    base = settings().base_url + request.url.path
    links = []
    if more:
        links.append(f'<{base}?{urlencode(kept + [("offset", str(offset + limit))])}>; rel="next"')
    if offset > limit:
        links.append(f'<{base}?{urlencode(kept + [("offset", str(offset - limit))])}>; rel="prev"')
    if links:
        response.headers["Link"] = ", ".join(links)
