"""Main table stream → SQS job queues (the outbox). Reports failures per record so Lambda
retries from the first failed record only."""

from __future__ import annotations

import os
from typing import Any

from stratus.jobs.dispatch import route
from stratus.repo.queues import send
from stratus.observability import job_handler, logger

QUEUES = {"counters": "COUNTERS_QUEUE_URL", "mail": "MAIL_QUEUE_URL",
          "effects": "EFFECTS_QUEUE_URL", "media": "MEDIA_QUEUE_URL"}


def _dispatch(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    for record in event.get("Records", []):
        try:
            by_queue: dict[str, list[dict[str, Any]]] = {}
            for queue, message in route(record):
                by_queue.setdefault(queue, []).append(message)
            for queue, messages in by_queue.items():
                send(os.environ[QUEUES[queue]], messages)
        except Exception:
            logger.exception("dispatch failed", extra={"event_id": record.get("eventID")})
            # Stream batches are ordered: report this record and Lambda retries from it on.
            return {"batchItemFailures": [
                {"itemIdentifier": record["dynamodb"].get("SequenceNumber")}]}
    return {"batchItemFailures": []}


handler = job_handler(_dispatch)
