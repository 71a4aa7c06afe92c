"""SQS worker: pushes new notifications to their recipients' web push subscriptions
(stratus.workers.push). A job whose pushes failed is reported failed and comes back after
a growing delay; what was pushed already is not pushed again."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import push as webpush


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.PushNotification):
        raise ValueError(f"not a push job: {job.name}")
    try:
        webpush.deliver(job)
    except webpush.Retry as exc:
        webpush.back_off(record.receipt_handle,
                         int(record.attributes.approximate_receive_count or 1), exc.delay)
        raise


# One notification to each of its recipient's subscriptions (10 s a push at most): 30 s and 10
# pushes a job; the rest go out when the job comes back (what went is not sent again).
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=30, requests=10, margin=5),
                            send_again=queues.send_again)
