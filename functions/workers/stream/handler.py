"""SQS worker: streaming events (update, delete, status.update, notification, conversation,
filters_changed, announcements) posted to the connections that listen, and a revoked token's
connections closed (workers/stream.py)."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import stream

HANDLERS = stream.HANDLERS


def _record(record: Any) -> None:
    stream.handle(messages.decode(record.body))


# One event to its listeners' connections (no outbound request): 10 s, and 5 s kept, within
# the 30 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=10, margin=5),
                            send_again=queues.send_again)
