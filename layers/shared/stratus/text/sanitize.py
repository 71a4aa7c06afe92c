"""HTML sanitising with nh3 (ammonia): only the markup Mastodon lets through survives."""

from __future__ import annotations

import html
import re

# Mastodon's Sanitize::Config::MASTODON_STRICT elements, plus block elements used by the
# extended description (Mastodon renders that from Markdown).
STRICT_TAGS = {"p", "br", "span", "a", "del", "s", "pre", "blockquote", "code", "b", "strong",
               "u", "i", "em", "ul", "ol", "li"}
RICH_TAGS = STRICT_TAGS | {"h1", "h2", "h3", "h4", "h5", "h6", "hr"}
ATTRIBUTES = {"a": {"href", "class", "translate", "target"}, "span": {"class", "translate"},
              "ol": {"start", "reversed"}, "li": {"value"}}
URL_SCHEMES = {"http", "https", "mailto", "xmpp", "gopher", "dat", "dweb", "ipfs", "ipns",
               "ssb", "magnet", "gemini"}


def clean(markup: str, *, rich: bool = False) -> str:
    import nh3

    return nh3.clean(markup, tags=RICH_TAGS if rich else STRICT_TAGS, attributes=ATTRIBUTES,
                     url_schemes=URL_SCHEMES, link_rel="nofollow noopener")


def markdown_document(text: str, *, raw_html: bool) -> str:
    """An instance document written in Markdown, as HTML (Mastodon's Redcarpet renderings):
    the extended description lets the HTML written in it through (`raw_html`), the privacy
    policy and the terms of service escape it; images are never shown (`no_images`). Then
    cleaned with the rich sanitiser, whatever was written."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": raw_html}).enable(
        "strikethrough").disable("image").render(text or "")
    return clean(rendered, rich=True).strip()


def plain_to_html(text: str) -> str:
    """Plain text → paragraphs and line breaks, escaped."""
    paragraphs = [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return "".join("<p>" + html.escape(p.strip()).replace("\n", "<br>") + "</p>"
                   for p in paragraphs)


# Mastodon's LINK_PROTOCOLS (Sanitize::Config): the only schemes a remote link keeps. A link
# with another scheme, or a relative one (`/settings`, `//evil`, `evil.html`: they would open
# on our own domain, or on a host the link text does not show), loses its element and keeps
# its text, as Mastodon's UNSUPPORTED_HREF_TRANSFORMER replaces it.
LINK_PROTOCOLS = frozenset({"http", "https", "dat", "dweb", "ipfs", "ipns", "ssb", "gopher",
                            "xmpp", "magnet", "gemini"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_DEAD_LINK = re.compile(r'<a(?![^>]*\shref=")[\s>]')  # an `a` start tag nh3 left without href

# Mastodon's CLASS_WHITELIST_RE: microformats (`h-card`, `u-url`…) and the classes its own
# markup uses for mentions, hashtags and shortened links; any other class is dropped.
_KEPT_CLASS = re.compile(r"^(?:(?:h|p|u|dt|e)-[\w-]+|mention|hashtag|ellipsis|invisible)$")


def _remote_attribute(element: str, attribute: str, value: str) -> str | None:
    if attribute == "href":
        scheme = _SCHEME.match(value)  # no leading blank either: Mastodon drops ` https://…`
        return value if scheme and scheme.group(1).lower() in LINK_PROTOCOLS else None
    if attribute == "class":
        kept = " ".join(c for c in value.split() if _KEPT_CLASS.match(c))
        return kept or None
    if attribute == "target":
        return "_blank"  # links get Mastodon's own target and rel
    return value


def clean_remote(markup: str) -> str:
    """HTML from another server (a status's content, a bio) as Mastodon sanitises it
    (Sanitize::Config::MASTODON_STRICT): the strict elements, links to the allowed schemes
    with `rel="nofollow noopener"` and `target="_blank"`, only the whitelisted classes, so
    mention, hashtag and shortened-link spans survive. A link without an href of Mastodon's
    LINK_PROTOCOLS (relative ones included) becomes its text."""
    import nh3

    cleaned = nh3.clean(markup, tags=STRICT_TAGS, attributes=ATTRIBUTES,
                        url_schemes=set(LINK_PROTOCOLS), url_relative="deny",
                        link_rel="nofollow noopener", attribute_filter=_remote_attribute,
                        clean_content_tags={"script", "style"},
                        set_tag_attribute_values={"a": {"target": "_blank"}})
    return _unwrap_dead_links(cleaned) if _DEAD_LINK.search(cleaned) else cleaned


def _unwrap_dead_links(cleaned: str) -> str:
    """The sanitised markup with each `a` that has no href replaced by its content (nh3 can
    drop an attribute, not the element). Parsed again in body context, so text is kept as
    it is, leading blanks included."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser("<body>" + cleaned)
    for link in tree.css("a:not([href])"):
        link.unwrap()
    return tree.body.inner_html if tree.body is not None else ""
