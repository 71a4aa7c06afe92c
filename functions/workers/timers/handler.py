"""SQS worker for one-off schedules: poll expiry and publishing scheduled statuses."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages
from stratus.workers import timers


def _record(record: Any) -> None:
    timers.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
