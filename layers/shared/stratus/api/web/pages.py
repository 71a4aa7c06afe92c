"""Server-rendered public pages (what the web function answers a browser), the default images,
and what they share: the page itself (`Page`), the local account a path names (404 unknown, 410
suspended, as Mastodon's AccountOwnedConcern), OpenGraph meta, the one render a minute.

Profile pages (`/@username`, `/@username/tagged/:hashtag`) show an account's header, avatar,
name, bio and fields with their custom emoji and verification marks, its pinned statuses and a
page of its statuses as an anonymous reader may see them (the account statuses API's listing,
replies left out), with the hashtags it features. Statuses come from read/ (the one visibility
policy) and are shown through web/views.py: user HTML is sanitised again before it is marked
safe, and the web function adds a Content-Security-Policy under which no script runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from stratus.api.instance import instance
from stratus.api.tags import featured_tags
from stratus.core.config import settings
from stratus.core.paging import page_params
from stratus.http import cache
from stratus.read import accounts as accounts_read
from stratus.read import settings as settings_service
from stratus.read import statuses as statuses_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import tags as tags_repo
from stratus.text import formatter, sanitize
from stratus.web import page_cache, views
from stratus.web.render import render

PROFILE_STATUSES = 20
HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Page:
    """A rendered answer: status, body, and the headers that belong to it."""

    status: int
    html: str
    cache: str | None = None
    media_type: str = HTML
    location: str | None = None  # a redirect
    links: tuple[str, ...] = ()  # `Link` header values
    embeddable: bool = False  # may be framed by other sites (the embed page)


def not_found_page() -> Page:
    return Page(404, not_found())


def gone_page() -> Page:
    return Page(410, render("message.html", heading="Gone", error=True,
                            message="This account is no longer available."),
                cache=cache.GONE_PAGE)


def once_a_minute(key: tuple[Any, ...], build) -> Page:
    """`build()`, rendered at most once a minute per warm process for `key` (web/page_cache)."""
    return page_cache.cached(key, build, keep=lambda page: page.status == 200)


def local_account(username: str) -> dict[str, dict[str, Any]] | Page:
    """The bundle of the local account `username` names, or the page answered instead: 404
    for an unknown (or not yet usable) account, 410 for a suspended one."""
    bundle = accounts_read.account_by_username(username)
    if bundle is None:
        return not_found_page()
    if bundle[accounts_repo.PROFILE].get("suspended_at"):
        return gone_page()
    return bundle


def normalized_tag(raw: str) -> str | None:
    """A hashtag as the API normalises it, if it is one some status used (Mastodon's
    `Tag.find_normalized!`), else None."""
    tag = formatter.normalize_tag(raw.lstrip("#"))
    if not tag or not formatter.HASHTAG.fullmatch("#" + tag) or not tags_repo.known(tag):
        return None
    return tag


def pages_around(items: list[dict[str, Any]], link_ids: list[str], *, paged: bool,
                 size: int) -> tuple[str | None, str | None]:
    """(newer, older) links of a page of statuses, newest first: newer ones when the page was
    asked by a cursor, older ones when it is full."""
    if not items or not link_ids:
        return None, None
    return ((f"?min_id={link_ids[0]}" if paged else None),
            f"?max_id={link_ids[-1]}" if len(items) >= size else None)


def alternate(rel: str, href: str, kind: str | None = None) -> dict[str, str | None]:
    return {"rel": rel, "href": href, "type": kind}


ACTIVITY_JSON = "application/activity+json"
LD_JSON = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'


def profile(username: str, tag: str | None = None, max_id: str | None = None,
            min_id: str | None = None) -> Page:
    """`/@username` and `/@username/tagged/:hashtag`: 404 for an unknown account, an invalid
    hashtag or one no status ever used; 410 for a suspended account."""
    return once_a_minute(("profile", username.lower(), tag, max_id, min_id),
                         lambda: _profile(username, tag, max_id, min_id))


def _profile(username: str, tag: str | None, max_id: str | None, min_id: str | None) -> Page:
    found = local_account(username)
    if isinstance(found, Page):
        return found
    tagged = None
    if tag is not None:
        tagged = normalized_tag(tag)
        if tagged is None:
            return not_found_page()
    entity = accounts_read.render(found)
    params: dict[str, Any] = {"exclude_replies": "true", "limit": PROFILE_STATUSES}
    if tagged:
        params["tagged"] = tagged
    for name, value in (("max_id", max_id), ("min_id", min_id)):
        if value:
            params[name] = value
    items, link_ids = statuses_read.account_statuses(
        None, entity["id"], params, page_params(params, default=PROFILE_STATUSES,
                                                 maximum=PROFILE_STATUSES))
    first_page = not (max_id or min_id)
    pinned = statuses_read.account_statuses(None, entity["id"], {"pinned": "true"},
                                            page_params({}))[0] \
        if first_page and not tagged else []
    newer, older = pages_around(items, link_ids, paged=not first_page,
                                 size=PROFILE_STATUSES)
    base = settings().base_url
    profile_url = entity["url"]
    feed = f"{profile_url}/tagged/{tagged}.rss" if tagged else f"{profile_url}.rss"
    meta = {
        "description": views.account_description(entity), "noindex": entity.get("noindex"),
        "og": [("og:type", "profile"), ("og:url", profile_url),
               ("og:site_name", settings_service.current()["site_title"]),
               ("og:title", f"{views.name(entity)} ({views.handle(entity)})"),
               ("og:description", views.account_description(entity)),
               ("og:image", entity["avatar"]), ("og:image:width", "400"),
               ("og:image:height", "400"), ("twitter:card", "summary"),
               ("profile:username", views.handle(entity)[1:])],
        "links": [alternate("alternate", feed, "application/rss+xml"),
                  alternate("alternate", entity["uri"], ACTIVITY_JSON),
                  alternate("alternate", entity["uri"], LD_JSON)]}
    html = render(
        "profile.html", account=views.account(entity), tagged=tagged, meta=meta, feed=feed,
        tag_url=f"{base}/tags/{tagged}" if tagged else None,
        featured=featured_tags.featured_for_profile(entity["id"], entity["username"]),
        pinned=[views.status(s) for s in pinned],
        statuses=[views.status(s) for s in items], newer=newer, older=older)
    webfinger = f"{base}/.well-known/webfinger?resource=acct:{entity['username']}@" \
        f"{settings().domain}"
    return Page(200, html, cache=cache.PAGE_15_S, links=(
        f'<{webfinger}>; rel="lrdd"; type="application/jrd+json"',
        f'<{entity["uri"]}>; rel="alternate"; type="{ACTIVITY_JSON}"'))


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
        return not_found_page()
    note = (f"In effect since {terms['effective_date']}" if terms["effective"]
            else f"In effect from {terms['effective_date']}")
    return Page(200, render("document.html", heading="Terms of Service", note=note,
                            content=sanitize.clean(terms["content"], rich=True)))


@lru_cache(maxsize=4)
def placeholder_image(width: int, height: int) -> bytes:
    return instance.solid_png(width, height, (0x9B, 0xA3, 0xAF))
