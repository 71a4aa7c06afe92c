"""Main table stream → SQS job queues and Step Functions executions (the outbox,
`stratus.jobs.outbox`). Reports failures per record so Lambda retries from the first failed
record only."""

from __future__ import annotations

from typing import Any

from stratus.core import parallel
from stratus.core.observability import JobLimits, job_handler, logger
from stratus.jobs.outbox import STATE_MACHINES, route
from stratus.repo import machines, queues


def _dispatch(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    """Route the batch's records, then send their jobs (repo/queues.py). Stream batches are
    ordered: a record that cannot be routed is reported and Lambda retries from it on (its
    predecessors' jobs are sent first); a failed send reports the whole batch (consumers are
    idempotent, so jobs sent twice change nothing)."""
    records = event.get("Records", [])
    by_queue: dict[str, list[dict[str, Any]]] = {}
    executions: list[tuple[str, Any]] = []
    failed_at = None
    for record in records:
        try:
            routed = route(record)
        except Exception:
            logger.exception("dispatch failed", extra={"event_id": record.get("eventID")})
            failed_at = record
            break
        for queue, job in routed:
            if queue in STATE_MACHINES:
                executions.append((queue, job))
            else:
                by_queue.setdefault(queue, []).append(job.to_dict())
    try:
        # Each kind's jobs in order; the kinds side by side.
        parallel.gather(*(lambda q=q, m=m: queues.send(q, m) for q, m in by_queue.items()))
        for machine, job in executions:  # named by the change: a redelivery starts nothing new
            machines.start(machine, machines.execution_name(job.name, job.event_id),
                           job.to_dict())
    except Exception:
        logger.exception("enqueueing failed", extra={"records": len(records)})
        failed_at = records[0]
    if failed_at is None:
        return {"batchItemFailures": []}
    return {"batchItemFailures": [{"itemIdentifier": failed_at["dynamodb"]["SequenceNumber"]}]}


# Routing a stream batch and sending its jobs (no outbound request): 20 s, and 5 s kept,
# within the 30 s timeout.
handler = job_handler(_dispatch, limits=JobLimits(seconds=20, margin=5))
