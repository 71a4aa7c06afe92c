"""SQS worker for one-off schedules: poll expiry and publishing scheduled statuses."""

from __future__ import annotations

from typing import Any

from stratus.jobs import messages
from stratus.observability import sqs_batch_handler
from stratus.services import timers


def _record(record: Any) -> None:
    timers.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
