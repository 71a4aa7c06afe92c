"""Remote accounts: actors of other servers, fetched, stored as accounts and kept fresh
(docs/federation.md, "Remote accounts"); Mastodon's ActivityPub::FetchRemoteAccountService,
ProcessAccountService and ResolveAccountService. What a document says, and whether it is
believed, is federation/actor_documents.py.

A remote account is the same `account` profile item a local account has, plus its handle
(`username@domain`, unique per domain), its staff index entry (origin remote), its entry by
domain (`repo/accounts.remote_index_ops`; its domain's peer item is noted before, outside the
transaction: `repo/peers.remember`) and URI index entries for its actor id and key id
(`repo/uris.py`). The domain is the actor id's host, with its port when it has one.

Rules (Mastodon's): accounts of a domain suspended by a block, or outside the allowlist in
limited federation mode, are never stored; a silenced domain's new accounts are stored
silenced. Writes that the URI index refuses (an id or key id another account holds:
repo/uris.py) store nothing.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from stratus.core import clock, ids, jsondoc, outbound
from stratus.core.config import settings
from stratus.core.observability import logger
from stratus.federation import actor_documents as documents
from stratus.federation import http
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import domain_blocks as domain_blocks_repo
from stratus.repo import moderation as moderation_repo
from stratus.repo import peers, transaction, uris

STALE_AFTER = timedelta(hours=24)  # Mastodon's Account#possibly_stale? (1 day)
WEBFINGER_BYTES = 64 * 1024
WEBFINGER_SECONDS = 10.0
JRD_ACCEPT = "application/jrd+json, application/json"
ACTIVITY_TYPES = ("application/activity+json", "application/ld+json")


# --- our own URLs ------------------------------------------------------------------------------
def local_account_id(uri: str) -> str | None:
    """The id of the local account one of our actor URLs names (None for anything else)."""
    username = documents.local_username(uri)
    return accounts_repo.id_by_handle(username) if username else None


# --- policy ------------------------------------------------------------------------------------
def may_federate(domain: str) -> bool:
    """Whether accounts of `domain` may be fetched and stored (not suspended by a block, inside
    the allowlist in limited federation mode)."""
    return domain_blocks.allowed(documents.hostname_of(domain))


def _created_at(published: str | None) -> str:
    """`published` when it is a sane time (Mastodon takes it as the account's creation)."""
    if published:
        try:
            moment = datetime.fromisoformat(published.replace("Z", "+00:00"))
            if moment.tzinfo is not None and moment <= clock.now():
                return clock.iso(moment)
        except ValueError:
            pass
    return clock.iso(clock.now())


# --- storing -----------------------------------------------------------------------------------
def _get(account_id: str) -> dict[str, Any] | None:
    profile = accounts_repo.get_profile(account_id)
    return profile if profile and profile.get("domain") else None


def find(uri: str) -> dict[str, Any] | None:
    """The stored remote account with this actor id (or key id), without fetching."""
    found = uris.find(uri)
    if found is None or found[0] not in ("account", "key"):
        return None
    return _get(found[1])


def _by_actor_id(uri: str) -> dict[str, Any] | None:
    """The stored remote account whose actor id is `uri` (never a key id's owner)."""
    found = uris.find(uri)
    return _get(found[1]) if found is not None and found[0] == "account" else None


def _profile_fields(parsed: dict[str, Any]) -> dict[str, Any]:
    fields = {k: v for k, v in parsed.items() if k != "published"}
    fields["fetched_at"] = clock.iso(clock.now())
    return fields


def _create(parsed: dict[str, Any]) -> dict[str, Any] | None:
    policy = domain_blocks.policy_for(documents.hostname_of(parsed["domain"]))
    profile = {"id": ids.new_id(), **_profile_fields(parsed),
               "created_at": _created_at(parsed["published"])}
    if policy.silenced:
        # Mastodon silences a silenced domain's new accounts; with the block's own time, so
        # lifting the block lifts it (workers/moderation.apply).
        block = domain_blocks_repo.block(policy.block_domain or "")
        profile["silenced_at"] = (block or {}).get("created_at") or clock.iso(clock.now())
    # The domain's peer item first, outside the transaction (repo/peers.py): concurrent new
    # actors of one server never conflict on it.
    peers.remember(profile["domain"])
    ops = [*accounts_repo.remote_create_ops(profile),
           uris.claim_op(profile["uri"], "account", profile["id"], owner_uri=profile["uri"]),
           *moderation_repo.index_ops(profile, None),
           *accounts_repo.remote_index_ops(profile)]
    if profile.get("key_id") and profile["key_id"] != profile["uri"]:
        ops.append(uris.claim_op(profile["key_id"], "key", profile["id"],
                                 owner_uri=profile["uri"]))
    try:
        transaction.write(ops)
    except transaction.ConditionFailed:
        # Another writer stored this actor first (then it is found by its id), or another
        # actor holds the handle on this domain, or its id or key id (then this one is
        # refused, and nothing of it is stored).
        found = _by_actor_id(profile["uri"])
        if found is None:
            logger.info("remote actor refused: its handle, id or key id is another's",
                        extra={"uri": profile["uri"], "key_id": profile.get("key_id")})
        return found
    return profile


def _update(current: dict[str, Any], parsed: dict[str, Any]) -> dict[str, Any]:
    changes = _profile_fields(parsed)
    # The handle stays: a changed preferredUsername would need its own WebFinger check.
    changes.pop("username")
    changes.pop("domain")
    if current.get("suspended_at") and current.get("suspension_origin") == "local":
        # Suspended here: its key stays the one it had (ProcessAccountService#update_account:
        # `set_fetchable_key! unless suspended? && suspension_origin_local?`), so a key it
        # rotates to afterwards signs nothing we accept (authorized fetch, the inbox).
        changes.pop("key_id", None)
        changes.pop("public_key_pem", None)
    ops = [accounts_repo.profile_update_op(current["id"], changes)]
    old_key, new_key = current.get("key_id"), changes.get("key_id")
    if new_key != old_key:
        if old_key and old_key != current["uri"]:
            ops.append(uris.release_op(old_key, "key", current["id"]))
        if new_key and new_key != current["uri"]:
            ops.append(uris.claim_op(new_key, "key", current["id"], owner_uri=current["uri"]))
    try:
        transaction.write(ops)
    except transaction.ConditionFailed:
        # The new key id is another account's (repo/uris.py): the profile stays as it was.
        logger.info("remote actor update refused: its key id is another's",
                    extra={"uri": current["uri"], "key_id": new_key})
        return current
    return {**current, **{k: v for k, v in changes.items() if v is not None},
            **{k: None for k, v in changes.items() if v is None}}


def store(document: dict[str, Any], *, fetched_from: str) -> dict[str, Any] | None:
    """Create or update the account an actor document describes; None when it is invalid
    (`fetched_from`: see actor_documents.parse), its domain may not federate, or the URI index
    refuses it."""
    try:
        parsed = documents.parse(document, fetched_from=fetched_from)
    except documents.Invalid:
        return None
    current = _by_actor_id(parsed["uri"])
    if current is not None:
        return _update(current, parsed)
    if not may_federate(parsed["domain"]):
        return None
    return _create(parsed)


def _stale(profile: dict[str, Any]) -> bool:
    fetched = profile.get("fetched_at")
    if not fetched:
        return True
    return clock.parse_iso(fetched) + STALE_AFTER < clock.now()


def _fetch(uri: str, current: dict[str, Any] | None) -> dict[str, Any] | None:
    """Fetch and store the actor at `uri`; a 410 removes the stored account. The stored
    profile (if any) when the fetch fails otherwise."""
    try:
        document = http.fetch_object(uri, id_is_known=True)
    except http.FetchFailed as exc:
        if exc.status == 410 and current is not None:
            remove(current["id"])
            return None
        return current
    except outbound.Refused:
        return current
    if current is not None:
        try:
            parsed = documents.parse(document, fetched_from=uri)
        except documents.Invalid:
            return current
        return _update(current, parsed)
    return store(document, fetched_from=uri)


def resolve(uri: str, *, refresh: bool = False) -> dict[str, Any] | None:
    """The remote account with actor id `uri`: stored, or fetched when unknown (or, with
    `refresh`, stale: fetched more than 24 hours ago). None when it cannot be fetched, is not a
    valid actor, its domain may not federate, or `uri` is one of ours."""
    if not isinstance(uri, str) or not uri.startswith(("https://", "http://")) or \
            documents.is_local(uri):
        return None
    current = _by_actor_id(uri)
    if current is not None and not (refresh and _stale(current)):
        return current
    if current is None and not may_federate(documents.host_of(uri)):
        return None
    if current is not None and not may_federate(current["domain"]):
        return current  # a suspended domain's accounts are not refreshed
    return _fetch(uri, current)


def refetch_account(account_id: str) -> dict[str, Any] | None:
    """Fetch a stored remote account's actor again now (after a signature failed to verify
    with its key, or an Update)."""
    current = _get(account_id)
    if current is None or not may_federate(current["domain"]):
        return current
    return _fetch(current["uri"], current)


def by_key_id(key_id: str, *, refetch: bool = False) -> dict[str, Any] | None:
    """The remote account whose key is `key_id` (an HTTP signature's keyId): an account whose
    `publicKey.id` it is, on the account's own host (actor_documents.parse). Unknown keys are
    fetched as Mastodon's FetchRemoteKeyService does: the key URL serves the actor
    (`…#main-key`, or GoToSocial's key URL that serves its owner; fetch_object then refetches
    the actor by its own id), or a key object naming itself by the key id, whose `owner` is
    then fetched by its id; either way only the exact actor's document is stored, and only
    when it names this key.
    `refetch` refreshes a known account (its key may have been rotated)."""
    if not isinstance(key_id, str) or documents.is_local(key_id):
        return None
    known = find(key_id)
    if known is not None:
        if refetch:
            known = refetch_account(known["id"])
        return known if known and known.get("key_id") == key_id else None
    if not key_id.startswith(("https://", "http://")):
        return None
    if not may_federate(documents.host_of(key_id)):
        return None
    try:
        document = http.fetch_object(key_id)  # served at its own id, whatever that is
    except outbound.Refused:
        return None
    document_id = documents.uri_of(document)
    if any(k in documents.ACTOR_TYPES for k in documents.as_list(document.get("type"))):
        try:
            parsed = documents.parse(document, fetched_from=document_id or "")
        except documents.Invalid:
            return None
        if parsed["key_id"] != key_id:
            return None  # not this actor's key: nothing of the document is stored
        profile = store(document, fetched_from=parsed["uri"])
    else:
        owner = documents.uri_of(document.get("owner"))
        if document_id != key_id or not owner or not uris.on_host_of(key_id, owner):
            return None
        profile = _by_actor_id(owner)
        if profile is None:
            profile = resolve(owner)
        elif profile.get("key_id") != key_id:
            profile = refetch_account(profile["id"])
    return profile if profile and profile.get("key_id") == key_id else None


def verify_signed(method: str, path: str, query: str, headers: dict[str, str],
                  body: bytes | None) -> tuple[Any, dict[str, Any]]:
    """(the verified signature, the remote account that signed) of a signed request: the key
    is the account's that owns the keyId (`by_key_id`; refetched once when it does not verify,
    for rotated keys). signatures.SignatureError when it does not verify or no account owns
    the key. The inbox and authorized fetch both ask this."""
    from stratus.federation import signature_checks, signatures

    owners: dict[str, dict[str, Any]] = {}

    def key_for(key_id: str, refetch: bool) -> str | None:
        profile = by_key_id(key_id, refetch=refetch)
        if profile is None or not profile.get("public_key_pem"):
            return None
        owners[key_id] = profile
        return profile["public_key_pem"]

    verified = signature_checks.verify(method, path, query, headers, body, key_for=key_for,
                                       scheme=settings().scheme)
    owner = owners.get(verified.key_id)
    if owner is None:  # verified with a key no account owns: not a signer we can name
        raise signatures.SignatureError(f"Public key not found for key {verified.key_id}")
    return verified, owner


def update_from(document: dict[str, Any]) -> dict[str, Any] | None:
    """Apply an actor document delivered in an Update (the inbox verified it is the actor's
    own): the stored account changes; an unknown actor is stored as if fetched."""
    actor_id = documents.uri_of(document) if isinstance(document, dict) else None
    if not actor_id:
        return None
    return store(document, fetched_from=actor_id)


def remove(account_id: str) -> None:
    """The actor is gone (Delete of the actor, 410 on refetch): suspend the account and purge
    what it had, as Mastodon's DeleteAccountService does for a remote account. Its profile,
    handle and URI entries stay, so replays of its activities find a suspended account."""
    profile = _get(account_id)
    if profile is None:
        return
    now = clock.iso(clock.now())
    request = {"account_id": account_id, "requested_by": None,
               "suspended_at": profile.get("suspended_at") or now, "created_at": now}
    if profile.get("suspended_at"):
        try:
            transaction.write([moderation_repo.purge_request_op(request)])
        except transaction.ConditionFailed:
            pass  # a purge is under way
        return
    moderation_repo.suspend(account_id, at=now, origin="remote",
                            also=[moderation_repo.purge_request_op(request)])


# --- WebFinger -----------------------------------------------------------------------------------
def _loopback(host: str) -> bool:
    name = documents.hostname_of(host).strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def webfinger_url(username: str, domain: str) -> str:
    """https, or http for a loopback host outside production (test peers)."""
    scheme = "http" if _loopback(domain) and not settings().is_production else "https"
    resource = quote(f"acct:{username}@{domain}", safe=":@")
    return f"{scheme}://{domain}/.well-known/webfinger?resource={resource}"


def split_acct(acct: str) -> tuple[str, str | None]:
    """`@user@host`, `user@host`, `acct:user@host` → (user, host or None)."""
    text = (acct or "").strip().removeprefix("acct:").removeprefix("@")
    username, _, domain = text.partition("@")
    return username, (domain.lower() or None)


def _actor_link(document: Any) -> str | None:
    if not isinstance(document, dict):
        return None
    for link in documents.as_list(document.get("links")):
        if (isinstance(link, dict) and link.get("rel") == "self"
                and isinstance(link.get("href"), str)
                and str(link.get("type", "")).split(";")[0].strip() in ACTIVITY_TYPES):
            return link["href"]
    return None


def resolve_acct(acct: str, *, refresh: bool = False) -> dict[str, Any] | None:
    """The remote account `user@host` names: stored, or found by WebFinger (the `self` link)
    and fetched. None for a local or invalid address, an unreachable or unknown one, or a
    domain we may not federate with."""
    username, domain = split_acct(acct)
    if not username or not domain or domain == settings().domain.lower():
        return None
    account_id = accounts_repo.id_by_handle(username, domain)
    current = _get(account_id) if account_id else None
    if current is not None and not (refresh and _stale(current)):
        return current
    if not may_federate(domain):
        return current
    try:
        response = outbound.request("GET", webfinger_url(username, domain), accept=JRD_ACCEPT,
                                    max_bytes=WEBFINGER_BYTES,
                                    deadline=outbound.Deadline(WEBFINGER_SECONDS),
                                    follow_redirects=True)
        document = jsondoc.loads(response.body) if response.status == 200 else None
    except (outbound.Refused, ValueError):
        return current
    href = _actor_link(document)
    if not href:
        return current
    if current is not None and current["uri"] == href:
        return refetch_account(current["id"])
    profile = resolve(href, refresh=refresh)
    if profile is None or profile["username"].lower() != username.lower():
        return current
    return profile
