"""HostilePeer: a loopback ActivityPub server that tests script to attack us (issue: federation
you can trust; docs/security.md, "Federation threats").

It is a PeerSite (tests/rig/peers.py: serves documents, records requests, takes POSTs) whose actors
are real (RSA keys, signed POSTs to our inbox), plus what a hostile server does:

- `serve_json(path, document)` serves any document as ActivityPub (or another type);
- `redirect(path, to)` sends a fetch elsewhere (another host: another HostilePeer);
- `drip(path, body, every)` answers with headers at once, then one byte every `every` seconds
  (`headers_too=True`: the status line and headers themselves trickle);
- `actor(name)` is a Peer (keys, activities, signed POSTs) living on this host;
- `post_as(client, peer, activity, key_id=…, private_key=…)` signs an activity with any key.

Two HostilePeers are two hosts (each its own port on 127.0.0.1): one plays the victim, the
other the attacker. A HostilePeer may also go by another name for its host (`HostilePeer(
"пример.рф")`, `HostilePeer("2130706433")`): its ids are written with that name, which the
`dns` fixture resolves to 127.0.0.1 as a production resolver would.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from tests.rig.peers import AP, Peer, PeerSite


class HostilePeer(PeerSite):
    def __init__(self, name: str = "127.0.0.1") -> None:
        super().__init__()
        self.name = name  # the host as this peer's ids write it
        site = self
        self.drips: dict[str, tuple[bytes, float, bool, str]] = {}
        self.stop = threading.Event()
        base_handler = self.server.RequestHandlerClass

        class Handler(base_handler):  # type: ignore[misc, valid-type]
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                drip = site.drips.get(self.path)
                if drip is None:
                    return super().do_GET()
                site.requests.append((self.path, {k.lower(): v for k, v in
                                                  self.headers.items()}))
                body, every, headers_too, content_type = drip
                head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
                        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
                try:
                    if headers_too:
                        site._trickle(self.wfile, head + body, every)
                    else:
                        self.wfile.write(head)
                        self.wfile.flush()
                        site._trickle(self.wfile, body, every)
                except OSError:
                    return  # the client gave up: what we want it to do
                self.close_connection = True

        assert issubclass(Handler, BaseHTTPRequestHandler)
        self.server.RequestHandlerClass = Handler

    def _trickle(self, out, data: bytes, every: float) -> None:
        for index in range(len(data)):
            if self.stop.wait(every if index else 0):
                return
            out.write(data[index:index + 1])
            out.flush()

    # --- scripting ---------------------------------------------------------------------------
    @property
    def host(self) -> str:
        return f"{self.name}:{self.port}"

    def url(self, path: str, host: str | None = None) -> str:
        return f"http://{host or self.name}:{self.port}{path}"

    def serve_json(self, path: str, document: Any, content_type: str = AP, **options) -> str:
        return self.serve(path, json.dumps(document), content_type, **options)

    def drip(self, path: str, body: bytes | str, *, every: float = 1.0, headers_too: bool = False,
             content_type: str = AP) -> str:
        data = body.encode() if isinstance(body, str) else body
        self.drips[path] = (data, every, headers_too, content_type)
        return self.url(path)

    def actor(self, username: str = "mallory", *, key_index: int = 0, **overrides: Any) -> Peer:
        return Peer(self, username, key_index=key_index, **overrides)

    @staticmethod
    def post_as(client, peer: Peer, activity: dict[str, Any], path: str = "/inbox",
                **signing: Any):
        """POST `activity` signed by `peer`'s key, or by the `private_key`/`key_id` given."""
        return peer.post(client, activity, path, **signing)

    def close(self) -> None:
        self.stop.set()
        super().close()


# Bookkeeping every accepted POST writes, not state: the host's window of its share of the
# inbox worker (federation/inbox/quota.py).
BOOKKEEPING = ("rate_window",)


def count_state() -> dict[str, int]:
    """What an attack must not change: accounts, statuses, follows and URI index entries (every
    item of the table, by type, but the rate windows)."""
    from stratus.repo import base
    from stratus.repo.client import dynamodb

    counts: dict[str, int] = {}
    pages = dynamodb().get_paginator("scan").paginate(TableName=base.table())
    for page in pages:
        for raw in page["Items"]:
            kind = raw.get("type", {}).get("S", "?")
            if kind not in BOOKKEEPING:
                counts[kind] = counts.get(kind, 0) + 1
    return counts


def _new_peer(name: str = "127.0.0.1"):
    from stratus.core import outbound

    outbound.reset()
    return HostilePeer(name)


class Resolver:
    """The names the `dns` fixture answers 127.0.0.1 for, keyed as a real resolver is asked:
    Python's socket module sends a Unicode name through its `idna` codec (IDNA 2003, `。`
    a dot) before any DNS query, so `evil。example` and `evil.example` are one question."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.asked: list[str] = []  # every name looked up, as our code passed it

    @staticmethod
    def question(host: str) -> str:
        return (host if host.isascii() else host.encode("idna").decode()).lower().rstrip(".")

    def add(self, name: str) -> None:
        self.names.add(self.question(name))

    def lookup(self, host: str, port: int, _seconds: float | None) -> list:
        import socket

        self.asked.append(host)
        if self.question(host) in self.names:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        # numbers as getaddrinfo reads them (inet_aton: 2130706433, 0x7f.1); never the network
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                  flags=socket.AI_NUMERICHOST)


@pytest.fixture
def dns(monkeypatch):
    """The test stack resolving host names as production does, by a lookup and then the
    address rules (only loopback outside production), instead of its shortcut that asks for
    loopback names only: names added (`dns.add("пример.рф")`) answer 127.0.0.1, numeric
    spellings are parsed as getaddrinfo parses them, nothing reaches the network."""
    from stratus.core import addresses

    resolver = Resolver()
    monkeypatch.setattr(addresses, "_lookup", resolver.lookup)
    monkeypatch.setattr(addresses, "_loopback_name", lambda host: True)
    return resolver


def named_peer(resolver: Resolver, name: str) -> HostilePeer:
    """A HostilePeer whose ids name its host `name`, which `resolver` (the `dns` fixture) answers
    with 127.0.0.1 (close it when done)."""
    resolver.add(name)
    return _new_peer(name)


@pytest.fixture
def hostile():
    """The attacker's server."""
    served = _new_peer()
    yield served
    served.close()


@pytest.fixture
def victim_site():
    """A well-behaved server whose accounts the attacker tries to impersonate."""
    served = _new_peer()
    yield served
    served.close()


def wait_for(predicate, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
