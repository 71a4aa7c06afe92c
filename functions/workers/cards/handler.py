"""SQS worker: preview cards for the first link of new and edited local statuses."""

from __future__ import annotations

from typing import Any

from stratus.jobs import messages
from stratus.observability import sqs_batch_handler
from stratus.services import cards


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.FetchCard):
        raise ValueError(f"not a cards job: {job.name}")
    cards.fetch_for_status(job)


handler = sqs_batch_handler(_record)
