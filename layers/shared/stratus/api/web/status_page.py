"""A status's own page (`/@username/:id`, the `url` every client opens and shares) and its
embed (`/@username/:id/embed`), as Mastodon's StatusesController answers a browser.

The status is read as an anonymous reader may see it (read/statuses.show: the one visibility
policy), so only public and unlisted statuses have a page; a private or direct status, one of
another account, a deleted one and anything not an id answer the 404 page, a suspended author
the 410 page, never a word of the status. A boost redirects to what it boosts. The page shows the
thread around the status (read/statuses.context, an anonymous reader's limits) and carries the
OpenGraph and Twitter meta that preview cards on other servers and chat apps read
(Mastodon's `statuses/show`, `_og_description`, `_og_image`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from stratus.api.web.pages import (ACTIVITY_JSON, LD_JSON, Page, alternate, local_account,
                                   not_found_page, once_a_minute)
from stratus.core import ids
from stratus.core.config import settings
from stratus.core.errors import NotFound
from stratus.http import cache
from stratus.read import settings as settings_service
from stratus.read import statuses as statuses_read
from stratus.read.filters import plain_text
from stratus.repo import accounts as accounts_repo
from stratus.web import views
from stratus.web.render import render

TITLE_QUOTE = 50  # characters of the text or warning in the title (Mastodon's truncate)


def visible_status(username: str, status_id: str) -> dict[str, Any] | Page:
    """The Status entity `username`'s `status_id` names, if an anonymous reader may see it,
    or the page answered instead."""
    found = local_account(username)
    if isinstance(found, Page):
        return found
    if not ids.is_id(status_id):
        return not_found_page()
    try:
        entity = statuses_read.show(None, status_id)
    except NotFound:
        return not_found_page()
    if entity["account"]["id"] != str(found[accounts_repo.PROFILE]["id"]):
        return not_found_page()  # Mastodon's `@account.statuses.find`
    return entity


def _title(entity: dict[str, Any]) -> str:
    quoted = entity.get("spoiler_text") or plain_text(entity.get("content") or "")
    quoted = " ".join(quoted.split())
    if len(quoted) > TITLE_QUOTE:
        quoted = quoted[:TITLE_QUOTE - 1] + "…"
    return f'{views.name(entity["account"])}: "{quoted}"'


def _og_media(entity: dict[str, Any]) -> list[tuple[str, str]]:
    """Mastodon's `_og_image`: the media of a status that is not sensitive, else none."""
    media = entity.get("media_attachments") or []
    if not media or entity.get("sensitive"):
        return [("twitter:card", "summary")]
    og: list[tuple[str, str]] = []
    player = False
    for item in media:
        original = (item.get("meta") or {}).get("original") or {}
        if item.get("type") == "image" and item.get("url"):
            og.append(("og:image", item["url"]))
            if original.get("width") and original.get("height"):
                og += [("og:image:width", str(original["width"])),
                       ("og:image:height", str(original["height"]))]
            if item.get("description"):
                og.append(("og:image:alt", item["description"]))
        elif item.get("type") in ("video", "gifv") and item.get("url"):
            player = True
            og += [("og:image", item.get("preview_url") or ""), ("og:video", item["url"]),
                   ("og:video:secure_url", item["url"])]
        elif item.get("type") == "audio" and item.get("url"):
            player = True
            og += [("og:image", entity["account"]["avatar"]), ("og:audio", item["url"]),
                   ("og:audio:secure_url", item["url"])]
    og.append(("twitter:card", "player" if player else "summary_large_image"))
    return og


def page(username: str, status_id: str) -> Page:
    return once_a_minute(("status", username.lower(), status_id),
                         lambda: _page(username, status_id))


def _page(username: str, status_id: str) -> Page:
    entity = visible_status(username, status_id)
    if isinstance(entity, Page):
        return entity
    if entity.get("reblog"):
        return Page(302, "", location=entity["reblog"].get("url") or entity["reblog"]["uri"])
    thread = statuses_read.context(None, entity["id"])
    author = entity["account"]
    url = entity.get("url") or entity["uri"]
    description = views.status_description(entity)
    og = [("og:site_name", settings_service.current()["site_title"]), ("og:type", "article"),
          ("og:title", f"{views.name(author)} ({views.handle(author)})"), ("og:url", url),
          ("og:published_time", entity["created_at"])]
    if entity.get("language"):
        og.append(("og:locale", entity["language"]))
    og += [("profile:username", views.handle(author)[1:]), ("og:description", description),
           *_og_media(entity)]
    oembed = f"{settings().base_url}/api/oembed?url={quote(url, safe='')}&format=json"
    meta = {"description": description, "noindex": author.get("noindex"), "og": og,
            "links": [alternate("alternate", oembed, "application/json+oembed"),
                      alternate("alternate", entity["uri"], ACTIVITY_JSON),
                      alternate("alternate", entity["uri"], LD_JSON)]}
    html = render("status.html", title=_title(entity), meta=meta,
                  status=views.status(entity),
                  ancestors=[views.status(s) for s in thread["ancestors"]],
                  descendants=[views.status(s) for s in thread["descendants"]])
    return Page(200, html, cache=cache.STATUS_PAGE,
                links=(f'<{entity["uri"]}>; rel="alternate"; type="{ACTIVITY_JSON}"',))


def embed(username: str, status_id: str) -> Page:
    """`/@username/:id/embed`: the status alone, for other sites to frame (Mastodon's
    `statuses#embed`: 404 for a boost or a status that is not public or unlisted)."""
    return once_a_minute(("embed", username.lower(), status_id),
                         lambda: _embed(username, status_id))


def _embed(username: str, status_id: str) -> Page:
    entity = visible_status(username, status_id)
    if isinstance(entity, Page):
        return entity
    if entity.get("reblog"):
        return not_found_page()
    html = render("embed.html", title=_title(entity), status=views.status(entity),
                  domain=settings().domain)
    return Page(200, html, cache=cache.EMBED_PAGE, embeddable=True)
