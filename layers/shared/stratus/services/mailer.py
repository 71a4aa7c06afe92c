"""Mail jobs: what to send for a job message, composed and sent through SES."""

from __future__ import annotations

from .. import mail
from ..jobs import messages as jobs
from ..repo import mail as outbox
from . import accounts, moderation


def handle(job: jobs.Job) -> bool:
    """Send the mail a job asks for; False when it is stale (confirmed, or superseded) or was
    sent already. A job is marked sent after SES took it: a redelivered message sends nothing
    (only a crash between the two would send twice; the other order would lose mail)."""
    if isinstance(job, jobs.ConfirmationMail):
        compose = lambda: accounts.confirmation_mail(job.account_id, job.nonce)  # noqa: E731
    elif isinstance(job, jobs.WarningMail):
        compose = lambda: moderation.warning_mail(job.account_id, job.warning_id)  # noqa: E731
    else:
        raise ValueError(f"not a mail job: {job.name}")
    if job.event_id and outbox.was_sent(job.event_id):
        return False
    content = compose()
    if content is None:
        return False
    to, subject, body = content
    mail.send(mail.compose(to, subject, body))
    if job.event_id:
        outbox.mark_sent(job.event_id)
    return True
