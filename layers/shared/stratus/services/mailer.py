"""Mail jobs: what to send for a job message, composed and sent through SES."""

from __future__ import annotations

from typing import Any

from .. import mail
from . import accounts


def handle(job: dict[str, Any]) -> bool:
    """Send the mail a job asks for; False when it is stale (confirmed, or superseded)."""
    if job.get("job") != "confirmation_mail":
        raise ValueError(f"unknown mail job {job.get('job')!r}")
    content = accounts.confirmation_mail(job["account_id"], job["nonce"])
    if content is None:
        return False
    to, subject, body = content
    mail.send(mail.compose(to, subject, body))
    return True
