"""SQS worker: finishes deferred media uploads (metadata, preview, blurhash)."""

from __future__ import annotations

import json
from typing import Any

from stratus.observability import sqs_batch_handler
from stratus.services import media


def _record(record: Any) -> None:
    job = json.loads(record.body)
    if job.get("job") != "process_media":
        raise ValueError(f"unknown media job {job.get('job')!r}")
    media.process_stored(job["media_id"])


handler = sqs_batch_handler(_record)
