"""Outgoing e-mail through Amazon SES."""

from __future__ import annotations

from .client import client


def send_raw(message: bytes) -> str:
    """Send one RFC 5322 message; returns SES's message id."""
    return client("ses").send_raw_email(RawMessage={"Data": message})["MessageId"]
