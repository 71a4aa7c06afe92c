"""The instance's documents as clients, the web pages and the mail read them: the privacy
policy (Mastodon's default text until staff write one), the extended description, and the terms
of service with their versions (Mastodon 4.4's TermsOfService: published versions, each
effective from its date; drafts are never shown). Written by `stratusctl settings` (the first
two) and `stratusctl terms` (api/instance/terms.py).

Each is Markdown rendered as Mastodon renders it (text/sanitize.markdown_document); `%{domain}`
in the privacy policy and the terms stands for this server's domain."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from stratus.core import clock
from stratus.core.config import settings as config
from stratus.read import settings
from stratus.repo import instance as repo
from stratus.text.sanitize import markdown_document

DEFAULT_PRIVACY_POLICY = Path(__file__).with_name("privacy-policy.md")  # CC-BY-SA, Mastodon's
DEFAULT_PRIVACY_UPDATED_AT = "2022-10-07T00:00:00+00:00"  # PrivacyPolicy::DEFAULT_UPDATED_AT


def _with_domain(text: str) -> str:
    return text.replace("%{domain}", config().domain)


def privacy_policy() -> dict[str, Any]:
    """PrivacyPolicy: the staff's text, else Mastodon's default."""
    s = settings.current()
    if s["privacy_policy"].strip():
        text, updated = s["privacy_policy"], s["privacy_policy_updated_at"]
    else:
        text, updated = DEFAULT_PRIVACY_POLICY.read_text(), DEFAULT_PRIVACY_UPDATED_AT
    return {"updated_at": updated,
            "content": markdown_document(_with_domain(text), raw_html=False)}


def extended_description() -> dict[str, Any]:
    """ExtendedDescription: `updated_at` null and `content` empty until staff write one."""
    s = settings.current()
    text = s["extended_description"]
    if not text.strip():
        return {"updated_at": None, "content": ""}
    return {"updated_at": s["extended_description_updated_at"],
            "content": markdown_document(text, raw_html=True)}


# --- terms of service ----------------------------------------------------------------------
def today() -> date:
    return clock.now().date()


def _order(terms: dict[str, Any]) -> str:
    return terms.get("effective_date") or terms["published_at"][:10]


def published() -> list[dict[str, Any]]:
    """Published versions, latest effective date first (TermsOfService.published)."""
    found = [t for t in repo.list_terms() if t.get("published_at")]
    return sorted(found, key=_order, reverse=True)


def drafts() -> list[dict[str, Any]]:
    return sorted((t for t in repo.list_terms() if not t.get("published_at")),
                  key=lambda t: int(t["id"]), reverse=True)


def current(versions: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """TermsOfService.current: the latest in effect, else the next to come into effect."""
    versions = published() if versions is None else versions
    day = today().isoformat()
    live = [t for t in versions if not t.get("effective_date") or t["effective_date"] <= day]
    if live:
        return live[0]
    upcoming = sorted((t for t in versions if t["effective_date"] > day),
                      key=lambda t: t["effective_date"])
    return upcoming[0] if upcoming else None


def on(effective_date: str) -> dict[str, Any] | None:
    """The published version effective from this date (yyyy-mm-dd), if any."""
    return next((t for t in published() if t.get("effective_date") == effective_date), None)


def terms_entity(terms: dict[str, Any], versions: list[dict[str, Any]] | None = None
                 ) -> dict[str, Any]:
    """REST::TermsOfServiceSerializer. `effective` once its date has passed (Date#past?);
    `succeeded_by` is the latest other version effective on or after it, as Mastodon picks
    it."""
    versions = published() if versions is None else versions
    effective_date = terms.get("effective_date")
    later = [t for t in versions if t["id"] != terms["id"] and effective_date
             and t.get("effective_date") and t["effective_date"] >= effective_date]
    return {"effective_date": effective_date or terms["published_at"],
            "effective": bool(terms.get("published_at")) and bool(effective_date)
            and effective_date < today().isoformat(),
            "content": markdown_document(_with_domain(terms["text"]), raw_html=False),
            "succeeded_by": later[0]["effective_date"] if later else None}


def notification(terms_id: str) -> tuple[dict[str, Any], str, str] | None:
    """(the version, the mail's subject, its body) telling users of a new version, or None
    when it is gone or unpublished (UserMailer#terms_of_service_changed, in our words)."""
    terms = repo.get_terms(terms_id)
    if terms is None or not terms.get("published_at"):
        return None
    domain = config().domain
    day = terms.get("effective_date") or terms["published_at"][:10]
    body = (f"The terms of service of {domain} are changing.\n\n"
            f"We are changing our terms of service at {domain}. The new terms take effect on "
            f"{day}. Please read them in full:\n\n"
            f"=> {config().base_url}/terms-of-service/{day}\n\n"
            f"What changes for you:\n\n{terms.get('changelog', '').strip()}\n\n"
            f"By going on using {domain} you agree to these terms. If you do not, you may end "
            f"your agreement with {domain} at any time by deleting your account.\n\n"
            f"The {domain} team\n")
    return terms, "Updates to our terms of service", body
