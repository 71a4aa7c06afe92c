"""Deferred media uploads (the media queue's worker): a large v2 upload is answered at once and
processed here (metadata, preview, blurhash)."""

from __future__ import annotations

from stratus.actions.media import FAILED, store
from stratus.core.errors import Unprocessable
from stratus.repo import media as storage
from stratus.repo import statuses as repo


def process_stored(media_id: str) -> bool:
    """Finish a deferred upload; False when there is nothing (left) to do. A file
    the pipeline refuses marks the item failed (Mastodon then answers 422 for it)."""
    item = repo.get_media([media_id]).get(media_id)
    if item is None or item.get("processing") is not True:
        return False
    upload_key = item["file_key"]
    try:
        fields, written = store(item, storage.get_object(upload_key))
    except Unprocessable:
        fields, written = {"processing": FAILED}, []
    if not storage.finish_processing(media_id, fields):
        for key in written:  # deleted (or finished) meanwhile: leave nothing behind
            storage.delete_object(key)
        return False
    if written:
        storage.delete_object(upload_key)
    return True
