"""Mastodon's `deprecate_api`: the routes it marks deprecated answer a `Deprecation` header
(RFC 9745: `@` and the Unix time of the date it was deprecated), errors included.

A route says so in its decorator, `@router.get(path, **deprecated("2022-11-14"))`; `create_app`
adds the header from the route that answered (http/app.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

KEY = "x-mastodon-deprecated"


def deprecated(date: str) -> dict[str, Any]:
    """The decorator arguments of a route Mastodon deprecated on `date` (yyyy-mm-dd)."""
    return {"deprecated": True, "openapi_extra": {KEY: date}}


def deprecation_header(route: Any) -> str | None:
    """The `Deprecation` value of the route that answered, or None."""
    date = (getattr(route, "openapi_extra", None) or {}).get(KEY)
    if not date:
        return None
    moment = datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=UTC)
    return f"@{int(moment.timestamp())}"
