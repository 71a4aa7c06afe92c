"""The one host normaliser: how a host is compared wherever a domain matters (domain blocks and
allows, the domain a remote account is stored under, origin checks of ActivityPub ids).

A host is lower case, IDNA-encoded (punycode), without a trailing dot, and carries its port only
when the port is not the scheme's default: `HTTPS://Evil.Example:443/` and `https://evil.example`
are one host, `evil.example`; `http://127.0.0.1:3001` stays `127.0.0.1:3001`. Domain blocks name
hosts without ports (`hostname`), as Mastodon's do.
"""

from __future__ import annotations

import encodings.idna
from urllib.parse import urlsplit

DEFAULT_PORTS = {"https": 443, "http": 80}


def _idna(name: str) -> str:
    """A host name in lower-case ASCII (IPv6 literals keep their brackets); '' when it cannot
    be encoded."""
    name = name.strip().lower()
    if name.startswith("["):
        return name if name.endswith("]") else ""
    if len(name) > 1 and name.endswith("."):
        name = name[:-1]
    if name.isascii():
        return name
    try:
        return ".".join(encodings.idna.ToASCII(label).decode().lower() if label else ""
                        for label in name.split("."))
    except UnicodeError:
        return ""


def _split(netloc: str) -> tuple[str, str | None]:
    """(host name, port text or None) of `host[:port]` (IPv6 in brackets)."""
    netloc = netloc.rsplit("@", 1)[-1]
    if netloc.startswith("["):
        name, _, rest = netloc.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else None
    if netloc.count(":") == 1:
        name, port = netloc.split(":")
        return name, port
    return netloc, None


def normalize(host: str | None, scheme: str | None = None) -> str:
    """`host[:port]` normalised: the port is dropped when it is the scheme's default (either
    default, 443 or 80, when the scheme is not known). '' for what is not a host."""
    if not isinstance(host, str) or not host.strip():
        return ""
    name, port = _split(host.strip())
    name = _idna(name)
    if not name:
        return ""
    if port is None or port == "":
        return name
    if not port.isdigit():
        return ""
    number = int(port)
    defaults = (DEFAULT_PORTS[scheme],) if scheme in DEFAULT_PORTS else tuple(DEFAULT_PORTS.values())
    return name if number in defaults else f"{name}:{number}"


def of_url(url: str | None) -> str:
    """The normalised host of an http(s) URL ('' when it has none or is not a URL)."""
    if not isinstance(url, str):
        return ""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.netloc:
        return ""
    return normalize(parts.netloc, scheme)


def hostname(host: str | None) -> str:
    """A normalised host without its port: what domain blocks and allows name."""
    found = normalize(host)
    return _split(found)[0] if found else ""


def covers(domain: str, host: str | None) -> bool:
    """Whether a domain block or allow of `domain` covers `host` (the domain itself or one of
    its subdomains; ports never matter)."""
    domain, name = hostname(domain), hostname(host)
    return bool(domain) and bool(name) and (name == domain or name.endswith("." + domain))
