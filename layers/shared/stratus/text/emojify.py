"""Custom emoji shown as images on the web pages (Mastodon's `prerender_custom_emojis`):
`:shortcode:` in plain text, or in the text of already sanitised HTML, becomes an `<img>` of
that emoji. Only text is touched, never a tag or an attribute: the HTML is parsed and written
out again with every text and attribute value escaped, so a shortcode inside a link's `href`
stays a shortcode and no emoji URL can break out of an attribute."""

from __future__ import annotations

from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Any

from markupsafe import Markup, escape

from stratus.text.formatter import SHORTCODE

VOID = {"br", "hr", "img"}


def _by_code(emojis: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["shortcode"]: e for e in emojis if isinstance(e, dict) and e.get("shortcode")}


def _image(emoji: dict[str, Any]) -> Markup:
    # The still image: pages do not animate what a reader did not ask to play.
    code = f":{emoji['shortcode']}:"
    return Markup('<img class="emoji" src="{}" alt="{}" title="{}" width="20" height="20">'
                  ).format(emoji.get("static_url") or emoji.get("url") or "", code, code)


def _text(text: str, emojis: dict[str, dict[str, Any]]) -> Markup:
    if not emojis:
        return escape(text)
    parts: list[Markup] = []
    position = 0
    for match in SHORTCODE.finditer(text):
        emoji = emojis.get(match.group(1))
        if emoji is None:
            continue
        parts.append(escape(text[position:match.start()]))
        parts.append(_image(emoji))
        position = match.end()
    parts.append(escape(text[position:]))
    return Markup("").join(parts)


def text(value: str, emojis: Iterable[dict[str, Any]]) -> Markup:
    """Plain text, escaped, with its custom emoji as images."""
    return _text(value or "", _by_code(emojis))


class _Rewriter(HTMLParser):
    def __init__(self, emojis: dict[str, dict[str, Any]]) -> None:
        super().__init__(convert_charrefs=True)
        self.emojis = emojis
        self.out: list[Markup] = []

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]]) -> Markup:
        written = Markup("").join(Markup(' {}="{}"').format(name, value or "")
                                  for name, value in attrs if name.replace("-", "").isalnum())
        return Markup("<{}{}>").format(tag, written)

    def handle_starttag(self, tag, attrs):
        if tag.isalnum():
            self.out.append(self._tag(tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag.isalnum() and tag not in VOID:
            self.out.append(Markup("</{}>").format(tag))

    def handle_data(self, data):
        self.out.append(_text(data, self.emojis))


def html(markup: str, emojis: Iterable[dict[str, Any]]) -> Markup:
    """Sanitised HTML (text/sanitize.py) with the custom emoji of its text as images; the
    caller sanitises first, this only rewrites text."""
    rewriter = _Rewriter(_by_code(emojis))
    rewriter.feed(markup or "")
    rewriter.close()
    return Markup("").join(rewriter.out)
