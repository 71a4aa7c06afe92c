"""Job queues: sending job messages to SQS in batches of ten."""

from __future__ import annotations

import json
from typing import Any

from stratus.core.config import settings
from stratus.repo.client import client


def url(queue: str) -> str:
    """A job queue's URL by its short name (counters, mail, effects, media)."""
    return settings().queue_url(queue)


MAX_DELAY = 900  # SQS's longest DelaySeconds


def send(queue_url: str, messages: list[dict[str, Any]], *,
         delays: list[int] | None = None) -> None:
    """Send messages, ten per SendMessageBatch; `delays`: each message's DelaySeconds (at most
    15 minutes)."""
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


def retry_later(queue_url: str, receipt_handle: str, seconds: int) -> None:
    """Make a received message visible again in `seconds` (a retry's backoff; at most 12 h)."""
    client("sqs").change_message_visibility(QueueUrl=queue_url, ReceiptHandle=receipt_handle,
                                            VisibilityTimeout=max(0, min(seconds, 43200)))
