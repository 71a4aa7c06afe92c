"""SQS worker: the search indexes (stratus.api.search.search) follow accounts and statuses."""

from __future__ import annotations

from typing import Any

from stratus.api.search import search
from stratus.core.observability import sqs_batch_handler
from stratus.jobs import messages


def _record(record: Any) -> None:
    search.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
