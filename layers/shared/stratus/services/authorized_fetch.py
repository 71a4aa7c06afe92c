"""Authorized fetch ("secure mode", Mastodon's AUTHORIZED_FETCH; docs/federation.md,
"Authorized fetch"): when the `authorized_fetch` setting is on, the ActivityPub representations
of actors, collections and statuses are served only to signed GETs whose signature verifies
(Mastodon's `require_account_signature!`), and never to a server of a suspended (or, in
limited federation mode, not allowed) domain. The instance actor, WebFinger, host-meta and
NodeInfo stay public, as at Mastodon: a peer needs them to fetch our instance actor's key
before it can verify anything we sign.

The signer's key is found by `key_for(key_id, refetch)`: by default the key document is
fetched (signed as our instance actor) and its PEM kept in this process for an hour; a failed
verification asks again with refetch=True, which fetches afresh (key rotation).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urlsplit

from .. import outbound
from ..config import settings as config
from ..errors import Forbidden, Unauthorized
from ..federation import signatures
from . import domain_blocks
from . import settings as settings_service

KEY_CACHE_SECONDS = 3600
_keys: dict[str, tuple[float, str]] = {}  # key id -> (fetched at, PEM)


@dataclass(frozen=True)
class Access:
    """What a GET of an ActivityPub representation was allowed as: `required` when authorized
    fetch is on (the answer is then private to its signer and varies by Signature)."""

    required: bool
    signer: signatures.Verified | None = None


def enabled() -> bool:
    return bool(settings_service.current()["authorized_fetch"])


def _pem_of(document: dict[str, Any], key_id: str) -> str | None:
    """The PEM of key `key_id` in an actor (its `publicKey`, one or a list) or a key document."""
    candidates: list[Any] = [document]
    found = document.get("publicKey")
    candidates += found if isinstance(found, list) else [found]
    for candidate in candidates:
        if isinstance(candidate, dict) and candidate.get("id") == key_id and \
                isinstance(candidate.get("publicKeyPem"), str):
            return candidate["publicKeyPem"]
    return None


def fetched_key(key_id: str, refetch: bool) -> str | None:
    """The public key PEM behind a keyId, from the key's document (the actor for a `#main-key`
    id); None when it cannot be fetched, is one of ours, or is served from another host."""
    from ..federation import http

    now = time.monotonic()
    cached = _keys.get(key_id)
    if cached and not refetch and now - cached[0] < KEY_CACHE_SECONDS:
        return cached[1]
    if key_id.startswith(config().base_url + "/"):
        return None
    try:
        document = http.fetch_object(urldefrag(key_id).url)
    except outbound.Refused:  # unreachable, refused, not an object: the key is not found
        return None
    if urlsplit(str(document.get("id", ""))).hostname != urlsplit(key_id).hostname:
        return None
    pem = _pem_of(document, key_id)
    if pem is not None:
        _keys[key_id] = (now, pem)
    return pem


def check(method: str, path: str, query: str, headers: dict[str, str], *,
          key_for: signatures.KeyFor | None = None) -> Access:
    """Let a GET of an actor, collection or status through, or refuse it: 401 unsigned or
    badly signed (the reason as the error), 403 signed from a domain we do not federate with.
    Nothing is checked while authorized fetch is off."""
    if not enabled():
        return Access(False)
    if not headers.get("signature") and not headers.get("signature-input"):
        raise Unauthorized("Request not signed")
    key_id = signatures.signed_key_id(headers)
    domain = urlsplit(key_id).hostname if key_id else None
    if domain and not domain_blocks.allowed(domain):
        raise Forbidden(f"Requests from {domain} are not accepted")
    try:
        signer = signatures.verify(method, path, query, headers, None,
                                   key_for=key_for or fetched_key, scheme=config().scheme)
    except signatures.SignatureError as refused:
        raise Unauthorized(refused.message) from None
    return Access(True, signer)


def reset() -> None:
    """Forget the keys kept in this process (tests)."""
    _keys.clear()
