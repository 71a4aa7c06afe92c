"""SQS worker: the search indexes (stratus.services.search) follow accounts and statuses."""

from __future__ import annotations

from typing import Any

from stratus.jobs import messages
from stratus.observability import sqs_batch_handler
from stratus.services import search


def _record(record: Any) -> None:
    search.handle(messages.decode(record.body))


handler = sqs_batch_handler(_record)
