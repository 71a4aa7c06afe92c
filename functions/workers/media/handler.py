"""SQS worker: finishes deferred media uploads (metadata, preview, blurhash)."""

from __future__ import annotations

from typing import Any

from stratus.workers import media
from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.ProcessMedia):
        raise ValueError(f"not a media job: {job.name}")
    media.process_stored(job.media_id)


handler = sqs_batch_handler(_record)
