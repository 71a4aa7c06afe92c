"""SQS worker: preview cards for the first link of new and edited local statuses."""

from __future__ import annotations

from typing import Any

from stratus.workers import cards
from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues


def _record(record: Any) -> None:
    job = messages.decode(record.body)
    if not isinstance(job, messages.FetchCard):
        raise ValueError(f"not a cards job: {job.name}")
    cards.fetch_for_status(job)


# robots.txt, the page, its oEmbed answer and its image, each with its redirects: the 45 s
# workers/cards.py gives a card, and 10 s for the writes, within the 60 s timeout.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=45, requests=16, margin=10),
                            send_again=queues.send_again)
