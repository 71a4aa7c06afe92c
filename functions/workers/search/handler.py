"""SQS worker: the search indexes (stratus.workers.search_index) follow accounts and statuses."""

from __future__ import annotations

from typing import Any

from stratus.workers import search_index
from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages


def _record(record: Any) -> None:
    search_index.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
