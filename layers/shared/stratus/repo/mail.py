"""Outgoing e-mail through Amazon SES."""

from __future__ import annotations

from stratus.repo import dedupe
from stratus.repo.client import client


def send_raw(message: bytes) -> str:
    """Send one RFC 5322 message; returns SES's message id."""
    return client("ses").send_raw_email(RawMessage={"Data": message})["MessageId"]


def was_sent(job_id: str) -> bool:
    return bool(dedupe.marked("mail", [job_id]))


def mark_sent(job_id: str) -> None:
    """Remember a sent job, so that a redelivery of it sends nothing."""
    dedupe.mark("mail", job_id)
