"""URLs read the way browsers read them: the WHATWG URL Standard, through Ada (`ada-url`), the
one parser behind every origin check and every outbound request.

A URL another server sends is hostile: `https://victim.example\\@evil.example` is, to Python's
urlsplit, user `victim.example\\` at `evil.example`, while a browser (a special scheme's
backslash is a slash) opens `victim.example` with the path `/@evil.example`. Reading it as the
browser does makes an origin check agree with the page a reader's click opens, and the host is
then handed to the one host normaliser (core/hosts.py), so the host policy checks, the host a
browser opens and the host an outbound request resolves and names in its `Host` header are one
string, parsed once.
"""

from __future__ import annotations

from dataclasses import dataclass

from stratus.core import hosts

SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Url:
    href: str  # the URL as the Standard serialises it (what a browser opens)
    scheme: str  # http or https
    host: str  # hosts.normalize: `name[:port]`, the port only when not the scheme's default
    name: str  # the host without its port (IPv6 in brackets): what domain policy names
    port: int  # the port connected to
    path: str  # percent-encoded, dot segments resolved, `/` at least
    target: str  # path and query: the request target (the fragment never leaves us)
    credentials: bool  # a user name or password in the URL

    @property
    def address(self) -> str:
        """The host as a resolver and a TLS handshake take it (IPv6 without brackets)."""
        return self.name[1:-1] if self.name.startswith("[") else self.name

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{self.host}"


def parse(text: object, base: str | None = None) -> Url | None:
    """An http(s) URL (relative to `base` when given) as a browser parses it; None for anything
    else, and for a host the normaliser refuses (no second reading could differ)."""
    if not isinstance(text, str) or (base is not None and not isinstance(base, str)):
        return None
    import ada_url

    try:
        found = ada_url.URL(text, base) if base is not None else ada_url.URL(text)
    except (ValueError, TypeError, UnicodeError):
        return None
    scheme = found.protocol.removesuffix(":")
    if scheme not in SCHEMES:
        return None
    host = hosts.normalize(found.host, scheme)
    if not host:
        return None
    port = int(found.port) if found.port else hosts.DEFAULT_PORTS[scheme]
    path = found.pathname or "/"
    return Url(href=found.href, scheme=scheme, host=host, name=hosts.hostname(host), port=port,
               path=path, target=path + found.search,
               credentials=bool(found.username or found.password))


def host_of(url: object) -> str:
    """The normalised host (with a port that is not the default) of an http(s) URL; '' when
    it has none or is not one."""
    found = parse(url)
    return found.host if found else ""


def join(base: str, reference: str) -> str | None:
    """`reference` (a redirect's Location, a link of a page) resolved against `base` as a
    browser resolves it; None when the result is not an http(s) URL."""
    found = parse(reference.strip(), base)
    return found.href if found else None


def same_origin(a: object, b: object) -> bool:
    """Whether two URLs are on one host (ports count): what an origin check asks."""
    host = host_of(a)
    return bool(host) and host == host_of(b)
