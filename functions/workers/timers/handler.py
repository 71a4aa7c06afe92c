"""SQS worker for one-off schedules: poll expiry and publishing scheduled statuses."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import timers


def _record(record: Any) -> None:
    timers.handle(messages.decode(record.body))


# A scheduled post resolves its remote mentions by WebFinger (5 lookups, each an actor fetch
# after it): 10 s and 12 requests a job, as the API's post has about its 10 s, and 5 s
# kept, within the 30 s timeout; the rest of the batch is never held by one slow host.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=10, requests=12, margin=5),
                            send_again=queues.send_again)
