"""Remote accounts: actors of other servers, fetched, validated and stored as accounts
(docs/federation.md, "Remote accounts"); Mastodon's ActivityPub::FetchRemoteAccountService,
ProcessAccountService and ResolveAccountService.

A remote account is the same `account` profile item a local account has, plus its handle
(`username@domain`, unique per domain), its staff index entry (origin remote), its entries by
domain (`repo/accounts.remote_index_ops`) and URI index entries for its actor id and key id
(`repo/uris.py`). The domain is the actor id's host, with its port when it has one.

Rules (Mastodon's): an actor document is only believed when its `id` is the URL it was fetched
from (federation/http.fetch_object checks it, redirects included) or, delivered in an Update,
the id of the actor who signed it; a key id only as the actor's own `publicKey.id` on the
actor's own host, and a profile `url` only on that host (else the actor's id is its URL);
accounts of a domain suspended by a block, or outside the allowlist in limited federation
mode, are never stored; a silenced domain's new accounts are stored silenced. Writes that the
URI index refuses (an id or key id another account holds: repo/uris.py) store nothing.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote, urlsplit

from stratus.core import clock, hosts, ids, jsondoc, outbound
from stratus.core.config import settings
from stratus.core.observability import logger
from stratus.federation import http
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys, uris
from stratus.repo import domain_blocks as domain_blocks_repo
from stratus.repo import moderation as moderation_repo
from stratus.text.sanitize import clean_remote as clean

STALE_AFTER = timedelta(hours=24)  # Mastodon's Account#possibly_stale? (1 day)
ACTOR_TYPES = ("Person", "Service", "Application", "Group", "Organization")
BOT_TYPES = ("Service", "Application")  # Mastodon's Account#bot?
USERNAME = re.compile(r"^[a-z0-9_]+([a-z0-9_.-]+[a-z0-9_]+)?$", re.IGNORECASE)
# What is kept of a profile (characters): the item stays far below DynamoDB's 400 KB.
MAX_DISPLAY_NAME = 2048
MAX_NOTE = 20_000
MAX_FIELDS = 16
MAX_FIELD_VALUE = 2047
MAX_URI = 2048  # longer ids and URLs are not used
MAX_PEM = 16_384
MAX_ALIASES = 20
WEBFINGER_BYTES = 64 * 1024
WEBFINGER_SECONDS = 10.0
JRD_ACCEPT = "application/jrd+json, application/json"
ACTIVITY_TYPES = ("application/activity+json", "application/ld+json")


class Invalid(Exception):
    """The document is not an actor we may store."""


# --- our own URLs ------------------------------------------------------------------------------
def _is_local(uri: str) -> bool:
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    return (parts.netloc or "").lower() == settings().domain.lower()


def local_username(uri: str) -> str | None:
    """The username in one of our actor URLs (`/users/<name>`, with or without a fragment
    such as `#main-key`), else None."""
    if not _is_local(uri):
        return None
    segments = urlsplit(uri).path.strip("/").split("/")
    if len(segments) == 2 and segments[0] == "users" and segments[1]:
        return segments[1]
    return None


def local_account_id(uri: str) -> str | None:
    """The id of the local account one of our actor URLs names (None for anything else)."""
    username = local_username(uri)
    return accounts_repo.id_by_handle(username) if username else None


# --- reading documents -------------------------------------------------------------------------
def host_of(url: str) -> str:
    """The host of a URL as a domain (stratus.core.hosts: lower case, IDNA, the port only when it
    is not the scheme's default)."""
    return hosts.of_url(url)


def hostname_of(domain: str) -> str:
    """A domain without its port (domain blocks and allows name hosts, not ports)."""
    return hosts.hostname(domain)


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def first_string(value: Any) -> str | None:
    """The first http(s) URL of a value that may be a string, a Link or Image object, or an
    array of them (Mastodon's url_to_href / JsonLdHelper#value_or_id)."""
    for each in as_list(value):
        if isinstance(each, dict):
            found = first_string(each.get("href") if "href" in each else each.get("url"))
            if found:
                return found
        elif (isinstance(each, str) and each.startswith(("https://", "http://"))
              and len(each) <= MAX_URI):
            return each
    return None


def uri_of(value: Any) -> str | None:
    """An object's id whether the value is the id or the object (JSON-LD's two forms)."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and value and len(value) <= MAX_URI else None


def _text(value: Any, limit: int) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def _bool(value: Any) -> bool:
    return value is True


def _image_url(value: Any) -> str | None:
    for each in as_list(value):
        if isinstance(each, dict):
            found = first_string(each.get("url"))
        else:
            found = first_string(each)
        if found:
            return found
    return None


def _fields(attachments: Any) -> list[dict[str, Any]]:
    fields = []
    for each in as_list(attachments):
        if not isinstance(each, dict) or each.get("type") != "PropertyValue":
            continue
        name, value = each.get("name"), each.get("value")
        if not isinstance(name, str) or not isinstance(value, str):
            continue
        fields.append({"name": name.strip()[:255], "value": clean(value[:MAX_FIELD_VALUE]),
                       "verified_at": None})
    return fields[:MAX_FIELDS]


def _public_key(document: dict[str, Any], actor_id: str) -> tuple[str | None, str | None]:
    """(key id, PEM) of the actor's key: the first `publicKey` owned by the actor whose id is
    on the actor's host. A key id elsewhere (another server's key, another actor's id) is never
    the actor's: a signature is only believed when its key id is its actor's `publicKey.id`
    on the actor's own server (Mastodon's FetchRemoteKeyService `confirmed_owner?`)."""
    for key in as_list(document.get("publicKey")):
        if not isinstance(key, dict):
            continue
        key_id, pem, owner = key.get("id"), key.get("publicKeyPem"), uri_of(key.get("owner"))
        if (isinstance(key_id, str) and len(key_id) <= MAX_URI and isinstance(pem, str)
                and len(pem) <= MAX_PEM and owner in (None, actor_id)
                and uris.on_host_of(key_id, actor_id)):
            return key_id, pem.strip()
    return None, None


def profile_url(document: dict[str, Any], actor_id: str) -> str:
    """The actor's profile page: its `url` when that is on the actor's own host, else its id
    (Mastodon's ProcessAccountService#url refuses a mismatching origin), so an actor cannot
    show itself as another server's page."""
    found = first_string(document.get("url"))
    return found if found and host_of(found) == host_of(actor_id) else actor_id


def parse(document: dict[str, Any], *, fetched_from: str) -> dict[str, Any]:
    """The profile fields of an actor document (Invalid unless it is an actor whose id is
    `fetched_from`: the URL federation/http.fetch_object checked it was served from, or the
    signer's id for an actor delivered in its own Update). Tolerant of JSON-LD's forms: a
    value or an array, an id or an object."""
    if not isinstance(document, dict):
        raise Invalid("not an object")
    kinds = as_list(document.get("type"))
    kind = next((k for k in kinds if k in ACTOR_TYPES), None)
    if kind is None:
        raise Invalid(f"not an actor: {kinds}")
    actor_id = uri_of(document)
    if not actor_id or not actor_id.startswith(("https://", "http://")):
        raise Invalid("no id")
    domain = host_of(actor_id)
    if not domain or actor_id != fetched_from:
        raise Invalid(f"{actor_id} is not the URL it came from ({fetched_from})")
    if _is_local(actor_id):
        raise Invalid("one of our own actors")
    username = document.get("preferredUsername")
    if not isinstance(username, str) or not USERNAME.match(username) or len(username) > 255:
        raise Invalid("no usable preferredUsername")
    inbox = uri_of(document.get("inbox"))
    if not inbox:
        raise Invalid("no inbox")
    key_id, pem = _public_key(document, actor_id)
    endpoints = document.get("endpoints") if isinstance(document.get("endpoints"), dict) else {}
    discoverable = document.get("discoverable")
    moved = uri_of(document.get("movedTo"))
    return {
        "username": username,
        "domain": domain,
        "display_name": _text(document.get("name"), MAX_DISPLAY_NAME),
        "note": clean(document["summary"][:MAX_NOTE]) if isinstance(document.get("summary"), str) else "",
        "fields": _fields(document.get("attachment")),
        "locked": _bool(document.get("manuallyApprovesFollowers")),
        "bot": kind in BOT_TYPES,
        "discoverable": discoverable if isinstance(discoverable, bool) else None,
        "indexable": _bool(document.get("indexable")),
        "url": profile_url(document, actor_id),
        "uri": actor_id,
        "inbox": inbox,
        "shared_inbox": uri_of(endpoints.get("sharedInbox")),
        "followers_url": uri_of(document.get("followers")),
        "following_url": uri_of(document.get("following")),
        "outbox_url": uri_of(document.get("outbox")),
        "featured_url": uri_of(document.get("featured")),
        "public_key_pem": pem,
        "key_id": key_id,
        "avatar_remote_url": _image_url(document.get("icon")),
        "header_remote_url": _image_url(document.get("image")),
        "also_known_as": [u for u in (uri_of(a) for a in as_list(document.get("alsoKnownAs")))
                          if u][:MAX_ALIASES],
        "moved_to_uri": moved,
        "actor_type": kind,
        "published": document.get("published") if isinstance(document.get("published"), str) else None,
    }


# --- policy ------------------------------------------------------------------------------------
def may_federate(domain: str) -> bool:
    """Whether accounts of `domain` may be fetched and stored (not suspended by a block, inside
    the allowlist in limited federation mode)."""
    return domain_blocks.allowed(hostname_of(domain))


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
    policy = domain_blocks.policy_for(hostname_of(parsed["domain"]))
    profile = {"id": ids.new_id(), **_profile_fields(parsed),
               "created_at": _created_at(parsed["published"])}
    if policy.silenced:
        # Mastodon silences a silenced domain's new accounts; with the block's own time, so
        # lifting the block lifts it (workers/moderation.apply).
        block = domain_blocks_repo.block(policy.block_domain or "")
        profile["silenced_at"] = (block or {}).get("created_at") or clock.iso(clock.now())
    handle = {**keys.handle(profile["username"], profile["domain"]), "type": "handle",
              "account_id": profile["id"]}
    # Counters: what this server knows of the account (its statuses stored here, its
    # followers here); the stream keeps them as for a local account.
    stats = {**keys.account_stats(profile["id"]), "type": "account_stats",
             "followers_count": 0, "following_count": 0, "statuses_count": 0}
    ops = [base.put_new(accounts_repo.profile_item(profile)),
           base.put_new(stats),
           base.put_new(handle),
           uris.claim_op(profile["uri"], "account", profile["id"], owner_uri=profile["uri"]),
           *moderation_repo.index_ops(profile, None),
           *accounts_repo.remote_index_ops(profile)]
    if profile.get("key_id") and profile["key_id"] != profile["uri"]:
        ops.append(uris.claim_op(profile["key_id"], "key", profile["id"],
                                 owner_uri=profile["uri"]))
    try:
        base.transact(ops)
    except base.ConditionFailed:
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
    ops = [base.set_op(keys.account_profile(current["id"]), changes)]
    old_key, new_key = current.get("key_id"), changes.get("key_id")
    if new_key != old_key:
        if old_key and old_key != current["uri"]:
            ops.append(uris.release_op(old_key, "key", current["id"]))
        if new_key and new_key != current["uri"]:
            ops.append(uris.claim_op(new_key, "key", current["id"], owner_uri=current["uri"]))
    try:
        base.transact(ops)
    except base.ConditionFailed:
        # The new key id is another account's (repo/uris.py): the profile stays as it was.
        logger.info("remote actor update refused: its key id is another's",
                    extra={"uri": current["uri"], "key_id": new_key})
        return current
    return {**current, **{k: v for k, v in changes.items() if v is not None},
            **{k: None for k, v in changes.items() if v is None}}


def store(document: dict[str, Any], *, fetched_from: str) -> dict[str, Any] | None:
    """Create or update the account an actor document describes; None when it is invalid
    (`fetched_from`: see `parse`), its domain may not federate, or the URI index refuses it."""
    try:
        parsed = parse(document, fetched_from=fetched_from)
    except Invalid:
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
            parsed = parse(document, fetched_from=uri)
        except Invalid:
            return current
        return _update(current, parsed)
    return store(document, fetched_from=uri)


def resolve(uri: str, *, refresh: bool = False) -> dict[str, Any] | None:
    """The remote account with actor id `uri`: stored, or fetched when unknown (or, with
    `refresh`, stale: fetched more than 24 hours ago). None when it cannot be fetched, is not a
    valid actor, its domain may not federate, or `uri` is one of ours."""
    if not isinstance(uri, str) or not uri.startswith(("https://", "http://")) or _is_local(uri):
        return None
    current = _by_actor_id(uri)
    if current is not None and not (refresh and _stale(current)):
        return current
    if current is None and not may_federate(host_of(uri)):
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
    `publicKey.id` it is, on the account's own host (`_public_key`). Unknown keys are fetched
    as Mastodon's FetchRemoteKeyService does: the key URL serves the actor (`…#main-key`, or
    GoToSocial's key URL that serves its owner; fetch_object then refetches the actor by its
    own id), or a key object naming itself by the key id, whose `owner` is then fetched by its
    id; either way only the exact actor's document is stored, and only when it names this key.
    `refetch` refreshes a known account (its key may have been rotated)."""
    if not isinstance(key_id, str) or _is_local(key_id):
        return None
    known = find(key_id)
    if known is not None:
        if refetch:
            known = refetch_account(known["id"])
        return known if known and known.get("key_id") == key_id else None
    if not key_id.startswith(("https://", "http://")):
        return None
    if not may_federate(host_of(key_id)):
        return None
    try:
        document = http.fetch_object(key_id)  # served at its own id, whatever that is
    except outbound.Refused:
        return None
    document_id = uri_of(document)
    if any(k in ACTOR_TYPES for k in as_list(document.get("type"))):
        try:
            parsed = parse(document, fetched_from=document_id or "")
        except Invalid:
            return None
        if parsed["key_id"] != key_id:
            return None  # not this actor's key: nothing of the document is stored
        profile = store(document, fetched_from=parsed["uri"])
    else:
        owner = uri_of(document.get("owner"))
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
    from stratus.federation import signatures

    owners: dict[str, dict[str, Any]] = {}

    def key_for(key_id: str, refetch: bool) -> str | None:
        profile = by_key_id(key_id, refetch=refetch)
        if profile is None or not profile.get("public_key_pem"):
            return None
        owners[key_id] = profile
        return profile["public_key_pem"]

    verified = signatures.verify(method, path, query, headers, body, key_for=key_for,
                                 scheme=settings().scheme)
    owner = owners.get(verified.key_id)
    if owner is None:  # verified with a key no account owns: not a signer we can name
        raise signatures.SignatureError(f"Public key not found for key {verified.key_id}")
    return verified, owner


def update_from(document: dict[str, Any]) -> dict[str, Any] | None:
    """Apply an actor document delivered in an Update (the inbox verified it is the actor's
    own): the stored account changes; an unknown actor is stored as if fetched."""
    actor_id = uri_of(document) if isinstance(document, dict) else None
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
            base.transact([moderation_repo.purge_request_op(request)])
        except base.ConditionFailed:
            pass  # a purge is under way
        return
    moderation_repo.suspend(account_id, at=now, origin="remote",
                            also=[moderation_repo.purge_request_op(request)])


# --- WebFinger -----------------------------------------------------------------------------------
def _loopback(host: str) -> bool:
    name = hostname_of(host).strip("[]")
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
    for link in as_list(document.get("links")):
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
