"""Documents a remote server serves (actors, WebFinger answers, Notes), for the federation
tests, on the loopback site of tests/rig/sites.py."""

from __future__ import annotations

import json
from typing import Any

AP = "application/activity+json"
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
PEM = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest\n-----END PUBLIC KEY-----"


def host(site) -> str:
    """The site's host as our side writes it (a HostilePeer may go by another name: a Unicode
    one is asked in punycode)."""
    from stratus.core import hosts

    return hosts.normalize(getattr(site, "host", None) or f"127.0.0.1:{site.port}")


def actor(site, username: str = "bob", **overrides: Any) -> dict[str, Any]:
    uri = site.url(f"/users/{username}")
    document = {
        "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
        "id": uri, "type": "Person", "preferredUsername": username, "name": "Bob Remote",
        "summary": "<p>Hello <script>alert(1)</script><a href=\"https://x.example/\">there</a></p>",
        "url": site.url(f"/@{username}"), "inbox": f"{uri}/inbox",
        "outbox": f"{uri}/outbox", "followers": f"{uri}/followers",
        "following": f"{uri}/following", "featured": f"{uri}/collections/featured",
        "manuallyApprovesFollowers": False, "discoverable": True, "indexable": True,
        "published": "2023-04-05T00:00:00Z",
        "endpoints": {"sharedInbox": site.url("/inbox")},
        "publicKey": {"id": f"{uri}#main-key", "owner": uri, "publicKeyPem": PEM},
        "icon": {"type": "Image", "mediaType": "image/png", "url": site.url("/avatar.png")},
        "image": {"type": "Image", "mediaType": "image/png", "url": site.url("/header.png")},
        "attachment": [{"type": "PropertyValue", "name": "Site",
                        "value": "<a href=\"https://bob.example\" rel=\"me\">bob.example</a>"}],
    }
    document.update(overrides)
    return document


def serve_actor(site, username: str = "bob", **overrides: Any) -> dict[str, Any]:
    """Serve an actor at `/users/<username>`, and WebFinger's answer for `username@host` (as a
    server does for its users: by the name in its path, whatever the document claims)."""
    document = actor(site, username, **overrides)
    site.serve(f"/users/{username}", json.dumps(document), AP)
    serve_webfinger(site, username)
    return document


def serve_webfinger(site, username: str = "bob", href: str | None = None) -> None:
    acct = f"{username}@{host(site)}"
    site.serve(f"/.well-known/webfinger?resource=acct:{acct}", json.dumps({
        "subject": f"acct:{acct}",
        "links": [{"rel": "http://webfinger.net/rel/profile-page", "type": "text/html",
                   "href": site.url(f"/@{username}")},
                  {"rel": "self", "type": AP, "href": href or site.url(f"/users/{username}")}]}),
        "application/jrd+json")


def note(site, number: int = 1, username: str = "bob", **overrides: Any) -> dict[str, Any]:
    author = site.url(f"/users/{username}")
    uri = f"{author}/statuses/{number}"
    document = {
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": uri, "type": "Note", "attributedTo": author,
        "url": site.url(f"/@{username}/{number}"),
        "published": "2026-01-02T03:04:05Z",
        "to": [PUBLIC], "cc": [f"{author}/followers"],
        "content": f"<p>Note {number}</p>", "sensitive": False, "summary": None,
    }
    document.update(overrides)
    return document


def serve_note(site, number: int = 1, username: str = "bob", **overrides: Any) -> dict[str, Any]:
    document = note(site, number, username, **overrides)
    site.serve(f"/users/{username}/statuses/{number}", json.dumps(document), AP)
    return document
