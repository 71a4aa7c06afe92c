"""SQS worker: finishes deferred media uploads (metadata, preview, blurhash)."""

from __future__ import annotations

from typing import Any

from stratus.workers import media
from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.ProcessMedia):
        raise ValueError(f"not a media job: {job.name}")
    media.process_stored(job.media_id)


# One upload a job (one to an invocation: repo/queues.PER_INVOCATION), no outbound request:
# 20 s, and 5 s kept, within the 30 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=20, margin=5),
                            send_again=queues.send_again)
