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


# Mastodon's CLASS_WHITELIST_RE: microformats (`h-card`, `u-url`…) and the classes its own
# markup uses for mentions, hashtags and shortened links; any other class is dropped.
_KEPT_CLASS = re.compile(r"^(?:(?:h|p|u|dt|e)-[\w-]+|mention|hashtag|ellipsis|invisible)$")


def _remote_attribute(element: str, attribute: str, value: str) -> str | None:
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
    mention, hashtag and shortened-link spans survive."""
    import nh3

    return nh3.clean(markup, tags=STRICT_TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES,
                     link_rel="nofollow noopener", attribute_filter=_remote_attribute,
                     clean_content_tags={"script", "style"},
                     set_tag_attribute_values={"a": {"target": "_blank"}})
