"""RSS 2.0 feeds of an account (`/@username.rss`, `/@username/tagged/:tag.rss`) and of a hashtag
(`/tags/:name.rss`), as Mastodon's `accounts/show.rss` and `tags/show.rss` build them: the
newest public and unlisted statuses of the account without replies or boosts (a hashtag: its
public statuses), `?limit` up to 200, each item with its link, date, HTML description (content
warning and poll around the content), Media RSS content for every attachment, an enclosure for
audio, and its hashtags as categories. Written with ElementTree: every value is escaped."""

from __future__ import annotations

import mimetypes
from email.utils import format_datetime
from typing import Any
from xml.etree import ElementTree

from stratus.api.timelines import timelines
from stratus.api.web.pages import Page, local_account, normalized_tag, not_found_page, \
    once_a_minute
from stratus.core import clock
from stratus.core.config import settings
from stratus.core.paging import page_params
from stratus.http import cache
from stratus.read import accounts as accounts_read
from stratus.read import statuses as statuses_read
from stratus.web import views
from stratus.web.render import render

DEFAULT_LIMIT = 20
MAX_LIMIT = 200
RSS = "application/rss+xml; charset=utf-8"
MEDIA = "http://search.yahoo.com/mrss/"
WEBFEEDS = "http://webfeeds.org/rss/1.0"
ElementTree.register_namespace("media", MEDIA)
ElementTree.register_namespace("webfeeds", WEBFEEDS)


def limit_of(raw: str | None) -> int:
    """`?limit`: Mastodon's `[params[:limit].to_i, 200].min`, 20 when absent or not a number."""
    try:
        return max(1, min(int(raw), MAX_LIMIT)) if raw else DEFAULT_LIMIT
    except ValueError:
        return DEFAULT_LIMIT


def _sub(parent: ElementTree.Element, tag: str, text: str | None = None,
         **attributes: str) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, tag, {k: v for k, v in attributes.items()})
    if text:
        element.text = text
    return element


def _date(iso: str) -> str:
    return format_datetime(clock.parse_iso(iso))


def _item(channel: ElementTree.Element, entity: dict[str, Any]) -> None:
    item = _sub(channel, "item")
    url = entity.get("url") or entity["uri"]
    _sub(item, "guid", url, isPermaLink="true")
    _sub(item, "link", url)
    _sub(item, "pubDate", _date(entity["created_at"]))
    _sub(item, "description", render("feed_item.html", status=views.status(entity)))
    media = entity.get("media_attachments") or []
    first = media[0] if media else None
    if first and first.get("type") == "audio" and first.get("url"):
        _sub(item, "enclosure", url=first["url"], length="0",
             type=mimetypes.guess_type(first["url"])[0] or "audio/mpeg")
    for attachment in media:
        if not attachment.get("url"):
            continue
        content = _sub(item, f"{{{MEDIA}}}content", url=attachment["url"],
                       type=mimetypes.guess_type(attachment["url"])[0] or
                       "application/octet-stream",
                       medium="image" if attachment.get("type") in ("gifv", "unknown")
                       else attachment.get("type", "image"))
        _sub(content, f"{{{MEDIA}}}rating", "adult" if entity.get("sensitive") else "nonadult",
             scheme="urn:simple")
        if attachment.get("description"):
            _sub(content, f"{{{MEDIA}}}description", attachment["description"], type="plain")
        if attachment.get("preview_url"):
            _sub(content, f"{{{MEDIA}}}thumbnail", url=attachment["preview_url"])
    for tag in entity.get("tags", []):
        _sub(item, "category", tag["name"])


def _feed(title: str, description: str, link: str, statuses: list[dict[str, Any]],
          image: str | None = None) -> str:
    rss = ElementTree.Element("rss", {"version": "2.0"})
    channel = _sub(rss, "channel")
    _sub(channel, "title", title)
    _sub(channel, "description", description)
    _sub(channel, "link", link)
    if image:
        picture = _sub(channel, "image")
        _sub(picture, "url", image)
        _sub(picture, "title", title)
        _sub(picture, "link", link)
    if statuses:
        _sub(channel, "lastBuildDate", _date(statuses[0]["created_at"]))
    if image:
        _sub(channel, f"{{{WEBFEEDS}}}icon", image)
    _sub(channel, "generator", "Stratus")
    for entity in statuses:
        _item(channel, entity)
    return ElementTree.tostring(rss, encoding="unicode", xml_declaration=True)


def account(username: str, tag: str | None = None, limit: str | None = None) -> Page:
    count = limit_of(limit)
    return once_a_minute(("account.rss", username.lower(), tag, count),
                         lambda: _account(username, tag, count))


def _account(username: str, tag: str | None, count: int) -> Page:
    found = local_account(username)
    if isinstance(found, Page):
        return found
    entity = accounts_read.render(found)
    params: dict[str, Any] = {"exclude_replies": "true", "exclude_reblogs": "true",
                              "limit": count}
    link = entity["url"]
    if tag is not None:
        tagged = normalized_tag(tag)
        if tagged is None:
            return not_found_page()
        params["tagged"] = tagged
        link = f"{link}/tagged/{tagged}"
    items, _ = statuses_read.account_statuses(None, entity["id"], params, page_params(
        params, default=DEFAULT_LIMIT, maximum=MAX_LIMIT))
    body = _feed(views.name(entity), f"Public posts from {views.handle(entity)}", link,
                 items, image=entity["avatar"])
    return Page(200, body, cache=cache.ACCOUNT_FEED, media_type=RSS)


def tag(name: str, limit: str | None = None, local: bool = False) -> Page:
    count = limit_of(limit)
    return once_a_minute(("tag.rss", name, count, local), lambda: _tag(name, count, local))


def _tag(name: str, count: int, local: bool) -> Page:
    tagged = normalized_tag(name)
    if tagged is None:
        return not_found_page()
    params: dict[str, Any] = {"limit": count}
    if local:
        params["local"] = "true"
    items, _ = timelines.tag(None, tagged, params, page_params(
        params, default=DEFAULT_LIMIT, maximum=MAX_LIMIT))
    body = _feed(f"#{tagged}", f"Public posts tagged #{tagged}",
                 f"{settings().base_url}/tags/{tagged}", items)
    return Page(200, body, cache=cache.TAG_FEED, media_type=RSS)
