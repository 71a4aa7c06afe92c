"""SQS worker: streaming events (update, delete, status.update, notification, conversation,
filters_changed) posted to the connections that listen, and a revoked token's connections
closed (services/streaming.py)."""

from __future__ import annotations

from typing import Any

from stratus.jobs import messages
from stratus.observability import sqs_batch_handler
from stratus.services import streaming

HANDLERS = streaming.HANDLERS


def _record(record: Any) -> None:
    streaming.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
