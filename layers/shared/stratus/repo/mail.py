"""Outgoing e-mail through Amazon SES."""

from __future__ import annotations

from . import base, keys
from .client import client

SENT_TTL = 14 * 86400  # SQS keeps a message at most 14 days


def send_raw(message: bytes) -> str:
    """Send one RFC 5322 message; returns SES's message id."""
    return client("ses").send_raw_email(RawMessage={"Data": message})["MessageId"]


def was_sent(job_id: str) -> bool:
    return base.get(keys.dedupe("mail", job_id), consistent=True) is not None


def mark_sent(job_id: str) -> None:
    """Remember a sent job, so that a redelivery of it sends nothing."""
    base.put({**keys.dedupe("mail", job_id), "type": "dedupe",
              "ttl": base.now_epoch() + SENT_TTL})
