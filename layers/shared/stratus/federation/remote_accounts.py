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
silenced. A new account is stored only under the handle WebFinger confirms is its own
(federation/webfinger.confirm) and only with a key id it owns (`owns_key`: never another
actor's id or key); nothing of it is stored otherwise. Writes that the URI index refuses (an
id or key id another account holds: repo/uris.py) store nothing, and so does a profile
DynamoDB cannot store (over 400 KB: repo/item_size.py; each field is bounded, but sanitising
can make a note and 16 field values fifteen times longer: an empty `<a>` gets `target` and
`rel`): the actor is refused, as an invalid one is. A 410 ends an account only when its own
host answers it (http.FetchFailed.gone); a signature that fails with a stored key refetches
the actor at most once per cool-down (`_refetch_for_signature`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urldefrag

from stratus.core import clock, hosts, ids, outbound
from stratus.core.config import settings
from stratus.core.observability import logger
from stratus.federation import actor_documents as documents
from stratus.federation import http, webfinger
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import dedupe
from stratus.repo import domain_blocks as domain_blocks_repo
from stratus.repo import item_size
from stratus.repo import moderation as moderation_repo
from stratus.repo import peers, transaction, uris

STALE_AFTER = timedelta(hours=24)  # Mastodon's Account#possibly_stale? (1 day)
# A signature that fails with the stored key refetches its actor at most this often per
# account (Mastodon's signature stoplight cools off for 5 minutes).
KEY_REFETCH_COOL_DOWN = 300
KEY_REFETCH = "key-refetch"


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


def owns_key(key_id: str, actor_id: str, *, seen: str | None = None) -> bool:
    """Whether `key_id` is `actor_id`'s key: a key id is never another actor's id. A key in the
    actor's own document (`<actor id>#main-key`, or the id itself) is; a key at another URL
    (GoToSocial's `…/main-key`, a key object) is only when that URL serves this very actor or
    a key object that names it its owner (Mastodon's FetchRemoteKeyService: the document at a
    key id is its owner's), fetched here unless the caller just saw it (`seen`: that key id).
    So an actor naming another actor's id, or that actor's key, is refused before anything is
    stored, whichever of them comes first."""
    if urldefrag(key_id).url == actor_id or key_id == seen:
        return True
    try:
        document = http.fetch_object(key_id)
    except outbound.Refused:
        return False
    if any(k in documents.ACTOR_TYPES for k in documents.as_list(document.get("type"))):
        return documents.uri_of(document) == actor_id
    return documents.uri_of(document) == key_id and \
        documents.uri_of(document.get("owner")) == actor_id


def _create(parsed: dict[str, Any], *, answer: webfinger.Answer | None = None,
            key_seen: str | None = None) -> dict[str, Any] | None:
    """Store a new remote account: under its handle only once WebFinger confirms the handle is
    this actor's (webfinger.confirm), with its key only if it owns it (`owns_key`); None, and
    nothing stored, otherwise."""
    username = webfinger.confirm(parsed["username"], parsed["domain"], parsed["uri"],
                                 known=answer)
    if username is None:
        logger.info("remote actor refused: WebFinger does not confirm its handle",
                    extra={"uri": parsed["uri"], "handle": parsed["username"]})
        return None
    if parsed["key_id"] and not owns_key(parsed["key_id"], parsed["uri"], seen=key_seen):
        logger.info("remote actor refused: its key id is not its own",
                    extra={"uri": parsed["uri"], "key_id": parsed["key_id"]})
        return None
    policy = domain_blocks.policy_for(documents.hostname_of(parsed["domain"]))
    profile = {"id": ids.new_id(), **_profile_fields(parsed), "username": username,
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
    except item_size.Unstorable as refused:
        logger.info("remote actor refused: its profile cannot be stored",
                    extra={"uri": profile["uri"], "reason": str(refused)[:200]})
        return None
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


def _update(current: dict[str, Any], parsed: dict[str, Any], *,
            key_seen: str | None = None) -> dict[str, Any]:
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
    old_key, new_key = current.get("key_id"), changes.get("key_id")
    if new_key and new_key != old_key and not owns_key(new_key, current["uri"], seen=key_seen):
        logger.info("remote actor update refused: its key id is not its own",
                    extra={"uri": current["uri"], "key_id": new_key})
        return current
    ops = [accounts_repo.profile_update_op(current["id"], changes)]
    if new_key != old_key:
        if old_key and old_key != current["uri"]:
            ops.append(uris.release_op(old_key, "key", current["id"]))
        if new_key and new_key != current["uri"]:
            ops.append(uris.claim_op(new_key, "key", current["id"], owner_uri=current["uri"]))
    try:
        transaction.write(ops)
    except item_size.Unstorable as refused:
        logger.info("remote actor update refused: its profile cannot be stored",
                    extra={"uri": current["uri"], "reason": str(refused)[:200]})
        return current
    except transaction.ConditionFailed:
        # The new key id is another account's (repo/uris.py): the profile stays as it was.
        logger.info("remote actor update refused: its key id is another's",
                    extra={"uri": current["uri"], "key_id": new_key})
        return current
    return {**current, **{k: v for k, v in changes.items() if v is not None},
            **{k: None for k, v in changes.items() if v is None}}


def store(document: dict[str, Any], *, fetched_from: str, answer: webfinger.Answer | None = None,
          key_seen: str | None = None) -> dict[str, Any] | None:
    """Create or update the account an actor document describes; None when it is invalid
    (`fetched_from`: see actor_documents.parse), its domain may not federate, WebFinger does
    not confirm its handle, its key id is not its own, or the URI index refuses it. `answer`
    (a WebFinger answer already had) and `key_seen` (a key id whose document was just seen to
    be this actor's) spare their requests again."""
    try:
        parsed = documents.parse(document, fetched_from=fetched_from)
    except documents.Invalid:
        return None
    current = _by_actor_id(parsed["uri"])
    if current is not None:
        return _update(current, parsed, key_seen=key_seen)
    if not may_federate(parsed["domain"]):
        return None
    return _create(parsed, answer=answer, key_seen=key_seen)


def _stale(profile: dict[str, Any]) -> bool:
    fetched = profile.get("fetched_at")
    if not fetched:
        return True
    return clock.parse_iso(fetched) + STALE_AFTER < clock.now()


def _fetch(uri: str, current: dict[str, Any] | None, *, answer: webfinger.Answer | None = None,
           key_seen: str | None = None) -> dict[str, Any] | None:
    """Fetch and store the actor at `uri`; the stored profile (if any) when the fetch fails. A
    410 removes the stored account only when `uri`'s own host answered it (http.FetchFailed.
    gone): a redirect to another server that answers 410 ends nobody's account."""
    try:
        document = http.fetch_object(uri, id_is_known=True)
    except http.FetchFailed as exc:
        if current is not None and exc.gone(uri):
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
        return _update(current, parsed, key_seen=key_seen)
    return store(document, fetched_from=uri, answer=answer, key_seen=key_seen)


def resolve(uri: str, *, refresh: bool = False, answer: webfinger.Answer | None = None,
            key_seen: str | None = None) -> dict[str, Any] | None:
    """The remote account with actor id `uri`: stored, or fetched when unknown (or, with
    `refresh`, stale: fetched more than 24 hours ago). None when it cannot be fetched, is not a
    valid actor, its domain may not federate, or `uri` is one of ours. `answer`, `key_seen`:
    see `store`."""
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
    return _fetch(uri, current, answer=answer, key_seen=key_seen)


def refetch_account(account_id: str, *, key_seen: str | None = None) -> dict[str, Any] | None:
    """Fetch a stored remote account's actor again now (after an Update, a WebFinger lookup,
    a key object naming it)."""
    current = _get(account_id)
    if current is None or not may_federate(current["domain"]):
        return current
    return _fetch(current["uri"], current, key_seen=key_seen)


def _refetch_for_signature(profile: dict[str, Any]) -> dict[str, Any] | None:
    """A signature did not verify with the account's stored key: fetch its actor again (the
    key may have been rotated), but at most once per KEY_REFETCH_COOL_DOWN per account,
    whoever asks (a claim in the table, repo/dedupe.once_per), so a flood of badly signed
    requests naming an actor makes us fetch it once, not once each. Within the cool-down the
    stored account is the answer."""
    if not dedupe.once_per(KEY_REFETCH, profile["id"], seconds=KEY_REFETCH_COOL_DOWN):
        return profile
    return refetch_account(profile["id"])


def by_key_id(key_id: str, *, refetch: bool = False) -> dict[str, Any] | None:
    """The remote account whose key is `key_id` (an HTTP signature's keyId): an account whose
    `publicKey.id` it is, on the account's own host (actor_documents.parse), and that owns it
    (`owns_key`). Unknown keys are fetched as Mastodon's FetchRemoteKeyService does: the key
    URL serves the actor (`…#main-key`, or GoToSocial's key URL that serves its owner;
    fetch_object then refetches the actor by its own id), or a key object naming itself by the
    key id, whose `owner` is then fetched by its id; either way only the exact actor's document
    is stored, and only when it names this key.
    `refetch` (the stored key did not verify) refreshes a known account, its key may have been
    rotated: at most once per cool-down (`_refetch_for_signature`)."""
    if not isinstance(key_id, str) or documents.is_local(key_id):
        return None
    known = find(key_id)
    if known is not None:
        if refetch:
            known = _refetch_for_signature(known)
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
        profile = store(document, fetched_from=parsed["uri"], key_seen=key_id)
    else:
        owner = documents.uri_of(document.get("owner"))
        if document_id != key_id or not owner or not uris.on_host_of(key_id, owner):
            return None
        profile = _by_actor_id(owner)
        if profile is None:
            profile = resolve(owner, key_seen=key_id)
        elif profile.get("key_id") != key_id:
            profile = refetch_account(profile["id"], key_seen=key_id)
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


# --- WebFinger ---------------------------------------------------------------------------------
def resolve_acct(acct: str, *, refresh: bool = False) -> dict[str, Any] | None:
    """The remote account `user@host` names: stored, or found by WebFinger (the `self` link)
    and fetched. None for a local or invalid address, an unreachable or unknown one, or a
    domain we may not federate with. A new account is stored only under the handle WebFinger
    confirms for it (`_create`), so a stored handle always names the actor its server says."""
    username, domain = webfinger.split_acct(acct)
    if not username or not domain or hosts.ours(domain):
        return None
    account_id = accounts_repo.id_by_handle(username, domain)
    current = _get(account_id) if account_id else None
    if current is not None and not (refresh and _stale(current)):
        return current
    if not may_federate(domain):
        return current
    answer = webfinger.lookup(username, domain)
    href = answer.actor if answer is not None else None
    if not href:
        return current
    if current is not None and current["uri"] == href:
        return refetch_account(current["id"])
    profile = resolve(href, refresh=refresh, answer=answer)
    if profile is None or profile["username"].lower() != username.lower():
        return current
    return profile
