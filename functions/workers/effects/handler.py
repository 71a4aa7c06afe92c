"""SQS worker: hashtag index entries and notification records derived from status activity."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages
from stratus.workers import effects


def _record(record: Any) -> None:
    effects.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
