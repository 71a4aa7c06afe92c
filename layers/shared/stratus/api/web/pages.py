"""Server-rendered public pages and the default images.

Profile pages (`/@username`, `/@username/tagged/:hashtag`) show an account's recent statuses as
an anonymous reader may see them (the account statuses API's listing, replies left out), with
the hashtags it features. Everything user-written is either escaped by the template or, for the
HTML a status or profile carries, cleaned again with the strict sanitiser before it is marked
safe; the web function adds a Content-Security-Policy that runs no script at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from stratus.api.instance import instance
from stratus.api.tags import featured_tags
from stratus.core.config import settings
from stratus.core.paging import page_params
from stratus.read import accounts as accounts_read
from stratus.read import settings as settings_service
from stratus.read import statuses as statuses_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import tags as tags_repo
from stratus.text import formatter, sanitize
from stratus.web.render import render

PROFILE_STATUSES = 20


@dataclass(frozen=True)
class Page:
    status: int
    html: str


def _not_found() -> Page:
    return Page(404, not_found())


def _clean(markup: str | None) -> str:
    return sanitize.clean(markup or "")


def _status_view(status: dict[str, Any]) -> dict[str, Any]:
    shown = status.get("reblog") or status
    return {"url": shown.get("url"), "created_at": shown["created_at"],
            "account": shown["account"], "boosted": status.get("reblog") is not None,
            "spoiler_text": shown.get("spoiler_text") or "",
            "content": _clean(shown.get("content")),
            "media": [{"url": m.get("url"), "preview_url": m.get("preview_url") or m.get("url"),
                       "description": m.get("description") or ""}
                      for m in shown.get("media_attachments", []) if m.get("type") == "image"]}


def profile(username: str, tag: str | None = None, max_id: str | None = None) -> Page:
    """`/@username` and `/@username/tagged/:hashtag`: 404 for an unknown (or not yet usable)
    account, an invalid hashtag or one no status ever used; 410 for a suspended account
    (Mastodon's permanently unavailable account)."""
    bundle = accounts_read.account_by_username(username)
    if bundle is None:
        return _not_found()
    profile_item = bundle[accounts_repo.PROFILE]
    if profile_item.get("suspended_at"):
        return Page(410, render("message.html", heading="Gone", error=True,
                                message="This account is no longer available."))
    tagged = None
    if tag is not None:
        # normalised as the account statuses API's `tagged` is
        tagged = formatter.normalize_tag(tag.lstrip("#"))
        if not formatter.HASHTAG.fullmatch("#" + tagged) or not tags_repo.known(tagged):
            return _not_found()
    account = accounts_read.render(bundle)
    params: dict[str, Any] = {"exclude_replies": "true", "limit": PROFILE_STATUSES}
    if tagged:
        params["tagged"] = tagged
    if max_id:
        params["max_id"] = max_id
    items, link_ids = statuses_read.account_statuses(
        None, account["id"], params, page_params(params, default=PROFILE_STATUSES,
                                                 maximum=PROFILE_STATUSES))
    older = None
    if items and link_ids:
        older = f"?max_id={link_ids[-1]}"
    return Page(200, render(
        "profile.html", account=account, domain=settings().domain, tagged=tagged,
        note=_clean(account.get("note")),
        fields=[{"name": _clean(f["name"]), "value": _clean(f["value"])}
                for f in account.get("fields", [])],
        featured=featured_tags.featured_for_profile(account["id"], account["username"]),
        statuses=[_status_view(s) for s in items], older=older))


def not_found() -> str:
    return render("message.html", heading="Not found", error=True,
                  message="The page you are looking for isn't here.")


def about() -> str:
    s = settings_service.current()
    return render("about.html", description=s["site_description"],
                  extended=instance.extended_description()["content"],
                  rules=settings_service.rules(), contact=s["contact_email"])


def privacy_policy() -> Page:
    """`/privacy-policy`, the page `configuration.urls.privacy_policy` names."""
    policy = instance.privacy_policy()
    return Page(200, render("document.html", heading="Privacy Policy",
                            note=f"Last updated {policy['updated_at'][:10]}",
                            content=sanitize.clean(policy["content"], rich=True)))


def terms_of_service(effective_date: str | None = None) -> Page:
    """`/terms-of-service` (the terms in effect, or the next) and `/terms-of-service/:date`
    (the version effective from that date), the pages the API and the users' mail name."""
    from stratus.core.errors import NotFound

    try:
        terms = instance.terms_of_service(effective_date)
    except NotFound:
        return _not_found()
    note = (f"In effect since {terms['effective_date']}" if terms["effective"]
            else f"In effect from {terms['effective_date']}")
    return Page(200, render("document.html", heading="Terms of Service", note=note,
                            content=sanitize.clean(terms["content"], rich=True)))


@lru_cache(maxsize=4)
def placeholder_image(width: int, height: int) -> bytes:
    return instance.solid_png(width, height, (0x9B, 0xA3, 0xAF))
