"""`GET /api/oembed?url=`: the oEmbed answer for one of our statuses (Mastodon's
Api::OEmbedController and OEmbedSerializer), whose `html` frames the status's embed page. The
URL must be one of ours — this host, `/@username/:id` or `/users/username/statuses/:id` — and
the status public or unlisted; anything else is Mastodon's 404."""

from __future__ import annotations

import re
from typing import Any

from stratus.api.web.pages import Page
from stratus.api.web.status_page import visible_status
from stratus.core import hosts, urls
from stratus.core.config import settings
from stratus.core.errors import NotFound
from stratus.web import views
from stratus.web.render import render

DEFAULT_WIDTH = 400
CACHE_AGE = 86_400
PATHS = (re.compile(r"/@(?P<username>[A-Za-z0-9_]+)/(?P<id>[0-9]+)/?"),
         re.compile(r"/users/(?P<username>[A-Za-z0-9_]+)/statuses/(?P<id>[0-9]+)/?"))


def _dimension(raw: Any) -> int | None:
    """Ruby's `to_i` of `maxwidth` / `maxheight`: the leading digits, else none."""
    match = re.match(r"\s*([0-9]{1,5})", str(raw)) if raw is not None else None
    return int(match.group(1)) if match else None


def _status_of(url: Any) -> dict[str, Any]:
    """The Status entity a URL of ours names, if an anonymous reader may see it; else 404."""
    if not isinstance(url, str) or not url:
        raise NotFound()
    found = urls.parse(url.strip())
    if found is None or not hosts.ours(found.host):
        raise NotFound()
    path = found.path
    for pattern in PATHS:
        match = pattern.fullmatch(path)
        if match:
            found = visible_status(match["username"], match["id"])
            if isinstance(found, Page) or found.get("reblog"):
                raise NotFound()
            return found
    raise NotFound()


def oembed(url: Any, maxwidth: Any = None, maxheight: Any = None) -> dict[str, Any]:
    entity = _status_of(url)
    author = entity["account"]
    width = _dimension(maxwidth) or DEFAULT_WIDTH
    height = _dimension(maxheight)
    page = entity.get("url") or entity["uri"]
    return {"type": "rich", "version": "1.0", "author_name": views.name(author),
            "author_url": author["url"], "provider_name": settings().domain,
            "provider_url": f"{settings().base_url}/", "cache_age": CACHE_AGE,
            "html": render("oembed.html", src=f"{page}/embed", width=width, height=height,
                           author=views.name(author)).strip(),
            "width": width, "height": height}
