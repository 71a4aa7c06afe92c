"""Media attachments: upload (S3) through the image pipeline (`images`: decoded, checked,
metadata stripped, re-encoded), thumbnail and blurhash, descriptions and focus, deletion of
unattached media. Unattached media expire after a day."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from stratus.actions.media import FAILED, store
from stratus.convert import statuses as convert
from stratus.core import clock, ids, limits
from stratus.core.errors import NotFound, Unprocessable
from stratus.imaging import images
from stratus.imaging.media_types import sniff_image
from stratus.imaging.uploads import refused as _refused
from stratus.model.viewer import Viewer
from stratus.repo import media as storage
from stratus.repo import statuses as repo
from stratus.repo import transaction

UNATTACHED_TTL = timedelta(days=1)


def _error(message: str) -> Unprocessable:
    return Unprocessable(f"Validation failed: {message}")


def _focus(raw: Any) -> dict[str, float] | None:
    if raw in (None, ""):
        return None
    try:
        x, y = (float(v) for v in str(raw).split(","))
    except ValueError:
        raise _error("Focus must be two numbers between -1.0 and 1.0") from None
    if not (-1.0 <= x <= 1.0 and -1.0 <= y <= 1.0):
        raise _error("Focus must be two numbers between -1.0 and 1.0")
    return {"x": round(x, 2), "y": round(y, 2)}


def _description(raw: Any) -> str | None:
    if raw is None:
        return None
    text = str(raw)
    if len(text) > limits.MEDIA_DESCRIPTION_LIMIT:
        raise _error(f"Description is too long (maximum is {limits.MEDIA_DESCRIPTION_LIMIT} characters)")
    return text


def attribute_changes(attributes: dict[str, Any]) -> dict[str, Any]:
    """Changes for `description` / `focus` (used by PUT /media/:id and status edits); the focus
    is stored inside `meta` and merged by the caller."""
    changes: dict[str, Any] = {}
    if "description" in attributes:
        changes["description"] = _description(attributes["description"])
    if "focus" in attributes:
        changes["focus"] = _focus(attributes["focus"])
    return changes


def _check(data: bytes) -> images.Probe:
    """What can be said without decoding: type, byte size, dimensions, frames."""
    if sniff_image(data) not in limits.MEDIA_SUPPORTED_MIME_TYPES:
        raise _error("File content type is invalid (supported: "
                     + ", ".join(limits.MEDIA_SUPPORTED_MIME_TYPES) + ")")
    if len(data) > limits.IMAGE_SIZE_LIMIT:
        raise _error(f"File must be smaller than {limits.IMAGE_SIZE_LIMIT // (1024 * 1024)} MB")
    try:
        return images.probe(data, limits.MEDIA_SUPPORTED_MIME_TYPES)
    except images.Refused as exc:
        raise _refused(exc) from None


def upload(viewer: Viewer, upload_file: Any, description: Any, focus: Any, *,
           defer_large: bool = False) -> tuple[dict[str, Any], bool]:
    """Store an upload; returns (entity, processed). With `defer_large` (API v2), files over
    the synchronous limit are processed by the media worker after we answer; the cheap checks
    (type, size, dimensions) still answer 422 at once."""
    if upload_file is None or not hasattr(upload_file, "file"):
        raise _error("File can't be blank")
    data = upload_file.file.read()
    probe = _check(data)
    media_id = ids.new_id()
    focus_value = _focus(focus)
    item: dict[str, Any] = {
        "id": media_id, "account_id": viewer.account_id, "media_type": "image",
        "content_type": probe.content_type,
        "meta": {"focus": focus_value} if focus_value else {},
        "description": _description(description), "created_at": clock.iso(clock.now()),
        "ttl": int((clock.now() + UNATTACHED_TTL).timestamp())}
    deferred = defer_large and len(data) > limits.MEDIA_SYNC_PROCESSING_LIMIT
    if deferred:
        # The raw upload waits for the worker under a name only we know, as a download (never
        # rendered); the worker stores the clean original under its own key and removes it.
        item["file_key"] = f"{storage.folder(media_id)}/upload/{secrets.token_hex(16)}"
        storage.put_object(item["file_key"], data, "application/octet-stream")
        item["processing"] = True  # the stream hands it to the media worker
    else:
        fields, _ = store(item, data)
        item.update({k: v for k, v in fields.items() if v is not None})
    repo.put_media(item)
    return convert.media_attachment(item), not deferred


def _own(viewer: Viewer, media_id: str, *, unattached: bool = True) -> dict[str, Any]:
    """The viewer's media item; attached media are not found (Mastodon scopes these routes to
    `status_id: nil`), except for DELETE, which explains why it refuses."""
    found = repo.get_media([media_id]).get(media_id) if ids.is_id(str(media_id)) else None
    if found is None or found["account_id"] != viewer.account_id:
        raise NotFound()
    if unattached and (found.get("status_id") or found.get("scheduled_status_id")):
        raise NotFound()
    return found


def show(viewer: Viewer, media_id: str) -> tuple[dict[str, Any], bool]:
    """(entity, processed) — the API answers 206 while processing continues."""
    item = _own(viewer, media_id)
    if item.get("processing") == FAILED:
        raise Unprocessable("Error processing thumbnail for uploaded media")
    return convert.media_attachment(item), not item.get("processing")


def attribute_op(item: dict[str, Any], attributes: dict[str, Any]) -> transaction.Op | None:
    """The write for new `description` / `focus` values of a media item (focus lives in meta)."""
    changes = attribute_changes(attributes)
    if "focus" in changes:
        meta = dict(item.get("meta") or {})
        focus = changes.pop("focus")
        if focus:
            meta["focus"] = focus
        else:
            meta.pop("focus", None)
        changes["meta"] = meta
    return storage.changes_op(item["id"], changes) if changes else None


def update(viewer: Viewer, media_id: str, params: dict[str, Any]) -> dict[str, Any]:
    op = attribute_op(_own(viewer, media_id), params)
    if op is not None:
        transaction.write([op])
    return show(viewer, media_id)[0]


def delete(viewer: Viewer, media_id: str) -> None:
    item = _own(viewer, media_id, unattached=False)
    if item.get("status_id") or item.get("scheduled_status_id"):
        raise Unprocessable("Media attachment is currently used by a status")
    repo.delete_media(media_id)
    for key in (item.get("file_key"), item.get("small_key")):
        if key:
            storage.delete_object(key)
