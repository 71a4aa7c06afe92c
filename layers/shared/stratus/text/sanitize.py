"""HTML sanitising with nh3 (ammonia): only the markup Mastodon lets through survives."""

from __future__ import annotations

import html

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


def plain_to_html(text: str) -> str:
    """Plain text → paragraphs and line breaks, escaped."""
    paragraphs = [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return "".join("<p>" + html.escape(p.strip()).replace("\n", "<br>") + "</p>"
                   for p in paragraphs)
