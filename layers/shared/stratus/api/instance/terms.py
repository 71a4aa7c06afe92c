"""The terms of service as the operator manages them (`stratusctl terms`; Mastodon's admin
has them only in its web UI): one draft at a time, published with its effective date, and the
users told of a new version by e-mail once (Mastodon's "notify users"): marking a published
version notified is what the outbox turns into the mail job (jobs/outbox.py), which mails
every active, confirmed local user who signed up before it was published, a page at a time
(workers/mail.py). Versions are read in read/documents.py."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import NotFound, ValidationFailed
from stratus.read import documents
from stratus.repo import instance as repo

DEFAULT_NOTICE = timedelta(days=10)  # a new draft's effective date, as Mastodon's


def _date(raw: Any) -> str:
    try:
        return date.fromisoformat(str(raw).strip()).isoformat()
    except ValueError:
        raise ValidationFailed({"effective_date": [("ERR_INVALID", "is invalid")]}) from None


def versions() -> list[dict[str, Any]]:
    """Every version, drafts first (newest first), then the published ones."""
    return documents.drafts() + documents.published()


def save_draft(*, text: str | None = None, changelog: str | None = None,
               effective_date: str | None = None) -> dict[str, Any]:
    """Create the draft (from the text in effect, effective in ten days, unless told) or
    change it."""
    existing = documents.drafts()
    now = clock.iso(clock.now())
    if existing:
        draft = dict(existing[0])
    else:
        live = documents.current()
        draft = {"id": ids.new_id(), "text": live["text"] if live else "", "changelog": "",
                 "effective_date": (documents.today() + DEFAULT_NOTICE).isoformat(),
                 "published_at": None, "notification_sent_at": None, "created_at": now}
    if text is not None:
        draft["text"] = text
    if changelog is not None:
        draft["changelog"] = changelog
    if effective_date is not None:
        draft["effective_date"] = _date(effective_date) if str(effective_date).strip() else None
    if not draft["text"].strip():
        raise ValidationFailed({"text": [("ERR_BLANK", "can't be blank")]})
    draft["updated_at"] = now
    repo.put_terms(draft, new=not existing)
    return draft


def discard_draft() -> None:
    for draft in documents.drafts():
        repo.remove_terms(draft["id"])


def publish() -> dict[str, Any]:
    """Publish the draft (TermsOfService's validations: a text, a changelog and an effective
    date, one not already taken and not before the date of the terms in effect, nor today's)."""
    drafts = documents.drafts()
    if not drafts:
        raise NotFound("there is no draft to publish: write one with `stratusctl terms draft`")
    draft = dict(drafts[0])
    details: dict[str, list[tuple[str, str]]] = {}
    for field in ("text", "changelog", "effective_date"):
        if not str(draft.get(field) or "").strip():
            details[field] = [("ERR_BLANK", "can't be blank")]
    published = documents.published()
    effective = draft.get("effective_date")
    if effective and "effective_date" not in details:
        live = [t for t in published if t.get("effective_date")
                and t["effective_date"] <= documents.today().isoformat()]
        earliest = live[0]["effective_date"] if live else documents.today().isoformat()
        if any(t.get("effective_date") == effective for t in published):
            details["effective_date"] = [("ERR_TAKEN", "has already been taken")]
        elif effective < earliest:
            details["effective_date"] = [("ERR_TOO_SOON", f"is too soon, must be later than "
                                                          f"{earliest}")]
    if details:
        raise ValidationFailed(details)
    draft["published_at"] = draft["updated_at"] = clock.iso(clock.now())
    repo.put_terms(draft, new=False)
    return draft


def notify(effective_date: str) -> dict[str, Any]:
    """Tell the users of a published version, once (Mastodon's distribute: only a published
    version whose users were not told yet)."""
    terms = documents.on(_date(effective_date))
    if terms is None:
        raise NotFound(f"no published terms of service effective from {effective_date}")
    if terms.get("notification_sent_at"):
        raise ValidationFailed({"base": [("ERR_TAKEN", "users were told of it already")]})
    terms = {**terms, "notification_sent_at": clock.iso(clock.now())}
    repo.put_terms(terms, new=False)
    return terms
