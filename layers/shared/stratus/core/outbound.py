"""Fetching what users link (preview cards, their images and oEmbed answers) without letting a
link reach what it must not: SSRF-safe outbound HTTP GET.

A URL in a status is chosen by whoever wrote it, so in production every request is held to these
rules (docs/security.md, "Outbound requests"):

- only `http` and `https`, to a host whose every DNS address is public (no private, loopback,
  link-local, shared, multicast, reserved or unspecified address, nor an IPv6 unique-local one,
  nor an IPv6 form that carries such an IPv4 address: mapped, 6to4, Teredo, NAT64); the
  connection goes to the address that was checked, so a second DNS answer cannot change it, and
  TLS is still verified against the host name;
- redirects are followed by hand, at most 3, each new URL checked again the same way;
- the body is read up to a bound (a larger declared or actual body is refused), and only the
  content types the caller accepts are used;
- every request has one whole-request deadline — connect, TLS handshake, status line, headers
  and body together — held even while bytes keep arriving: a watchdog shuts the socket down
  when it passes, so a peer that drips a byte every few seconds cannot hold a worker (Mastodon's
  `Request` has a read deadline of 30 s for the same reason, besides its per-read timeouts);
- a queued job runs inside a `budget`: a total time that caps every `Deadline` made inside it,
  and a number of requests (each redirect hop is one), so one activity cannot chain fetches
  past its function's timeout;
- the site's robots.txt is honoured (RFC 9309: a 4xx robots.txt allows everything, a 5xx or
  unreachable one nothing), read once per origin per warm process for an hour;
- requests say who makes them, as Mastodon's do (`User-Agent`).

Stacks that are not production may also reach loopback addresses, so tests can serve pages from
a local HTTP server; nothing else is relaxed. The test stack reaches loopback only.
"""

from __future__ import annotations

import contextvars
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from stratus import MASTODON_VERSION, __version__
from stratus.core import urls
from stratus.core.addresses import (  # the address rules, and the refusals callers catch
    NotAllowed,
    Refused,
    TimedOut,
    resolve,
)
from stratus.core.config import settings

MAX_REDIRECTS = 3
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 10.0
ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 asks parsers to read at least 500 KiB
ROBOTS_TTL = 3600.0
ROBOTS_RETRY = 600.0  # an unreachable robots.txt is asked again after ten minutes
REDIRECTS = (301, 302, 303, 307, 308)


class OverBudget(TimedOut):
    """The job's budget is spent: its time, or the number of requests it may make."""


def user_agent() -> str:
    """Mastodon's shape (`http.rb/… (Mastodon/…; +https://domain/)`), naming us."""
    return (f"Stratus/{__version__} (Mastodon/{MASTODON_VERSION}; "
            f"+{settings().base_url}/)")


@dataclass
class Budget:
    """What one job may spend on requests: `seconds` in all, at most `requests` requests (None:
    no count); a budget opened inside another spends from both."""

    seconds: float
    requests: int | None = None
    parent: Budget | None = None
    started: float = field(default_factory=time.monotonic)
    made: int = 0

    def left(self) -> float:
        """Seconds left (the least of this budget and those around it); OverBudget if none."""
        remaining = self.seconds - (time.monotonic() - self.started)
        if self.parent is not None:
            remaining = min(remaining, self.parent.left())
        if remaining <= 0:
            raise OverBudget(f"the job's {self.seconds:g} s are spent")
        return remaining

    def spend(self) -> None:
        """Count one request, or OverBudget when one more is not allowed."""
        budgets = []
        current: Budget | None = self
        while current is not None:
            if current.requests is not None and current.made >= current.requests:
                raise OverBudget(f"the job made its {current.requests} requests")
            budgets.append(current)
            current = current.parent
        for each in budgets:
            each.made += 1


_budget: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("stratus_outbound_budget",
                                                                        default=None)


@contextmanager
def budget(seconds: float, *, requests: int | None = None) -> Iterator[Budget]:
    """Run a job's requests inside a budget: every Deadline made inside it ends when the
    budget does, and every request counts against `requests`."""
    opened = Budget(seconds, requests, parent=_budget.get())
    token = _budget.set(opened)
    try:
        yield opened
    finally:
        _budget.reset(token)


@dataclass
class Deadline:
    """The time a fetch (or a few fetches of one task) may take together; inside a `budget`,
    never more than the budget has left."""

    seconds: float
    started: float = field(default_factory=time.monotonic)
    budget: Budget | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.budget = _budget.get()

    def spending(self) -> Budget | None:
        """The budget this deadline spends from: the one it was made in, else the current."""
        return self.budget if self.budget is not None else _budget.get()

    def left(self) -> float:
        remaining = self.seconds - (time.monotonic() - self.started)
        if remaining <= 0:
            raise TimedOut("the fetch took too long")
        spending = self.spending()
        if spending is not None:
            remaining = min(remaining, spending.left())
        return remaining


@dataclass(frozen=True)
class Response:
    url: str  # after redirects
    status: int
    content_type: str  # the media type, lower case, without parameters
    charset: str | None
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names (`request` only)


# --- one request --------------------------------------------------------------------------------
def _target(url: str) -> tuple[str, str, int, str, str]:
    """(scheme, host to resolve, port, path with query, Host header) of an http(s) URL, read
    once as browsers read it (core/urls.py): the host resolved, checked by domain policy and
    named in the Host header and TLS handshake is the one normalised host (`пример.рф` is
    asked for as `xn--e1afmkfd.xn--p1ai`, `evil。example` as `evil.example`). NotAllowed for
    what is not such a URL (a host the normaliser cannot write included)."""
    found = urls.parse(url)
    if found is None:
        raise NotAllowed("only http and https URLs with a valid host are fetched")
    if found.credentials:
        raise NotAllowed("URLs with credentials are not fetched")
    return found.scheme, found.address, found.port, found.target, found.host


def _media_type(header: str | None) -> tuple[str, str | None]:
    if not header:
        return "", None
    kind, _, rest = header.partition(";")
    charset = None
    for parameter in rest.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'").lower()
    return kind.strip().lower(), charset


class _Watchdog:
    """Shuts a request's socket down when its deadline passes, whatever is happening on it
    (connecting, a TLS handshake, a status line or a body arriving a byte at a time): the
    blocked read or write fails at once and the request is refused as timed out."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.fired:
                _shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._sockets:
                _shut(sock)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._timer.cancel()

    def stop(self) -> bool:
        """Stop watching; whether the deadline had passed (what was read may be cut short)."""
        with self._lock:
            self._timer.cancel()
            return self.fired


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already


_pools: tuple[type, type] | None = None


def _pool_classes() -> tuple[type, type]:
    """urllib3 pools whose connections hand their socket to the request's watchdog as soon as
    it is connected (before any TLS handshake); made on first use, as urllib3 is imported."""
    global _pools
    if _pools is None:
        import urllib3
        from urllib3.connection import HTTPConnection, HTTPSConnection

        class Watched:
            def __init__(self, *args: object, watchdog: _Watchdog, **kwargs: object) -> None:
                super().__init__(*args, **kwargs)  # type: ignore[call-arg]
                self._watchdog = watchdog

            def _new_conn(self) -> socket.socket:
                sock = super()._new_conn()  # type: ignore[misc]
                self._watchdog.watch(sock)
                return sock

        class WatchedHTTP(Watched, HTTPConnection):
            pass

        class WatchedHTTPS(Watched, HTTPSConnection):
            pass

        class HTTPPool(urllib3.HTTPConnectionPool):
            ConnectionCls = WatchedHTTP

        class HTTPSPool(urllib3.HTTPSConnectionPool):
            ConnectionCls = WatchedHTTPS

        _pools = (HTTPPool, HTTPSPool)
    return _pools


def _request(url: str, *, accept: str, max_bytes: int, deadline: Deadline,
             method: str = "GET", body: bytes | None = None,
             headers: dict[str, str] | None = None, read_any_status: bool = False,
             read_body: bool = True) -> tuple[int, dict[str, str], bytes]:
    """One request to the checked address: (status, lower-case headers, body up to max_bytes;
    read for a 200 answer, or for any answer when `read_any_status`, never without
    `read_body`). `headers` are sent as given after ours (a signature may cover them). The
    whole request ends by the deadline (TimedOut), and counts against the job's budget."""
    import urllib3

    scheme, host, port, path, host_header = _target(url)
    spending = deadline.spending()
    if spending is not None:
        spending.spend()
    address = resolve(host, port, deadline=deadline)
    remaining = deadline.left()
    timeout = urllib3.Timeout(connect=min(CONNECT_TIMEOUT, remaining),
                              read=min(READ_TIMEOUT, remaining))
    http_pool, https_pool = _pool_classes()
    watchdog = _Watchdog(remaining)
    if scheme == "https":
        pool = https_pool(address, port, server_hostname=host, assert_hostname=host,
                          cert_reqs="CERT_REQUIRED", timeout=timeout, retries=False, maxsize=1,
                          watchdog=watchdog)
    else:
        pool = http_pool(address, port, timeout=timeout, retries=False, maxsize=1,
                         watchdog=watchdog)
    sent = {"Host": host_header, "User-Agent": user_agent(), "Accept": accept,
            "Accept-Encoding": "identity", **(headers or {})}
    try:
        with watchdog:
            response = pool.urlopen(method, path, body=body, headers=sent, redirect=False,
                                    preload_content=False, assert_same_host=False)
            try:
                found = {k.lower(): v for k, v in response.headers.items()}
                declared = found.get("content-length", "")
                if read_body and declared.isdigit() and int(declared) > max_bytes:
                    raise Refused(f"the response is larger than {max_bytes} bytes")
                chunks, size = [], 0
                if read_body and (response.status == 200 or read_any_status):
                    for chunk in response.stream(65536):
                        size += len(chunk)
                        if size > max_bytes:
                            raise Refused(f"the response is larger than {max_bytes} bytes")
                        chunks.append(chunk)
                        deadline.left()
                if watchdog.stop():  # a body cut short by the shutdown reads as complete
                    raise TimedOut("the request took too long")
                return response.status, found, b"".join(chunks)
            finally:
                response.release_conn()
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        if watchdog.fired or (isinstance(exc, urllib3.exceptions.TimeoutError)
                              and _spent(deadline)):
            raise TimedOut("the request took too long") from None
        raise Refused(f"{type(exc).__name__}: {exc}") from None
    finally:
        pool.close()


def _spent(deadline: Deadline) -> bool:
    """Whether the deadline has (all but) passed: a socket timeout shrunk to what was left of
    it is the deadline passing, not a peer that stopped answering."""
    try:
        return deadline.left() < 0.05
    except TimedOut:
        return True


def _redirected(url: str, location: str) -> str:
    """Where a redirect leads, resolved as a browser resolves it; NotAllowed for anything but
    an http(s) URL (the next hop is checked again like the first)."""
    joined = urls.join(url, location)
    if joined is None:
        raise NotAllowed("a redirect to what is not an http(s) URL")
    return joined


def target(url: str) -> tuple[str, str]:
    """(Host header, path with query) a request to `url` carries (what a signature covers);
    Refused for what is never fetched."""
    _scheme, _host, _port, path, host_header = _target(url)
    return host_header, path


def request(method: str, url: str, *, accept: str, max_bytes: int, deadline: Deadline,
            body: bytes | None = None,
            headers_for: Callable[[str, str], dict[str, str]] | None = None,
            follow_redirects: bool = False, read_body: bool = True) -> Response:
    """One request under the address rules above, without robots.txt (server-to-server
    requests: ActivityPub, web push), answered whatever its status (the body is read for every
    status, or not at all without `read_body`: a push service's answer is its status).
    `headers_for(method, url)` gives extra headers for each hop (a signature is remade for each
    redirect target); redirects are followed, each target checked again, only when asked."""
    for _hop in range(MAX_REDIRECTS + 1):
        extra = headers_for(method, url) if headers_for else {}
        status, found, content = _request(url, accept=accept, max_bytes=max_bytes,
                                          deadline=deadline, method=method, body=body,
                                          headers=extra, read_any_status=True,
                                          read_body=read_body)
        if follow_redirects and status in REDIRECTS and found.get("location"):
            url = _redirected(url, found["location"])
            continue
        kind, charset = _media_type(found.get("content-type"))
        return Response(url, status, kind, charset, content, found)
    raise Refused(f"more than {MAX_REDIRECTS} redirects")


# --- robots.txt ---------------------------------------------------------------------------------
_robots: dict[str, tuple[float, object]] = {}  # origin -> (expires, Protego | True | False)
ROBOTS_AGENTS = ("Stratus", "Mastodon")


def _origin(url: str) -> str:
    scheme, _host, _port, _path, host_header = _target(url)
    return f"{scheme}://{host_header}"


def _robots_rules(origin: str, deadline: Deadline) -> object:
    cached = _robots.get(origin)
    if cached is not None and cached[0] > time.monotonic():
        return cached[1]
    rules: object
    try:
        answer = _get(origin + "/robots.txt", accept="text/plain", max_bytes=ROBOTS_MAX_BYTES,
                      deadline=deadline, types=None, robots=False, ok_only=False)
        if answer.status == 200:
            from protego import Protego

            rules = Protego.parse(answer.body.decode("utf-8", "replace"))
        else:
            rules = answer.status < 500  # RFC 9309: "unavailable" allows, "unreachable" not
    except TimedOut:
        raise
    except Refused:
        rules = False  # unreachable: nothing is fetched from the origin for a while
        _robots[origin] = (time.monotonic() + ROBOTS_RETRY, rules)
        return rules
    _robots[origin] = (time.monotonic() + ROBOTS_TTL, rules)
    return rules


def robots_allow(url: str, deadline: Deadline) -> bool:
    rules = _robots_rules(_origin(url), deadline)
    if isinstance(rules, bool):
        return rules
    return all(rules.can_fetch(url, agent) for agent in ROBOTS_AGENTS)  # type: ignore[attr-defined]


# --- the fetch ----------------------------------------------------------------------------------
def _get(url: str, *, accept: str, max_bytes: int, deadline: Deadline,
         types: Iterable[str] | None, robots: bool, ok_only: bool = True) -> Response:
    wanted = tuple(types) if types is not None else None
    for _hop in range(MAX_REDIRECTS + 1):
        _scheme, host, port, _path, _header = _target(url)
        resolve(host, port, deadline=deadline)  # refused before anything is asked, robots.txt too
        if robots and not robots_allow(url, deadline):
            raise Refused("robots.txt disallows it")
        status, headers, body = _request(url, accept=accept, max_bytes=max_bytes,
                                         deadline=deadline)
        if status in REDIRECTS and headers.get("location"):
            url = _redirected(url, headers["location"])
            continue
        if ok_only and status != 200:
            raise Refused(f"the server answered {status}")
        kind, charset = _media_type(headers.get("content-type"))
        if wanted is not None and status == 200 and not any(
                kind == t or (t.endswith("/*") and kind.startswith(t[:-1])) or
                (t.startswith("+") and kind.endswith(t)) for t in wanted):
            raise Refused(f"unexpected content type {kind or 'none'}")
        return Response(url, status, kind, charset, body)
    raise Refused(f"more than {MAX_REDIRECTS} redirects")


def fetch(url: str, *, types: Iterable[str], max_bytes: int, deadline: Deadline,
          accept: str | None = None) -> Response:
    """GET `url` under the rules above; a 200 answer of one of `types` (`text/html`, `image/*`,
    `+json` for any JSON suffix), or Refused."""
    wanted = tuple(types)
    return _get(url, accept=accept or ", ".join(t for t in wanted if not t.startswith("+"))
                or "*/*",
                max_bytes=max_bytes, deadline=deadline, types=wanted, robots=True)


def reset() -> None:
    """Forget cached robots.txt rules (tests)."""
    _robots.clear()
