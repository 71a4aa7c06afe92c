"""SQS worker: sends the e-mail that job messages ask for (confirmation links)."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import mail as mailer


def _record(record: Any) -> None:
    mailer.handle(messages.decode(record.body))


# One e-mail a job: 10 s, and 5 s kept, within the 30 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=10, margin=5),
                            send_again=queues.send_again)
