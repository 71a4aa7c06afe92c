"""SQS worker: counters kept from the stream (status, account and instance counters, weekly
activity). Takes the whole batch at once so that changes to one counter are aggregated."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, job_handler, logger
from stratus.jobs import messages
from stratus.workers import counters


def _handle(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    batch: list[tuple[str, messages.Count]] = []
    failed: list[str] = []
    for record in event.get("Records", []):
        try:
            job = messages.decode(record["body"])
            if not isinstance(job, messages.Count):
                raise ValueError(f"not a counter job: {job.name}")
        except messages.Poison as exc:  # no job at all: dropped, as it can never succeed
            logger.warning("job dropped: it can never succeed", extra={
                "message_id": record["messageId"], "reason": str(exc)[:200]})
            continue
        except ValueError:  # a job sent to the wrong queue: dead-lettered, to be seen
            logger.exception("poison counter message", extra={"message_id": record["messageId"]})
            failed.append(record["messageId"])
            continue
        batch.append((record["messageId"], job))
    failed += counters.apply_batch(batch)
    return {"batchItemFailures": [{"itemIdentifier": m} for m in failed]}


# A whole batch at once, no outbound request: 5 s, and 3 s kept, within the 10 s timeout.
handler = job_handler(_handle, limits=JobLimits(seconds=5, margin=3))
