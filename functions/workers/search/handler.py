"""SQS worker: the search indexes (stratus.workers.search_index) follow accounts and statuses."""

from __future__ import annotations

from typing import Any

from stratus.workers import search_index
from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues


def _record(record: Any) -> None:
    search_index.handle(messages.decode(record.body))


# One index entry a job (no outbound request): 10 s, and 5 s kept, within the 30 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=10, margin=5),
                            send_again=queues.send_again)
