"""SQS worker: sends the e-mail that job messages ask for (confirmation links)."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages
from stratus.workers import mail as mailer


def _record(record: Any) -> None:
    mailer.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
