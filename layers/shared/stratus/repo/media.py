"""Media objects in the S3 bucket."""

from __future__ import annotations

from stratus.core.config import settings
from stratus.repo.client import client


def put_object(key: str, data: bytes, content_type: str) -> None:
    client("s3").put_object(Bucket=settings().media_bucket, Key=key, Body=data,
                            ContentType=content_type,
                            CacheControl="public, max-age=31536000, immutable")


def delete_object(key: str) -> None:
    client("s3").delete_object(Bucket=settings().media_bucket, Key=key)


def get_object(key: str) -> bytes:
    return client("s3").get_object(Bucket=settings().media_bucket, Key=key)["Body"].read()
