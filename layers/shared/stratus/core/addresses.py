"""Which addresses an outbound request may reach, and the one DNS lookup that decides it
(docs/security.md, "Outbound requests"): every address of a host must be public — no private,
loopback, link-local, shared, multicast, reserved or unspecified address, nor an IPv6
unique-local one, nor an IPv6 form that carries such an IPv4 address (mapped, 6to4, Teredo,
NAT64). Stacks that are not production may reach loopback too; the test stack only loopback.
core/outbound.py connects to the address checked here. A lookup is given up at its request's
deadline, and one that hangs holds a thread of its own, never one later lookups wait for."""

from __future__ import annotations

import ipaddress
import socket
import threading
from typing import Any

from stratus.core.config import settings

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class Refused(Exception):
    """The fetch was not made, or its answer is not used, by one of the rules above (or the
    remote server did not answer usefully: an error status, a timeout, a reset)."""


class NotAllowed(Refused):
    """The request is never made: not http(s), credentials in the URL, or a host with an
    address that may not be reached."""


class TimedOut(Refused):
    """The request's or the job's deadline passed."""


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address stands for (mapped, 6to4, Teredo, NAT64, compatible)."""
    found = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if any(ip in net for net in _NAT64) or (int(ip) >> 32 == 0 and int(ip) > 1):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded:
            return all(_is_public(v4) for v4 in embedded)
        if ip.is_site_local:
            return False
    return ip.is_global and not (ip.is_private or ip.is_loopback or ip.is_link_local
                                 or ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def _is_loopback(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _loopback_name(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return _is_loopback(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return False


def loopback_name(host: str) -> bool:
    """Whether a host name is this machine (`localhost`, a loopback address): what is asked
    over plain http outside production (test peers, a second local stack)."""
    return _loopback_name(host)


def allowed_address(address: str, *, production: bool) -> bool:
    """Whether a connection may go to `address` (loopback too outside production)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    return _is_public(ip) or (not production and _is_loopback(ip))


# Lookups still running in their threads, by (host, port): a second ask of a name joins the
# lookup under way instead of starting another, and at most MAX_PENDING distinct ones may be
# running at once in a warm process (the rest are refused at once, not queued behind them).
MAX_PENDING = 16
_pending: dict[tuple[str, int], _Lookup] = {}
_pending_lock = threading.Lock()


class _Lookup:
    """One getaddrinfo in a daemon thread of its own: a lookup that hangs (the attacker's name
    server never answers) holds that thread only, never a slot later lookups wait for, and
    ends the process's interest in it when it finally returns."""

    def __init__(self, host: str, port: int) -> None:
        self.key = (host, port)
        self.done = threading.Event()
        self.answer: list | None = None
        self.error: BaseException | None = None

    def start(self) -> _Lookup:
        threading.Thread(target=self._run, name=f"resolve {self.key[0]}", daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            self.answer = socket.getaddrinfo(self.key[0], self.key[1], type=socket.SOCK_STREAM)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for it
            self.error = exc
        finally:
            with _pending_lock:
                if _pending.get(self.key) is self:
                    del _pending[self.key]
            self.done.set()


def pending_lookups() -> int:
    """How many lookups are running now (tests, and the refusal below)."""
    with _pending_lock:
        return len(_pending)


def _lookup(host: str, port: int, seconds: float | None) -> list:
    """getaddrinfo, given up after `seconds` (the resolver's own timeouts can be far longer
    than a request's deadline). An IP literal needs no lookup; a name is looked up in a thread
    of its own (`_Lookup`) that is left to finish when the deadline passes."""
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        literal = None
    if literal is not None or seconds is None:
        return socket.getaddrinfo(str(literal) if literal is not None else host, port,
                                  type=socket.SOCK_STREAM)
    with _pending_lock:
        lookup = _pending.get((host, port))
        if lookup is None:
            if len(_pending) >= MAX_PENDING:
                raise TimedOut(f"resolving {host}: {MAX_PENDING} lookups are still running")
            lookup = _pending[(host, port)] = _Lookup(host, port)
            lookup.start()  # its end waits for the lock: it is registered before it can leave
    if not lookup.done.wait(max(seconds, 0.0)):
        raise TimedOut(f"resolving {host} took too long")
    if lookup.error is not None:
        raise lookup.error
    return list(lookup.answer or [])


def resolve(host: str, port: int, *, production: bool | None = None,
            deadline: Any = None) -> str:
    """The address to connect to; Refused unless every address of the host is allowed (the
    lookup given up when `deadline` — an outbound.Deadline — passes). The test stack reaches loopback only: its tests
    serve their own pages, and a status that links a real site must not make a test wait on
    the network."""
    production = settings().is_production if production is None else production
    if settings().environment == "test" and not production and not _loopback_name(host):
        raise NotAllowed(f"{host} is not on loopback (the test stack fetches nothing else)")
    try:
        found = _lookup(host, port, deadline.left() if deadline is not None else None)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise Refused(f"cannot resolve {host}: {exc}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise Refused(f"cannot resolve {host}")
    if not all(allowed_address(a, production=production) for a in addresses):
        raise NotAllowed(f"{host} resolves to an address that is not public")
    # IPv4 first: every address was checked, and servers on loopback (a second local stack,
    # a test peer) listen on 127.0.0.1 while `localhost` may resolve to ::1 first.
    return sorted(addresses, key=lambda a: ":" in a)[0]
