"""The one host normaliser: how a host is compared wherever a domain matters (domain blocks and
allows, user domain blocks, the domain a remote account is stored under, origin checks of
ActivityPub ids) and what an outbound request connects to (core/urls.py hands every URL's host
to it, so policy checks exactly the host the connection goes to).

A host name is mapped by IDNA (UTS #46, non-transitional as browsers do: `。` and `．` are
dots, capitals and full-width letters fold, `ß` stays `ß`) and written in ASCII (punycode),
without a trailing dot; an IPv4 address in dotted decimal however it was spelt (the WHATWG URL
Standard's IPv4 parser, the one browsers and getaddrinfo agree on: `16909060`, `0x01020304`,
`0x1.2.3.4` and `1.2.3.4` are one address); an IPv6 address compressed, in brackets. A host
carries its port only when the port is not the scheme's default: `HTTPS://Evil.Example:443/`
and `https://evil.example` are one host, `evil.example`; `http://127.0.0.1:3001` stays
`127.0.0.1:3001`. Domain blocks name hosts without ports (`hostname`), as Mastodon's do. What
cannot be written so (a label IDNA refuses, an empty label, a character no host name has) is no
host: ''.
"""

from __future__ import annotations

import functools
import ipaddress
import re

import idna

from stratus.core.config import settings

DEFAULT_PORTS = {"https": 443, "http": 80}
MAX_NAME = 253  # RFC 1035, in ASCII, without the trailing dot
LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")  # RFC 1123 letters, digits, inner hyphens
# An IPv6 prefix whose addresses reach an IPv4 host: NAT64's well-known prefix (RFC 6052).
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


# --- IPv4, as the WHATWG URL Standard parses it --------------------------------------------------
def _ipv4_number(part: str) -> int | None:
    """One part of an IPv4 address: decimal, `0x` hex or `0` octal (None if it is none)."""
    if not part:
        return None
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, radix = part[1:], 8
    if not part:
        return 0
    digits = "0123456789abcdef"[:radix]
    if not all(c in digits for c in part.lower()):
        return None
    return int(part, radix)


def _ends_in_number(name: str) -> bool:
    """The Standard's "ends in a number" test: such a host is an IPv4 address or nothing."""
    last = name.split(".")[-1]
    return bool(last) and (last.isascii() and last.isdigit() or _ipv4_number(last) is not None)


def _ipv4(name: str) -> str:
    """The dotted-decimal form of an IPv4 address spelt any way the Standard allows; ''."""
    parts = name.split(".")
    if len(parts) > 4:
        return ""
    numbers = [_ipv4_number(p) for p in parts]
    if any(n is None for n in numbers):
        return ""
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return ""
    address = values[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(values[:-1]))
    return str(ipaddress.IPv4Address(address))


# --- names ------------------------------------------------------------------------------------------
def _label(label: str) -> str:
    """One label of a mapped name in ASCII; '' when IDNA refuses it."""
    try:
        if not label.isascii():
            label = idna.alabel(label).decode()
        elif label.startswith("xn--") and idna.alabel(idna.ulabel(label)).decode() != label:
            return ""  # punycode that is not the canonical form of a valid label
    except (idna.IDNAError, UnicodeError, ValueError):
        return ""
    return label if LABEL.match(label) else ""


def _name(text: str) -> str:
    """A host name or IPv4 address in its one spelling; IPv6 literals in brackets; ''."""
    if text.startswith("["):
        return _ipv6(text)
    try:
        mapped = idna.uts46_remap(text, std3_rules=False, transitional=False)
    except (idna.IDNAError, UnicodeError, ValueError):
        return ""
    mapped = mapped[:-1] if mapped.endswith(".") else mapped
    if not mapped:
        return ""
    if _ends_in_number(mapped):
        return _ipv4(mapped)
    labels = [_label(label) for label in mapped.split(".")]
    name = ".".join(labels)
    return name if all(labels) and len(name) <= MAX_NAME else ""


def _ipv6(text: str) -> str:
    """`[…]` as the Standard serialises an IPv6 address: lower-case hex pieces, the first
    longest run of two or more zero pieces as `::`, an embedded IPv4 address in hex too
    (`[::ffff:1.2.3.4]` is `[::ffff:102:304]`); ''."""
    if not text.endswith("]") or "%" in text:
        return ""  # no zone ids: they name an interface of ours, not a server
    try:
        number = int(ipaddress.IPv6Address(text[1:-1]))
    except ValueError:
        return ""
    pieces = [(number >> (112 - 16 * i)) & 0xFFFF for i in range(8)]
    start, length = -1, 1
    for i in range(8):
        run = next((j for j in range(i, 8) if pieces[j]), 8) - i
        if run > length:
            start, length = i, run
    if start < 0:
        return "[" + ":".join(f"{p:x}" for p in pieces) + "]"
    head = ":".join(f"{p:x}" for p in pieces[:start])
    tail = ":".join(f"{p:x}" for p in pieces[start + length:])
    return f"[{head}::{tail}]"


def _split(netloc: str) -> tuple[str, str | None]:
    """(host name, port text or None) of `host[:port]` (IPv6 in brackets)."""
    if netloc.startswith("["):
        name, bracket, rest = netloc.partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return netloc, None  # not a bracketed literal: refused as a name
        return name + "]", rest[1:] if rest else None
    if netloc.count(":") == 1:
        name, port = netloc.split(":")
        return name, port
    return netloc, None


def normalize(host: str | None, scheme: str | None = None) -> str:
    """`host[:port]` normalised: the port is dropped when it is the scheme's default (either
    default, 443 or 80, when the scheme is not known). '' for what is not a host."""
    if not isinstance(host, str) or not host.strip():
        return ""
    return _normalized(host.strip(), scheme if scheme in DEFAULT_PORTS else None)


@functools.lru_cache(maxsize=4096)  # the same few hosts are compared on every request
def _normalized(host: str, scheme: str | None) -> str:
    name, port = _split(host)
    name = _name(name)
    if not name:
        return ""
    if port is None or port == "":
        return name
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        return ""
    number = int(port)
    defaults = (DEFAULT_PORTS[scheme],) if scheme in DEFAULT_PORTS else tuple(DEFAULT_PORTS.values())
    return name if number in defaults else f"{name}:{number}"


def hostname(host: str | None) -> str:
    """A normalised host without its port: what domain blocks and allows name."""
    found = normalize(host)
    return _split(found)[0] if found else ""


def ours(host: str | None) -> bool:
    """Whether `host` (any spelling, with or without a default port) is this instance's domain."""
    found = normalize(host)
    return bool(found) and found == normalize(settings().domain)


def is_ip(name: str) -> bool:
    """Whether a normalised host name is an IP address (dotted IPv4, or IPv6 in brackets)."""
    if name.startswith("["):
        return True
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True


def ipv4_of(name: str) -> str | None:
    """The IPv4 address an IPv6 address connects to, when it carries one (IPv4-mapped,
    IPv4-compatible, NAT64): `[::ffff:1.2.3.4]` is 1.2.3.4 to whatever routes it."""
    if not name.startswith("["):
        return None
    ip = ipaddress.IPv6Address(name[1:-1])
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip in _NAT64 or (int(ip) >> 32 == 0 and int(ip) > 1):
        return str(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return None


def block_names(host: str | None) -> list[str]:
    """What a domain block covering `host` may name, most specific first: a host name and each
    parent domain (`a.b.example`, `b.example`, `example`: Mastodon's DomainBlock.rule_for); an
    IP address only itself, and an IPv6 address also the IPv4 address it carries. [] for what
    is not a host."""
    name = hostname(host)
    if not name:
        return []
    if is_ip(name):
        carried = ipv4_of(name)
        return [name, carried] if carried else [name]
    labels = name.split(".")
    return [".".join(labels[i:]) for i in range(len(labels))]


def covers(domain: str, host: str | None) -> bool:
    """Whether a domain block or allow of `domain` covers `host` (the domain itself or one of
    its subdomains; an IPv4 address also in an IPv6 form that carries it; ports never matter)."""
    name = hostname(domain)
    return bool(name) and name in block_names(host)
