"""SQS worker: the activities our inboxes accepted, each run once (workers/inbox.py),
and the bounded batches of a Move's follower migration."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, sqs_batch_handler
from stratus.jobs import messages
from stratus.repo import queues
from stratus.workers import inbox as worker


def _record(record: Any) -> None:
    worker.handle(messages.decode(record.body))


# One activity may chain fetches (a reply's parents and their authors, a boosted status, a
# key): 25 s and 16 requests at most, with 5 s kept for its writes, within the 60 s timeout.
# A batch takes the hosts of its activities in turn (workers/inbox.sender), so that one host's
# many slow activities do not take the time of another's.
handler = sqs_batch_handler(_record, limits=JobLimits(seconds=25, requests=16, margin=5),
                            send_again=queues.send_again, fair_by=worker.sender)
