"""What a linked page says about itself, for its preview card (Mastodon's LinkDetailsExtractor
and FetchOEmbedService, read for behaviour): pure functions of the page's bytes, no I/O.

The page is parsed with selectolax's Lexbor engine (an HTML5 tree builder, as browsers parse).
In order of preference, as Mastodon: JSON-LD (`NewsArticle` / `WebPage`), OpenGraph and Twitter
meta tags, then plain HTML (`<title>`, `<meta name="description">`, `<html lang>`). A page may
point to an oEmbed endpoint (`<link type="application/json+oembed">`); its answer, when usable,
makes the card instead (`from_oembed`). Embedded players end up as an `<iframe>` (and
`<video>`/`<audio>`) allowlist, sanitised with nh3: no script, no handler, http(s) sources only.
"""

from __future__ import annotations

import codecs
import html
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from stratus.core import urls

from stratus.core import jsondoc

TITLE_LIMIT = 2000  # bounds on what one card item stores (the page controls these strings)
TEXT_LIMIT = 4000
URL_LIMIT = 2048
HTML_LIMIT = 4000
SUPPORTED_LD_TYPES = ("NewsArticle", "WebPage")
_CDATA_JUNK = re.compile(r"^\s*(/\*\s*<!\[CDATA\[\s*\*/|//\s*<!\[CDATA\["
                         r"|/\*\s*\]\]>\s*\*/|//\s*\]\]>)\s*$", re.MULTILINE)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_LANGUAGE = re.compile(r"^([a-zA-Z]{2,3})(?:[-_].*)?$")

# Mastodon's Sanitize::Config::MASTODON_OEMBED, minus <embed> (a plugin) and RELAXED's text
# markup: players only.
EMBED_TAGS = {"iframe", "audio", "video", "source"}
EMBED_ATTRIBUTES = {"iframe": {"allowfullscreen", "frameborder", "height", "scrolling", "src",
                               "width"},
                    "audio": {"controls"}, "video": {"controls", "height", "loop", "width"},
                    "source": {"src", "type"}}


@dataclass
class Details:
    """A card's fields as stored (the PreviewCard entity renders from them)."""

    url: str  # the page's canonical URL (same origin as the link), else the link
    title: str = ""
    description: str = ""
    type: str = "link"  # link | photo | video | rich
    link_type: str = "unknown"  # article | unknown (og:type=article or a NewsArticle)
    html: str = ""
    width: int = 0
    height: int = 0
    image_url: str | None = None  # the remote image, fetched and stored separately
    image_description: str = ""
    provider_name: str = ""
    provider_url: str = ""
    author_name: str = ""
    author_url: str = ""
    embed_url: str = ""
    language: str | None = None
    published_at: str | None = None

    def fields(self) -> dict[str, Any]:
        return asdict(self)


# --- bytes to text ------------------------------------------------------------------------------
def _codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode(body: bytes, charset: str | None) -> str:
    """The page as text: a BOM, else the Content-Type charset, else a <meta> charset in the
    first 1024 bytes, else UTF-8 (undecodable bytes replaced)."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                      (codecs.BOM_UTF16_BE, "utf-16-be")):
        if body.startswith(bom):
            return body[len(bom):].decode(name, "replace")
    declared = _META_CHARSET.search(body[:1024])
    name = _codec(charset) or _codec(declared.group(1).decode("ascii") if declared else None)
    return body.decode(name or "utf-8", "replace")


# --- helpers ------------------------------------------------------------------------------------
def _clip(value: Any, limit: int) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def _absolute(base: str, value: Any, *, same_origin: bool = False) -> str | None:
    """An http(s) URL relative to `base` (Mastodon's valid_url_or_nil)."""
    if not isinstance(value, str) or not value.strip() or value.strip() == "null":
        return None
    found = urls.parse(value.strip(), base)  # as a browser resolves it (core/urls.py)
    if found is None or len(found.href) > URL_LIMIT:
        return None
    page = urls.parse(base)
    if same_origin and (page is None or found.name != page.name):
        return None
    return found.href


# A player's width or height: Mastodon's preview_cards columns are 32-bit integers.
MAX_DIMENSION = 2**31 - 1


def _number(value: Any) -> int:
    """A width or height (an HTML attribute's text or a JSON number) within 0..MAX_DIMENSION,
    else 0 (a number past DynamoDB's 38 digits would make the card's write fail)."""
    try:
        number = value if isinstance(value, (int, float)) else int(str(value).strip())
    except (TypeError, ValueError):
        return 0
    return jsondoc.bounded_int(number, 0, MAX_DIMENSION) or 0


def _language(value: Any) -> str | None:
    match = _LANGUAGE.match(value.strip()) if isinstance(value, str) else None
    return match.group(1).lower() if match else None


def _published(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def sanitize_embed(markup: str) -> str:
    """A player's HTML with only the player allowlist left (nh3)."""
    import nh3

    if not markup:
        return ""
    return nh3.clean(markup, tags=EMBED_TAGS, attributes=EMBED_ATTRIBUTES,
                     url_schemes={"http", "https"}, link_rel=None)[:HTML_LIMIT]


def _iframe(src: str, width: int, height: int) -> str:
    return sanitize_embed(
        f'<iframe src="{html.escape(src, quote=True)}" width="{width}" height="{height}" '
        'allowfullscreen="true" frameborder="0" scrolling="no"></iframe>')


# --- the page -----------------------------------------------------------------------------------
class Page:
    """A parsed HTML page and the link it was fetched for."""

    def __init__(self, url: str, text: str) -> None:
        from selectolax.lexbor import LexborHTMLParser

        self.url = url
        self.tree = LexborHTMLParser(text)
        self._structured: dict[str, Any] | None = None

    def meta(self, name: str) -> str | None:
        """The first non-empty `content` of <meta property=name> or <meta name=name>."""
        for node in self.tree.css("meta"):
            attributes = node.attributes
            if name in (attributes.get("property"), attributes.get("name")):
                content = attributes.get("content")
                if content and content.strip():
                    return content
        return None

    def link(self, rel: str, kind: str | None = None) -> str | None:
        for node in self.tree.css("link"):
            attributes = node.attributes
            rels = (attributes.get("rel") or "").lower().split()
            if (rel in rels if rel else True) and (kind is None or
                                                  (attributes.get("type") or "").lower() == kind):
                href = attributes.get("href")
                if href and href.strip():
                    return href
        return None

    def title_tag(self) -> str | None:
        node = self.tree.css_first("title")
        return node.text() if node is not None else None

    def html_lang(self) -> str | None:
        node = self.tree.css_first("html")
        return node.attributes.get("lang") if node is not None else None

    def structured(self) -> dict[str, Any]:
        """The first JSON-LD object of a supported type (NewsArticle, WebPage), or {}."""
        if self._structured is None:
            self._structured = {}
            for node in self.tree.css('script[type="application/ld+json"]'):
                source = _CDATA_JUNK.sub("", node.text() or "").strip()
                if not source:
                    continue
                try:
                    data = jsondoc.loads(source)
                except ValueError:  # not JSON, nested too deeply, NaN or 1e999
                    continue
                roots = data if isinstance(data, list) else [data]
                found = next((o for o in roots if isinstance(o, dict)
                              and o.get("@type") in SUPPORTED_LD_TYPES), None)
                if found:
                    self._structured = found
                    break
        return self._structured

    def oembed_endpoint(self) -> str | None:
        """The JSON oEmbed endpoint the page names (https when the page came over https)."""
        href = self.link("alternate", "application/json+oembed") or \
            self.link("", "application/json+oembed")
        url = _absolute(self.url, href)
        if url and self.url.startswith("https:") and url.startswith("http:"):
            url = "https:" + url[len("http:"):]
        return url


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def parse_html(url: str, body: bytes, charset: str | None) -> tuple[Details | None, str | None]:
    """(the card the page's own metadata makes — None without a title or a player — and the
    oEmbed endpoint it names)."""
    page = Page(url, decode(body, charset))
    ld = page.structured()
    author = _first(ld.get("author")) if ld else None
    author = author if isinstance(author, dict) else {}
    publisher = _first(ld.get("publisher")) if ld else None
    publisher = publisher if isinstance(publisher, dict) else {}
    image = _first(ld.get("image")) if ld else None
    player = _absolute(url, page.meta("twitter:player"))
    width, height = _number(page.meta("twitter:player:width")), \
        _number(page.meta("twitter:player:height"))
    language = ld.get("inLanguage") if ld else None
    language = _first(language)
    if isinstance(language, dict):
        language = language.get("alternateName") or language.get("name")
    details = Details(
        url=_absolute(url, page.link("canonical") or page.meta("og:url"), same_origin=True)
        or url,
        title=_clip(ld.get("headline") if isinstance(ld.get("headline"), str) else
                    page.meta("og:title") or page.title_tag(), TITLE_LIMIT),
        description=_clip(ld.get("description") if isinstance(ld.get("description"), str)
                          else page.meta("og:description") or page.meta("description"),
                          TEXT_LIMIT),
        type="video" if player else "link",
        link_type="article" if ld.get("@type") == "NewsArticle"
        or (page.meta("og:type") or "").strip() == "article" else "unknown",
        html=_iframe(player, width, height) if player else "",
        width=width if player else 0, height=height if player else 0,
        image_url=_absolute(url, page.meta("og:image")) or _absolute(
            url, image.get("url") if isinstance(image, dict) else image),
        image_description=_clip(page.meta("og:image:alt"), TEXT_LIMIT),
        provider_name=_clip(publisher.get("name") or page.meta("og:site_name"), TITLE_LIMIT),
        provider_url=_absolute(url, _site_url(page.meta("og:site"))) or "",
        author_name=_clip(author.get("name") or page.meta("og:author")
                          or page.meta("og:author:username"), TITLE_LIMIT),
        author_url=_absolute(url, author.get("url")) or "",
        embed_url=_absolute(url, page.meta("twitter:player:stream")) or "",
        language=_language(language or page.meta("og:locale") or page.html_lang()),
        published_at=_published(ld.get("datePublished") or
                                page.meta("article:published_time")),
    )
    usable = bool(details.title) or bool(details.html)
    return (details if usable else None), page.oembed_endpoint()


def _site_url(value: str | None) -> str | None:
    if not value or not value.strip():
        return None
    value = value.strip()
    return value if re.match(r"^https?://", value) else f"http://{value}"


def from_oembed(data: Any, endpoint: str, page_url: str) -> Details | None:
    """The card an oEmbed answer makes (version 1.0 with a type), or None when it makes none
    (Mastodon: a `photo` without `url`; a `rich` or `video` whose HTML has no player left
    after sanitising)."""
    if not isinstance(data, dict) or str(data.get("version")) != "1.0" or not data.get("type"):
        return None
    kind = data["type"]
    details = Details(
        url=page_url, type=kind if kind in ("link", "photo", "video", "rich") else "link",
        title=_clip(data.get("title"), TITLE_LIMIT),
        author_name=_clip(data.get("author_name"), TITLE_LIMIT),
        author_url=_absolute(endpoint, data.get("author_url")) or "",
        provider_name=_clip(data.get("provider_name"), TITLE_LIMIT),
        provider_url=_absolute(endpoint, data.get("provider_url")) or "")
    if details.type == "link":
        details.image_url = _absolute(endpoint, data.get("thumbnail_url"))
    elif details.type == "photo":
        photo = _absolute(endpoint, data.get("url"))
        if photo is None:
            return None
        details.embed_url = details.image_url = photo
        details.width, details.height = _number(data.get("width")), _number(data.get("height"))
    else:  # video, rich: a player, if sanitising leaves one
        markup = sanitize_embed(data.get("html") if isinstance(data.get("html"), str) else "")
        if "<iframe" not in markup and "<video" not in markup and "<audio" not in markup:
            return None
        details.html = markup
        details.width, details.height = _number(data.get("width")), _number(data.get("height"))
        details.image_url = _absolute(endpoint, data.get("thumbnail_url"))
    return details


def parse_oembed(body: bytes) -> Any:
    try:
        return jsondoc.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return None
