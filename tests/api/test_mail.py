"""Outgoing mail goes through SES; the local stack keeps each message as an .eml file."""

from __future__ import annotations

from email import message_from_bytes
from email.policy import default

from stratus.core import mail
from stratus.repo import mail as outbox


def test_sent_mail_lands_in_the_mailbox(runtime):
    message = mail.compose("alice@example.org", "Confirm your address", "Follow this link",
                           html="<p>Follow this link</p>")
    outbox.send(message)
    files = runtime.mailbox.collect()
    assert len(files) == 1 and files[0].suffix == ".eml"
    parsed = message_from_bytes(files[0].read_bytes(), policy=default)
    assert parsed["To"] == "alice@example.org"
    assert parsed["Subject"] == "Confirm your address"
    assert "notifications@localhost" in parsed["From"]
    assert parsed.get_body(("plain",)).get_content().strip() == "Follow this link"
    assert runtime.mailbox.collect() == []  # each message is written once
