"""Signed server-to-server requests: fetching ActivityPub objects and posting activities to
inboxes (docs/federation.md). Every request goes through `stratus.outbound`'s address rules
(no private, loopback or link-local address in production, each redirect target checked
again, bounded size and time); every GET is signed as the instance actor (so servers in
authorized-fetch mode answer), every POST as the actor whose activity it carries.
"""

from __future__ import annotations

import json
from typing import Any

from .. import outbound
from ..convert import activitypub as ap
from . import signatures

ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
JSON_TYPES = ("application/activity+json", "application/ld+json", "application/json")
MAX_OBJECT_BYTES = 1024 * 1024
MAX_RESPONSE_BYTES = 64 * 1024
FETCH_SECONDS = 15.0
POST_SECONDS = 15.0


class FetchFailed(outbound.Refused):
    """The object could not be fetched or is not an ActivityPub JSON object; `status` is the
    HTTP status when the server answered (410: it is gone)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def key_id(username: str | None) -> str:
    """The `keyId` of a local actor's key (None: the instance actor)."""
    return (ap.actor_url(username) if username else ap.instance_actor_url()) + "#main-key"


def _signer(username: str | None, account_id: str | None, *, body: bytes | None = None,
            accept: str | None = None):
    from ..services import actor_keys

    private_key = actor_keys.private_key(account_id)

    def headers_for(method: str, url: str) -> dict[str, str]:
        host, path = outbound.target(url)
        return signatures.sign_cavage(method, host, path, key_id=key_id(username),
                                      private_key=private_key, body=body, accept=accept)
    return headers_for


def fetch_object(url: str, *, deadline: outbound.Deadline | None = None) -> dict[str, Any]:
    """GET an ActivityPub object (signed as the instance actor; redirects followed and each
    re-signed). FetchFailed unless a 200 JSON object comes back."""
    response = outbound.request(
        "GET", url, accept=ACCEPT, max_bytes=MAX_OBJECT_BYTES,
        deadline=deadline or outbound.Deadline(FETCH_SECONDS),
        headers_for=_signer(None, None, accept=ACCEPT), follow_redirects=True)
    if response.status != 200:
        raise FetchFailed(f"{url} answered {response.status}", response.status)
    if response.content_type not in JSON_TYPES:
        raise FetchFailed(f"{url} is {response.content_type or 'untyped'}, not ActivityPub",
                          response.status)
    try:
        found = json.loads(response.body)
    except ValueError:
        raise FetchFailed(f"{url} is not JSON", response.status) from None
    if not isinstance(found, dict):
        raise FetchFailed(f"{url} is not a JSON object", response.status)
    return found


def post_activity(inbox_url: str, body: bytes, *, username: str | None,
                  account_id: str | None,
                  deadline: outbound.Deadline | None = None) -> outbound.Response:
    """POST an activity (its exact bytes) to an inbox, signed by its actor (username and
    account id; None for the instance actor). The answer, whatever its status; Refused when
    the inbox cannot be reached or may not be (address rules)."""
    return outbound.request(
        "POST", inbox_url, accept="application/activity+json, application/json",
        max_bytes=MAX_RESPONSE_BYTES, deadline=deadline or outbound.Deadline(POST_SECONDS),
        body=body, headers_for=_signer(username, account_id, body=body))
