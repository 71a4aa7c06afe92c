"""Custom emoji: import (operator CLI, later the admin API) and listing.

The public list (`GET /api/v1/custom_emojis`) is read by every client at start-up. It is kept
rendered in memory for `CACHE_SECONDS` per warm Lambda (one Query saved per request), and
served with validators — a strong ETag over the body and Last-Modified from the newest emoji —
so a client that has it answers a 304 with no body.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from email.utils import format_datetime
from typing import Any

from stratus.core import clock
from stratus.core.errors import Unprocessable
from stratus.core.limits import (
    CUSTOM_EMOJI_MIME_TYPES,
    CUSTOM_EMOJI_SHORTCODE_PATTERN,
    CUSTOM_EMOJI_SIZE_LIMIT,
)
from stratus.imaging.media_types import EXTENSIONS, sniff_image
from stratus.read import custom_emojis
from stratus.repo import instance as repo
from stratus.repo import media

_SHORTCODE = re.compile(CUSTOM_EMOJI_SHORTCODE_PATTERN)


def import_emoji(shortcode: str, data: bytes, *, category: str | None = None,
                 overwrite: bool = False) -> dict[str, Any]:
    if not _SHORTCODE.match(shortcode):
        raise Unprocessable("Validation failed: Shortcode must be at least 2 characters and "
                            "contain only letters, numbers and underscores")
    content_type = sniff_image(data)
    if content_type not in CUSTOM_EMOJI_MIME_TYPES:
        raise Unprocessable("Validation failed: Image must be a PNG, GIF or WebP file")
    if len(data) > CUSTOM_EMOJI_SIZE_LIMIT:
        raise Unprocessable(f"Validation failed: Image must be smaller than "
                            f"{CUSTOM_EMOJI_SIZE_LIMIT // 1024} KB")
    if not overwrite and repo.get_emoji(shortcode) is not None:
        raise Unprocessable("Validation failed: Shortcode has already been taken")
    digest = hashlib.sha256(data).hexdigest()[:16]
    key = f"custom_emojis/images/{shortcode}/{digest}.{EXTENSIONS[content_type]}"
    media.put_object(key, data, content_type)
    item = {"shortcode": shortcode, "image_key": key, "static_key": key,
            "content_type": content_type, "size": len(data), "category": category or None,
            "visible_in_picker": True, "disabled": False,
            "updated_at": clock.iso(clock.now())}
    repo.put_emoji(item)
    forget()
    return item


def list_emojis() -> list[dict[str, Any]]:
    return sorted(repo.list_emojis(), key=lambda e: e["shortcode"].lower())


# --- the public list, cached ----------------------------------------------------------------
CACHE_SECONDS = 15  # how long a warm Lambda may show a list older than an import


@dataclass(frozen=True)
class Listing:
    body: bytes  # the JSON list, as sent
    etag: str
    last_modified: str | None  # an HTTP-date, or None with no emoji


_cached: tuple[Any, float, Listing] | None = None  # (stack settings, expiry, listing)


def forget() -> None:
    """Drop this process's cached lists (an import here is seen at once)."""
    global _cached
    _cached = None
    custom_emojis.forget()


def listing() -> Listing:
    """The rendered list with its validators, from memory while fresh. The cache belongs to
    the stack settings it was made under (a test's fresh stack never sees another's list)."""
    global _cached
    from stratus.api.instance import instance
    from stratus.core.config import settings

    owner, now = settings(), time.monotonic()
    if _cached is not None and _cached[0] is owner and _cached[1] > now:
        return _cached[2]
    stored = repo.list_emojis()
    body = json.dumps(instance.custom_emojis(stored), separators=(",", ":"),
                      ensure_ascii=False).encode()
    updated = [e["updated_at"] for e in instance.listed_emojis(stored) if e.get("updated_at")]
    made = Listing(body=body, etag='"' + hashlib.sha256(body).hexdigest()[:32] + '"',
                   last_modified=format_datetime(clock.parse_iso(max(updated)), usegmt=True)
                   if updated else None)
    _cached = (owner, now + CACHE_SECONDS, made)
    return made


def not_modified(item: Listing, if_none_match: str | None, if_modified_since: str | None
                 ) -> bool:
    """RFC 9110 conditional GET: If-None-Match decides when present (weak comparison);
    otherwise If-Modified-Since at or after the list's Last-Modified."""
    if if_none_match is not None:
        tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
        return "*" in tags or item.etag in tags
    if if_modified_since and item.last_modified:
        from email.utils import parsedate_to_datetime

        try:
            since = parsedate_to_datetime(if_modified_since)
            return since >= parsedate_to_datetime(item.last_modified)
        except (TypeError, ValueError):
            return False
    return False
