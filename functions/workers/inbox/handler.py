"""SQS worker: the activities our inboxes accepted, each run once (services/inbox/worker.py),
and the bounded batches of a Move's follower migration."""

from __future__ import annotations

from typing import Any

from stratus.jobs import messages
from stratus.observability import sqs_batch_handler
from stratus.services.inbox import worker


def _record(record: Any) -> None:
    worker.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
