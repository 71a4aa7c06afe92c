"""A remote ActivityPub server for the inbox tests: an actor with a real RSA key pair whose
document (and inbox) a loopback site serves, which builds activities and POSTs them to our
inboxes signed as Mastodon signs them (draft-cavage), or badly signed on purpose."""

from __future__ import annotations

import functools
import itertools
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.federation import peers as documents
from tests.rig.sites import Site

AP = "application/activity+json"
PUBLIC = documents.PUBLIC


@functools.cache
def key_pair(index: int = 0):
    """RSA-2048 private keys, made once per test session (index: a different key)."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(private_key) -> str:
    from cryptography.hazmat.primitives import serialization

    return private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


class PeerSite(Site):
    """The loopback site, also taking POSTs (a peer's inbox): each one is kept in `posts` as
    (path, headers, JSON body) and answered 202."""

    def __init__(self) -> None:
        super().__init__()
        site = self
        self.posts: list[tuple[str, dict[str, str], Any]] = []
        base_handler = self.server.RequestHandlerClass

        class Handler(base_handler):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw
                site.posts.append((self.path, {k.lower(): v for k, v in self.headers.items()},
                                   body))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

        assert issubclass(Handler, BaseHTTPRequestHandler)
        self.server.RequestHandlerClass = Handler

    def received(self, kind: str) -> list[dict[str, Any]]:
        return [body for _, _, body in self.posts if isinstance(body, dict) and
                body.get("type") == kind]


class Peer:
    """One remote actor (`username` on the site), its key pair and its activities."""

    def __init__(self, site: Site, username: str = "bob", *, key_index: int = 0,
                 **overrides: Any) -> None:
        self.site = site
        self.username = username
        self.private_key = key_pair(key_index)
        self.uri = site.url(f"/users/{username}")
        self.key_id = f"{self.uri}#main-key"
        self.counter = itertools.count(1)
        self.document = documents.actor(site, username, **{
            "publicKey": {"id": self.key_id, "owner": self.uri,
                          "publicKeyPem": public_pem(self.private_key)}, **overrides})
        self.serve()
        # Its server's WebFinger knows it by the name in its path (whatever its document
        # later claims as preferredUsername).
        documents.serve_webfinger(site, username)

    def serve(self, **changes: Any) -> dict[str, Any]:
        self.document.update(changes)
        self.site.serve(f"/users/{self.username}", json.dumps(self.document), AP)
        return self.document

    @property
    def followers(self) -> str:
        return self.document["followers"]

    def new_id(self, kind: str) -> str:
        return f"{self.uri}/{kind.lower()}s/{next(self.counter)}"

    def activity(self, kind: str, obj: Any, **extra: Any) -> dict[str, Any]:
        return {"@context": "https://www.w3.org/ns/activitystreams", "id": self.new_id(kind),
                "type": kind, "actor": self.uri, "object": obj, **extra}

    def note(self, content: str, **extra: Any) -> dict[str, Any]:
        note_id = self.new_id("note")
        return {"id": note_id, "type": "Note", "attributedTo": self.uri, "content": content,
                "published": "2026-01-01T00:00:00Z", "to": [PUBLIC], "cc": [self.followers],
                "url": note_id, **extra}

    def headers(self, path: str, body: bytes, *, host: str = "localhost:8000",
                private_key=None, key_id: str | None = None, now: float | None = None,
                content_type: str = AP) -> dict[str, str]:
        from stratus.federation import signatures

        return signatures.sign_cavage("POST", host, path, key_id=key_id or self.key_id,
                                      private_key=private_key or self.private_key, body=body,
                                      content_type=content_type, now=now)

    def post(self, client, activity: dict[str, Any], path: str = "/inbox", *,
             body: bytes | None = None, **signing: Any):
        """POST an activity (signed over `body`, its JSON unless given) through the client."""
        body = json.dumps(activity).encode() if body is None else body
        return client.post(path, content=body, headers=self.headers(path, body, **signing))

    def expired_headers(self, path: str, body: bytes) -> dict[str, str]:
        return self.headers(path, body, now=time.time() - 2 * 3600)
