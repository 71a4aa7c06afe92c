"""SQS worker: hashtag index entries and notification records derived from status activity."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import effects


def _record(record: Any) -> None:
    effects.handle(messages.decode(record.body))


# A job writes the entries and notifications of one event (no outbound request of its own):
# 3 s a job and 2 s for the answer, within the 10 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=3, margin=2),
                            send_again=queues.send_again)
