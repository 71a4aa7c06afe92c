"""Mastodon pagination's `Link` header (the page itself is `stratus.paging`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from ..config import settings
from ..paging import CURSORS


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
