"""Mail jobs: what to send for a job message, composed and sent through SES."""

from __future__ import annotations

from stratus.api.accounts import accounts
from stratus.api.admin import moderation
from stratus.api.trends import trends
from stratus.core import mail
from stratus.jobs import messages as jobs
from stratus.repo import accounts as accounts_repo
from stratus.repo import mail as outbox


def handle(job: jobs.Job) -> bool:
    """Send the mail a job asks for; False when it is stale (confirmed, or superseded) or was
    sent already. A job is marked sent after SES took it: a redelivered message sends nothing
    (only a crash between the two would send twice; the other order would lose mail)."""
    if isinstance(job, jobs.TrendsReviewMail):
        return _trends_review(job)
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


def _trends_review(job: jobs.TrendsReviewMail) -> bool:
    """One mail to each reviewer with an e-mail address, each marked sent on its own (a
    redelivery after a failure part-way sends only the rest)."""
    content = trends.review_mail(job.review_id)
    if content is None:
        return False
    recipients, subject, body = content
    sent = False
    for account_id in recipients:
        marker = f"{job.event_id}#{account_id}"
        user = accounts_repo.get_user(account_id) or {}
        if not user.get("email") or outbox.was_sent(marker):
            continue
        mail.send(mail.compose(user["email"], subject, body))
        outbox.mark_sent(marker)
        sent = True
    return sent
