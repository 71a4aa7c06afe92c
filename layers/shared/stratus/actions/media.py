"""Storing an uploaded image: the clean original and its preview, made by the image pipeline
(imaging/uploads.py) — at once for an API upload (api/media/media.py), later for a deferred one
(the media worker, workers/media.py)."""

from __future__ import annotations

import hashlib
from typing import Any

from stratus.imaging import uploads
from stratus.repo import media as storage

FAILED = "failed"  # `processing` of a deferred upload the image pipeline refused


def store(item: dict[str, Any], data: bytes) -> tuple[dict[str, Any], list[str]]:
    """Process an upload and store the clean original and its preview: (the fields a finished
    item has, the keys written)."""
    facts = uploads.process(data)
    encoded = facts["encoded"]
    digest = hashlib.sha256(encoded.data).hexdigest()[:16]
    folder = storage.folder(item["id"])
    file_key = f"{folder}/original/{digest}.{encoded.extension}"
    small_key = f"{folder}/small/{digest}.png"
    storage.put_object(file_key, encoded.data, encoded.content_type)
    storage.put_object(small_key, facts["small"], "image/png")
    meta = dict(item.get("meta") or {})
    meta.update(original=uploads.size_meta(encoded.width, encoded.height),
                small=uploads.size_meta(*facts["small_size"]))
    return ({"file_key": file_key, "small_key": small_key, "content_type": encoded.content_type,
             "meta": meta, "blurhash": facts["blurhash"], "processing": None},
            [file_key, small_key])
