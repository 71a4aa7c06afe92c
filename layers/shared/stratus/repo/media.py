"""Media attachments: their objects in the S3 bucket (named by the attachment's id), and the
writes that change a media item in place (its items are read, put and deleted with the
statuses': repo/statuses.py)."""

from __future__ import annotations

from typing import Any

from stratus.core.config import settings
from stratus.repo import base, keys
from stratus.repo.client import client


def folder(media_id: str) -> str:
    """The prefix of an attachment's objects (`media_attachments/files/<padded id>`)."""
    return f"media_attachments/files/{keys.pad(media_id)}"


def changes_op(media_id: str, changes: dict[str, Any]) -> base.Op:
    """Set attributes of an existing media item (a None value removes one)."""
    return base.set_op(keys.media(media_id), changes)


def finish_processing(media_id: str, fields: dict[str, Any]) -> bool:
    """Write what processing a deferred upload gave (or its failure), if the item still
    exists and is still being processed; False otherwise (deleted, or finished meanwhile)."""
    try:
        base.transact([base.set_op(keys.media(media_id), fields,
                                   condition="attribute_exists(PK) AND processing = :yes")
                       .with_vals({":yes": True})])
    except base.ConditionFailed:
        return False
    return True


def put_object(key: str, data: bytes, content_type: str) -> None:
    client("s3").put_object(Bucket=settings().media_bucket, Key=key, Body=data,
                            ContentType=content_type,
                            CacheControl="public, max-age=31536000, immutable")


def delete_object(key: str) -> None:
    client("s3").delete_object(Bucket=settings().media_bucket, Key=key)


def get_object(key: str) -> bytes:
    return client("s3").get_object(Bucket=settings().media_bucket, Key=key)["Body"].read()
