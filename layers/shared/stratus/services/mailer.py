"""Mail jobs: what to send for a job message, composed and sent through SES."""

from __future__ import annotations

from .. import mail
from ..jobs import messages as jobs
from . import accounts


def handle(job: jobs.Job) -> bool:
    """Send the mail a job asks for; False when it is stale (confirmed, or superseded)."""
    if not isinstance(job, jobs.ConfirmationMail):
        raise ValueError(f"not a mail job: {job.name}")
    content = accounts.confirmation_mail(job.account_id, job.nonce)
    if content is None:
        return False
    to, subject, body = content
    mail.send(mail.compose(to, subject, body))
    return True
