"""Authorized fetch ("secure mode", Mastodon's AUTHORIZED_FETCH; docs/federation.md,
"Authorized fetch"): when the `authorized_fetch` setting is on, the ActivityPub representations
of actors, collections and statuses are served only to signed GETs whose signature verifies
(Mastodon's `require_account_signature!`), and never to a server of a suspended (or, in
limited federation mode, not allowed) domain. The instance actor, WebFinger, host-meta and
NodeInfo stay public, as at Mastodon: a peer needs them to fetch our instance actor's key
before it can verify anything we sign.

The answer is the signing ACCOUNT (Mastodon's `signed_request_account`): the remote account
that owns the keyId, found by `remote_accounts.by_key_id` — stored, or fetched and stored when
unknown, and fetched again when its stored key fails (a rotation). What that account may read
of an author (blocks, followers-only and direct statuses) is decided where the documents are
made (federation/activitypub.py). A signer that staff suspended is answered as any signing
account, as Mastodon answers it (neither `signed_request_account` nor the policies look at the
signer's own suspension): what the suspension takes away is its follows, ended with a
Reject(Follow) (federation/follows.py), so followers-only statuses stop reaching it, and its
stored key stays the one it had (remote_accounts: a key it rotates to verifies nothing here).
A signer of a domain we do not federate with gets Mastodon's 403 before any key is looked up.
No key is kept in this process: like Mastodon, which reads the signer's account from its
database on every request (`uri_to_actor`), the stored account is the cache, shared by every
function instance and updated when the key rotates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stratus.core import hosts, urls
from stratus.core.errors import Forbidden, Unauthorized
from stratus.federation import remote_accounts, signature_checks, signatures
from stratus.read import domain_blocks
from stratus.read import settings as settings_service


@dataclass(frozen=True)
class Access:
    """What a GET of an ActivityPub representation was allowed as: `required` when authorized
    fetch is on (the answer is then private to its signer and varies by Signature), and then
    the signing remote account (`account`, its profile)."""

    required: bool
    signer: signature_checks.Verified | None = None
    account: dict[str, Any] | None = None


def enabled() -> bool:
    return bool(settings_service.current()["authorized_fetch"])


def check(method: str, path: str, query: str, headers: dict[str, str]) -> Access:
    """Let a GET of an actor, collection or status through, or refuse it: 401 unsigned or
    badly signed (the reason as the error), 403 signed from a domain we do not federate with.
    Nothing is checked while authorized fetch is off."""
    if not enabled():
        return Access(False)
    if not headers.get("signature") and not headers.get("signature-input"):
        raise Unauthorized("Request not signed")
    key_id = signature_checks.signed_key_id(headers)
    domain = hosts.hostname(urls.host_of(key_id)) if key_id else None
    if domain and not domain_blocks.allowed(domain):
        # Mastodon's keypair_from_key_id: no key is looked up for such a domain, and the 403
        # says so in its words
        raise Forbidden(f"Public key not found for key {key_id}")
    try:
        signer, account = remote_accounts.verify_signed(method, path, query, headers, None)
    except signatures.SignatureError as refused:
        raise Unauthorized(refused.message) from None
    return Access(True, signer, account)
