"""The local mailbox: every message sent through the emulated SES becomes one RFC 5322 file."""

from __future__ import annotations

import logging
from email import message_from_bytes
from email.policy import default as default_policy
from pathlib import Path

from . import cfn

logger = logging.getLogger("stratus.local")


def _sent_messages() -> list:
    from moto.ses.models import ses_backends

    return list(ses_backends[cfn.ACCOUNT][cfn.REGION].sent_messages)


class Mailbox:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.seen = 0

    def collect(self) -> list[Path]:
        """Write messages sent since the last call; returns the new files."""
        messages = _sent_messages()
        written = []
        for message in messages[self.seen:]:
            raw = getattr(message, "raw_data", None)
            if raw is None:  # send_email (not raw): rebuild a simple message
                raw = (f"From: {message.source}\r\nTo: {', '.join(message.destinations.get('ToAddresses', []))}\r\n"
                       f"Subject: {message.subject}\r\n\r\n{message.body}\r\n")
            data = raw.encode("utf-8") if isinstance(raw, str) else raw
            parsed = message_from_bytes(data, policy=default_policy)
            path = self.folder / f"{message.id}.eml"
            # Written whole, then renamed: a reader polling the folder never sees half a mail.
            partial = self.folder / f".{message.id}.eml.partial"
            partial.write_bytes(data)
            partial.replace(path)
            written.append(path)
            logger.warning("mail to %s (%s) saved as %s", parsed.get("To"),
                           parsed.get("Subject"), path)
        self.seen = len(messages)
        return written
