"""SQS worker: streaming events (update, delete, status.update, notification, conversation,
filters_changed) posted to the connections that listen, and a revoked token's connections
closed (api/streaming/streaming.py)."""

from __future__ import annotations

from typing import Any

from stratus.api.streaming import streaming
from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages

HANDLERS = streaming.HANDLERS


def _record(record: Any) -> None:
    streaming.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
