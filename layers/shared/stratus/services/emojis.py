"""Custom emoji: import (operator CLI, later the admin API) and listing."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from .. import clock
from ..errors import Unprocessable
from ..limits import CUSTOM_EMOJI_MIME_TYPES, CUSTOM_EMOJI_SHORTCODE_PATTERN, CUSTOM_EMOJI_SIZE_LIMIT
from ..repo import instance as repo
from ..repo import media
from .media_types import EXTENSIONS, sniff_image

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
    return item


def list_emojis() -> list[dict[str, Any]]:
    return sorted(repo.list_emojis(), key=lambda e: e["shortcode"].lower())
