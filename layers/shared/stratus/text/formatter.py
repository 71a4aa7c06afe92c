"""Status text → HTML as Mastodon renders it, and the facts the text carries.

Plain text: escaped, paragraphs and `<br />`, URLs linkified with Mastodon's shortened display
(`invisible`/`ellipsis` spans, `rel="nofollow noopener"`), `@user` / `@user@domain` mentions of
known accounts as h-card links, `#hashtags` as tag links. Markdown (`text/markdown`) is rendered
by markdown-it-py with raw HTML disabled, the same linking applied to its text, and the result
sanitised with nh3. Custom emoji stay as `:shortcode:` in the content and are listed separately.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from stratus.core.limits import CHARACTERS_RESERVED_PER_URL

URL = re.compile(r"(?<![\w/@#])(https?://[^\s<>\"']*[^\s<>\"'.,;:!?)\]}])", re.IGNORECASE)
MENTION = re.compile(r"(?<![\w/@])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)"
                     r"(?:@([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d+)?))?", re.IGNORECASE)
HASHTAG = re.compile(r"(?<![\w/&#])#(\w*[^\W\d_]\w*)", re.UNICODE)
SHORTCODE = re.compile(r"(?<![\w:]):([a-zA-Z0-9_]{2,}):(?![\w:])")
TOKEN = re.compile("|".join(f"(?P<{name}>{pattern.pattern})" for name, pattern in
                            (("url", URL), ("mention", MENTION), ("tag", HASHTAG))),
                   re.IGNORECASE | re.UNICODE)


def normalize_tag(name: str) -> str:
    """Tags match case-insensitively and by compatibility form (Mastodon's HashtagNormalizer)."""
    return unicodedata.normalize("NFKC", name).lower()


@dataclass
class Parsed:
    mentions: list[tuple[str, str | None]] = field(default_factory=list)  # (username, domain)
    tags: list[str] = field(default_factory=list)  # as written
    shortcodes: list[str] = field(default_factory=list)


def parse(text: str) -> Parsed:
    parsed = Parsed()
    for match in TOKEN.finditer(text or ""):
        if match.group("mention"):
            found = MENTION.match(match.group(0))
            pair = (found.group(1), found.group(2))
            if pair not in parsed.mentions:
                parsed.mentions.append(pair)
        elif match.group("tag"):
            name = HASHTAG.match(match.group(0)).group(1)
            if normalize_tag(name) not in {normalize_tag(t) for t in parsed.tags}:
                parsed.tags.append(name)
    for match in SHORTCODE.finditer(text or ""):
        if match.group(1) not in parsed.shortcodes:
            parsed.shortcodes.append(match.group(1))
    return parsed


def count_characters(text: str, local_domain: str) -> int:
    """Mastodon's status length: URLs count as 23, remote mentions as their local part."""
    def mention(match: re.Match[str]) -> str:
        return "@" + match.group(1)

    counted = URL.sub("x" * CHARACTERS_RESERVED_PER_URL, text or "")
    counted = MENTION.sub(mention, counted)
    return len(counted)


def link(url: str) -> str:
    match = re.match(r"(https?://)(www\.)?(.*)", url, re.IGNORECASE | re.DOTALL)
    prefix, rest = (match.group(1) + (match.group(2) or "")), match.group(3)
    shown, hidden = rest[:30], rest[30:]
    return (f'<a href="{html.escape(url)}" target="_blank" rel="nofollow noopener" '
            f'translate="no"><span class="invisible">{html.escape(prefix)}</span>'
            f'<span class="{"ellipsis" if hidden else ""}">{html.escape(shown)}</span>'
            f'<span class="invisible">{html.escape(hidden)}</span></a>')


MentionLookup = Callable[[str, str | None], dict | None]


def _linkify(text: str, lookup: MentionLookup, tag_url: Callable[[str], str]) -> str:
    """Escape `text` and turn URLs, known mentions and hashtags into links."""
    out: list[str] = []
    position = 0
    for match in TOKEN.finditer(text):
        out.append(html.escape(text[position:match.start()], quote=False))
        token = match.group(0)
        if match.group("url"):
            out.append(link(token))
        elif match.group("mention"):
            found = MENTION.match(token)
            account = lookup(found.group(1), found.group(2))
            if account is None:
                out.append(html.escape(token, quote=False))
            else:
                out.append(f'<span class="h-card" translate="no"><a href="'
                           f'{html.escape(account["url"])}" class="u-url mention">@<span>'
                           f'{html.escape(account["username"])}</span></a></span>')
        else:
            name = HASHTAG.match(token).group(1)
            out.append(f'<a href="{html.escape(tag_url(normalize_tag(name)))}" '
                       f'class="mention hashtag" rel="tag">#<span>{html.escape(name)}</span></a>')
        position = match.end()
    out.append(html.escape(text[position:], quote=False))
    return "".join(out)


def render_plain(text: str, lookup: MentionLookup, tag_url: Callable[[str], str]) -> str:
    body = (text or "").replace("\r\n", "\n").strip()
    if not body:
        return ""
    paragraphs = [p for p in re.split(r"\n{2,}", body) if p.strip()]
    return "".join("<p>" + _linkify(p, lookup, tag_url).replace("\n", "<br />") + "</p>"
                   for p in paragraphs)


_SKIP = re.compile(r"(<a\b.*?</a>|<code\b.*?</code>|<pre\b.*?</pre>|<[^>]+>)", re.DOTALL)


def render_markdown(text: str, lookup: MentionLookup, tag_url: Callable[[str], str]) -> str:
    from markdown_it import MarkdownIt

    from stratus.text.sanitize import clean

    rendered = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(
        "strikethrough").render(text or "")
    # Link the text between tags, leaving existing links and code alone.
    parts = _SKIP.split(rendered)
    for index, part in enumerate(parts):
        if part and not _SKIP.fullmatch(part):
            parts[index] = _linkify(html.unescape(part), lookup, tag_url)
    return clean("".join(parts).strip())
