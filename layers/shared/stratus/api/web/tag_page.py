"""A hashtag's page (`/tags/:name`, the `url` of every Tag the API renders): the public
statuses that use it, from here and elsewhere, newest first, as the hashtag timeline shows an
anonymous reader (api/timelines: the one visibility policy; silenced accounts left out). 404
for what is not a hashtag or one no status ever used (Mastodon's `Tag.find_normalized!`)."""

from __future__ import annotations

from typing import Any

from stratus.api.timelines import timelines
from stratus.api.web.pages import (Page, alternate, normalized_tag, not_found_page,
                                   once_a_minute, pages_around)
from stratus.core.config import settings
from stratus.core.paging import page_params
from stratus.http import cache
from stratus.read import settings as settings_service
from stratus.web import views
from stratus.web.render import render

TAG_STATUSES = 20


def page(name: str, max_id: str | None = None, min_id: str | None = None) -> Page:
    return once_a_minute(("tag", name, max_id, min_id), lambda: _page(name, max_id, min_id))


def _page(name: str, max_id: str | None, min_id: str | None) -> Page:
    tag = normalized_tag(name)
    if tag is None:
        return not_found_page()
    params: dict[str, Any] = {"limit": TAG_STATUSES}
    for key, value in (("max_id", max_id), ("min_id", min_id)):
        if value:
            params[key] = value
    items, link_ids = timelines.tag(None, tag, params, page_params(
        params, default=TAG_STATUSES, maximum=TAG_STATUSES))
    newer, older = pages_around(items, link_ids, paged=bool(max_id or min_id),
                                 size=TAG_STATUSES)
    url = f"{settings().base_url}/tags/{tag}"
    site = settings_service.current()
    description = f"Public posts tagged #{tag}"
    meta = {"description": description, "noindex": True,
            "og": [("og:site_name", site["site_title"]), ("og:url", url),
                   ("og:type", "website"), ("og:title", f"#{tag}"),
                   ("og:description", description), ("twitter:card", "summary")],
            "links": [alternate("alternate", f"{url}.rss", "application/rss+xml")]}
    html = render("tag.html", tag=tag, meta=meta, feed=f"{url}.rss",
                  statuses=[views.status(s) for s in items], newer=newer, older=older)
    return Page(200, html, cache=cache.PAGE_15_S)
