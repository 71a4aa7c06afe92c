"""Outgoing e-mail through Amazon SES."""

from __future__ import annotations

from email.message import EmailMessage

from stratus.repo import dedupe
from stratus.repo.client import client


def send(message: EmailMessage) -> str:
    """Send one message (core/mail.compose) as raw RFC 5322; returns SES's message id."""
    return client("ses").send_raw_email(RawMessage={"Data": message.as_bytes()})["MessageId"]


def was_sent(job_id: str) -> bool:
    return bool(dedupe.marked("mail", [job_id]))


def mark_sent(job_id: str) -> None:
    """Remember a sent job, so that a redelivery of it sends nothing."""
    dedupe.mark("mail", job_id)
