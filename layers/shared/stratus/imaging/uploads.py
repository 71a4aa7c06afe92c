"""An image upload through the pipeline, as media attachments and remote media copies both
store it: the clean original (decoded, checked, metadata stripped, re-encoded, scaled down), a
small PNG preview and its blurhash, and the size metadata Mastodon's MediaAttachment renders.
A file the pipeline refuses is a 422 (Unprocessable), worded as Mastodon's."""

from __future__ import annotations

import io
from typing import Any

from stratus.core import limits
from stratus.core.errors import Unprocessable
from stratus.imaging import images

SMALL_SIZE = (640, 640)


def size_meta(width: int, height: int) -> dict[str, Any]:
    """`meta.original` / `meta.small` of a MediaAttachment."""
    return {"width": width, "height": height, "size": f"{width}x{height}",
            "aspect": round(width / height, 4) if height else 0}


def refused(exc: images.Refused) -> Unprocessable:
    """The 422 for a file the pipeline refuses."""
    return Unprocessable(f"Validation failed: File {exc.message}")


def process(data: bytes) -> dict[str, Any]:
    """The upload through the image pipeline (decoded, checked, metadata stripped, re-encoded,
    scaled down to Mastodon's 3840×2160 pixels), a small PNG preview and its blurhash."""
    try:
        encoded = images.normalize(data, limits.MEDIA_SUPPORTED_MIME_TYPES,
                                   max_pixels=limits.IMAGE_ORIGINAL_PIXELS)
    except images.Refused as exc:
        raise refused(exc) from None
    small = encoded.still.copy()
    small.thumbnail(SMALL_SIZE)
    buffer = io.BytesIO()
    small.save(buffer, format="PNG", optimize=True)
    tiny = small.convert("RGB")
    tiny.thumbnail((32, 32))
    import blurhash

    pixels = tiny.load()
    rows = [[list(pixels[x, y]) for x in range(tiny.width)] for y in range(tiny.height)]
    hash_ = blurhash.encode(rows, components_x=4, components_y=3)
    return {"encoded": encoded, "small": buffer.getvalue(), "small_size": small.size,
            "blurhash": hash_}
