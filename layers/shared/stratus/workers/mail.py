"""Mail jobs: what to send for a job message, composed and sent through SES (a moderation
warning's mail is composed here; a confirmation's, a trends review's and a new version of the
terms of service's where they are read). The terms of service go to every user a page at a
time, each page's job sending the next (`TERMS_PAGE` users: a bounded job however many users
there are)."""

from __future__ import annotations

from stratus.auth import confirmation
from stratus.core import mail
from stratus.core.config import settings
from stratus.jobs import messages as jobs
from stratus.read import documents
from stratus.read import settings as settings_service
from stratus.read import trends
from stratus.repo import accounts as accounts_repo
from stratus.repo import mail as outbox
from stratus.repo import moderation as moderation_repo


def handle(job: jobs.Job) -> bool:
    """Send the mail a job asks for; False when it is stale (confirmed, or superseded) or was
    sent already. A job is marked sent after SES took it: a redelivered message sends nothing
    (only a crash between the two would send twice; the other order would lose mail)."""
    if isinstance(job, jobs.TrendsReviewMail):
        return _trends_review(job)
    if isinstance(job, jobs.TermsOfServiceMail):
        return _terms_of_service(job)
    if isinstance(job, jobs.ConfirmationMail):
        compose = lambda: confirmation.confirmation_mail(job.account_id, job.nonce)  # noqa: E731
    elif isinstance(job, jobs.WarningMail):
        compose = lambda: warning_mail(job.account_id, job.warning_id)  # noqa: E731
    else:
        raise ValueError(f"not a mail job: {job.name}")
    if job.event_id and outbox.was_sent(job.event_id):
        return False
    content = compose()
    if content is None:
        return False
    to, subject, body = content
    outbox.send(mail.compose(to, subject, body))
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
        outbox.send(mail.compose(user["email"], subject, body))
        outbox.mark_sent(marker)
        sent = True
    return sent


TERMS_PAGE = 100


def _terms_of_service(job: jobs.TermsOfServiceMail) -> bool:
    """A page of users told of a new version of the terms: the confirmed, active local users
    who signed up before it was published (Mastodon's scope_for_notification, without its
    year-of-activity cutoff), each once (a marker per user under the stream record's event);
    then the next page's job."""
    content = documents.notification(job.terms_id)
    if content is None:
        return False
    terms, subject, body = content
    account_ids, cursor = accounts_repo.active_local_page(job.after, TERMS_PAGE)
    users = accounts_repo.get_many(account_ids, parts=(accounts_repo.USER,))
    sent = False
    for account_id in account_ids:
        user = users.get(account_id, {}).get(accounts_repo.USER) or {}
        marker = f"{job.event_id}#{account_id}"
        if not user.get("email") or not user.get("confirmed_at") \
                or user.get("created_at", "") > terms["published_at"] or outbox.was_sent(marker):
            continue
        outbox.send(mail.compose(user["email"], subject, body))
        outbox.mark_sent(marker)
        sent = True
    if cursor:
        from stratus.repo import queues

        queues.send("mail", [jobs.TermsOfServiceMail(event_id=job.event_id,
                                                     terms_id=job.terms_id,
                                                     after=cursor).to_dict()])
    return sent


# --- warning mail ----------------------------------------------------------------------------
SUBJECTS = {
    "none": "Warning for {acct}",
    "disable": "Your account {acct} has been frozen",
    "sensitive": "Your account {acct} posting media has been marked as sensitive",
    "silence": "Your account {acct} has been limited",
    "suspend": "Your account {acct} has been suspended",
}
EXPLANATIONS = {
    "none": "A moderator has sent you a warning.",
    "disable": "You can no longer use your account, but your profile and other data remain "
               "intact.",
    "sensitive": "From now on, all your uploaded media files will be marked as sensitive and "
                 "hidden behind a click-through warning.",
    "silence": "Your account has been limited: only people who already follow you will see "
               "your posts on this server, and you may be excluded from public listings.",
    "suspend": "You can no longer use your account, and your profile and other data are no "
               "longer accessible.",
}


def warning_mail(account_id: str, warning_id: str) -> tuple[str, str, str] | None:
    """(to, subject, body) of a warning's mail (Mastodon's UserMailer#warning), or None when
    the user or the warning is gone."""
    warning = moderation_repo.get_warning(account_id, warning_id)
    user = accounts_repo.get_user(account_id)
    profile = accounts_repo.get_profile(account_id)
    if warning is None or user is None or profile is None:
        return None
    title = settings_service.current()["site_title"]
    acct = f"@{profile['username']}@{settings().domain}"
    body = f"Hello @{profile['username']},\n\n{EXPLANATIONS[warning['action']]}\n"
    if warning.get("text"):
        body += f"\nNote from the moderators of {title}:\n\n{warning['text']}\n"
    body += f"\n{title} ({settings().base_url})\n"
    return user["email"], SUBJECTS[warning["action"]].format(acct=acct), body
