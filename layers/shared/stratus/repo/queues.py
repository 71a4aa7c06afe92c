"""Job queues. A kind of job (counters, mail, effects, ...) travels one of two ways, as the
sending function's environment says (template.yaml):

- **An SQS queue** (`<KIND>_QUEUE_URL`), polled by an event-source mapping: for the kinds that
  need what only SQS gives — a delay (`delays`), a backoff of our choosing (`retry_later`),
  batches gathered over a window, a cap on the consumer's concurrency. A mapping long-polls
  its queue all month long, traffic or not (about $0.26 a month each: docs/performance.md).
- **The function's asynchronous invocation** (`<KIND>_FUNCTION`): Lambda's own queue. The
  event is `{"jobs": [...]}`, up to `PER_INVOCATION` jobs and `MAX_EVENT_BYTES`, in the order
  they were sent; Lambda retries a failed event twice and then sends it to the function's
  on-failure destination (template.yaml's `EventInvokeConfig`). Nothing polls: nothing to pay at idle, and ten jobs
  cost one Lambda request instead of three SQS requests and an invocation's share each.

Either way a job may arrive more than once; consumers are idempotent.
"""

from __future__ import annotations

import json
from typing import Any

from stratus.core.config import settings
from stratus.repo.client import client

MAX_DELAY = 900  # SQS's longest DelaySeconds
# Jobs an asynchronous invocation carries (default 10): one for the kinds whose job may take a
# large share of the function's time (a fetch of up to 45 s, a video to transcode).
PER_INVOCATION = {"cards": 1, "media": 1}
# An asynchronous invocation's event is at most 256 KB (Lambda's quota, SQS's message size too);
# jobs are grouped under this, a bigger one goes alone (and is refused, as SQS refused it).
MAX_EVENT_BYTES = 250_000


def send(queue: str, messages: list[dict[str, Any]], *,
         delays: list[int] | None = None) -> None:
    """Send jobs of one kind (`queue`: its short name). Over SQS ten go in a SendMessageBatch;
    `delays`: each message's DelaySeconds (at most 15 minutes), for kinds carried by SQS only.
    Over asynchronous invocation the jobs go `PER_INVOCATION` to an Invoke, one Invoke after
    another, so that they are run in the order they were sent as far as Lambda keeps it."""
    function = settings().job_function(queue)
    if function is not None:
        if delays:
            raise ValueError(f"{queue} jobs go by asynchronous invocation: they cannot be delayed")
        for event in _events(messages, PER_INVOCATION.get(queue, 10)):
            _invoke(function, event)
        return
    queue_url = settings().queue_url(queue)
    sqs = client("sqs")
    for start in range(0, len(messages), 10):
        batch = messages[start:start + 10]
        entries = [{"Id": str(i), "MessageBody": json.dumps(m, separators=(",", ":")),
                    **({"DelaySeconds": max(0, min(MAX_DELAY, int(delays[start + i])))}
                       if delays else {})}
                   for i, m in enumerate(batch)]
        response = sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
        if response.get("Failed"):
            failed = ", ".join(f["Id"] + ": " + f.get("Message", "") for f in response["Failed"])
            raise RuntimeError(f"could not enqueue {len(response['Failed'])} jobs: {failed}")


def _events(messages: list[dict[str, Any]], most: int) -> list[str]:
    """The jobs in order, as events of at most `most` jobs and `MAX_EVENT_BYTES` each."""
    events: list[str] = []
    group: list[str] = []
    size = 0
    for message in messages:
        text = json.dumps(message, separators=(",", ":"))
        length = len(text.encode()) + 1  # and its comma
        if group and (len(group) == most or size + length > MAX_EVENT_BYTES):
            events.append('{"jobs":[' + ",".join(group) + "]}")
            group, size = [], 0
        group.append(text)
        size += length
    if group:
        events.append('{"jobs":[' + ",".join(group) + "]}")
    return events


def _invoke(function: str, event: str) -> None:
    response = client("lambda").invoke(FunctionName=function, InvocationType="Event",
                                       Payload=event)
    if response.get("StatusCode") != 202:
        raise RuntimeError(f"{function} did not take the job: {response.get('StatusCode')}")


def retry_later(queue: str, receipt_handle: str, seconds: int) -> None:
    """Make a received message of an SQS-carried kind visible again in `seconds` (a retry's
    backoff; at most 12 h)."""
    client("sqs").change_message_visibility(QueueUrl=settings().queue_url(queue),
                                            ReceiptHandle=receipt_handle,
                                            VisibilityTimeout=max(0, min(seconds, 43200)))


def send_again(records: list[dict[str, Any]], context: Any) -> None:
    """Jobs a consumer had no time to start (core/observability.sqs_batch_handler), sent again
    as new messages the way they came, so that they are received afresh: an SQS record to its
    queue (named by its `eventSourceARN`) — SQS counts every receive of a message towards its
    maxReceiveCount, and a new message starts at none — and an asynchronous invocation's jobs
    to the function that was invoked (the context's ARN), as new events with Lambda's retries
    unspent. The caller then reports them done."""
    by_queue: dict[str, list[dict[str, Any]]] = {}
    jobs: list[dict[str, Any]] = []
    for record in records:
        if record.get("eventSource") == "aws:sqs":
            by_queue.setdefault(record["eventSourceARN"], []).append(json.loads(record["body"]))
        else:
            jobs.append(json.loads(record["body"]))
    sqs = client("sqs") if by_queue else None
    for arn, bodies in by_queue.items():
        url = queue_url_of(arn)
        for start in range(0, len(bodies), 10):
            entries = [{"Id": str(i), "MessageBody": json.dumps(m, separators=(",", ":"))}
                       for i, m in enumerate(bodies[start:start + 10])]
            response = sqs.send_message_batch(QueueUrl=url, Entries=entries)
            if response.get("Failed"):
                raise RuntimeError(f"could not send {len(response['Failed'])} jobs again")
    for event in _events(jobs, 10) if jobs else ():
        _invoke(context.invoked_function_arn, event)


def queue_url_of(arn: str) -> str:
    """An SQS queue's URL from its ARN (`arn:aws:sqs:<region>:<account>:<name>`), in SQS's
    own form, without a GetQueueUrl call (and its permission)."""
    _arn, _partition, _service, region, account, name = arn.split(":", 5)
    return f"https://sqs.{region}.amazonaws.com/{account}/{name}"
