"""SQS worker: streaming events (update, delete, status.update, notification, conversation,
filters_changed, announcements) posted to the connections that listen, and a revoked token's
connections closed (workers/stream.py)."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages
from stratus.workers import stream

HANDLERS = stream.HANDLERS


def _record(record: Any) -> None:
    stream.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
