"""SQS worker: the delivery queue. Each message is one activity for one inbox, signed and
POSTed (federation/delivery.py); a failure is sent on again for later on Mastodon's retry curve,
so a message is reported failed only when something unexpected broke."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.federation import delivery
from stratus.jobs import messages
from stratus.repo import queues


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.DeliverActivity):
        raise ValueError(f"not a delivery job: {job.name}")
    delivery.attempt(job)


# One POST and its second knock (15 s together, federation/http.py), within the 300 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=30, requests=4, margin=5),
                            send_again=queues.send_again)
