"""The link a status would get its preview card from, normalised as Mastodon normalises card
URLs (FetchLinkCardService: the first http(s) URL of the text that is not on this server,
through Addressable::URI#normalize), minus the fragment.

Normalising: scheme and host in lower case, the host in punycode, the default port dropped, an
empty path made `/`, dot segments removed, percent-escapes in upper case and unreserved
characters unescaped. The fragment is dropped too: it names a place inside the same document,
which has one card (Mastodon keeps it; see docs/api-coverage.md).

Also which of this server's statuses a text links to (`local_status_ids`).
"""

from __future__ import annotations

import re
from urllib.parse import urlunsplit

from stratus.core import hosts, ids, urls
from stratus.text.formatter import URL

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def has_link(text: str | None) -> bool:
    """Whether the text has anything that looks like an http(s) URL (cheap; no parsing)."""
    return bool(text) and URL.search(text) is not None


def _escapes(part: str) -> str:
    """Percent-escapes in one form: upper-case hex, unreserved characters unescaped."""
    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _ESCAPE.sub(one, part)


def _without_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4."""
    output: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if output:
                output.pop()
        elif segment != ".":
            output.append(segment)
    trailing = path.endswith(("/.", "/.."))
    return "/" + "/".join(output) + ("/" if trailing and output else "")


def normalize(url: str) -> str | None:
    """The URL in Mastodon's card form; None when it is not an http(s) URL with a host. It is
    read as browsers read it (core/urls.py), so the card is fetched from the host a reader's
    click opens; a URL with credentials has no card (outbound requests never send them)."""
    found = urls.parse(url.strip()) if isinstance(url, str) else None
    if found is None or found.credentials:
        return None
    query = found.target[len(found.path):].removeprefix("?")
    path = _without_dot_segments(_escapes(found.path))
    return urlunsplit((found.scheme, found.host, path, _escapes(query), ""))


def card_link(text: str | None, local_host: str) -> str | None:
    """The normalised first link of a status's text that is not on this server, if any."""
    for match in URL.finditer(text or ""):
        url = normalize(match.group(0))
        if url is not None and urls.host_of(url) != hosts.normalize(local_host):
            return url
    return None


# A status's path on this server: /@user/<id> or /users/<user>/statuses/<id>.
STATUS_PATH = re.compile(r"/(?:@[^/\s]+|users/[^/\s]+/statuses)/(\d+)")


def local_status_ids(text: str | None, base_url: str) -> list[str]:
    """The ids of statuses on this server (at `base_url`) that the text links to, in order,
    once each (Mastodon's Status.from_text: what an announcement lists)."""
    found: list[str] = []
    for url in URL.findall(text or ""):
        if url.startswith(base_url + "/"):
            match = STATUS_PATH.match(url[len(base_url):])
            if match and ids.is_id(match.group(1)) and match.group(1) not in found:
                found.append(match.group(1))
    return found
