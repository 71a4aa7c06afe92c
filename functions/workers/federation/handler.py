"""SQS worker: the federation queue. Each local event that peers hear of becomes its activity,
built once, and one delivery message per inbox (federation/delivery.py); a large audience is
covered a page of followers per job."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.federation import delivery
from stratus.jobs import messages
from stratus.repo import queues


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.Federate):
        raise ValueError(f"not a federation job: {job.name}")
    delivery.fan_out(job)


# Fan-out reads followers and queues deliveries; a lookup it makes on the way is bounded too.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=25, requests=8, margin=5),
                            send_again=queues.send_again)
