"""What another server's actor document says, and whether we may believe it (docs/federation.md,
"Remote accounts"): the profile fields of an actor (Mastodon's ActivityPub::ProcessAccountService
reading a document), tolerant of JSON-LD's forms, and the URL helpers the status documents'
reader shares (federation/status_objects.py). Pure: nothing is fetched or stored here; that is
federation/remote_accounts.py.

Rules (Mastodon's): an actor document is only believed when its `id` is the URL it was fetched
from (federation/http.fetch_object checks it, redirects included) or, delivered in an Update,
the id of the actor who signed it; a key id only as the actor's own `publicKey.id` on the
actor's own host, and a profile `url` only on that host (else the actor's id is its URL).
"""

from __future__ import annotations

import re
from typing import Any

from stratus.core import hosts, urls
from stratus.core.config import settings
from stratus.repo import uris
from stratus.text.sanitize import clean_remote as clean

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


class Invalid(Exception):
    """The document is not an actor we may store."""


# --- our own URLs ------------------------------------------------------------------------------
def is_local(uri: str) -> bool:
    """Whether a URL is on this server (its host, read as browsers read it, is our domain)."""
    return bool(uri) and urls.host_of(uri) == hosts.normalize(settings().domain)


def local_username(uri: str) -> str | None:
    """The username in one of our actor URLs (`/users/<name>`, with or without a fragment
    such as `#main-key`), else None."""
    found = urls.parse(uri)
    if found is None or found.host != hosts.normalize(settings().domain):
        return None
    segments = found.target.split("?", 1)[0].strip("/").split("/")
    if len(segments) == 2 and segments[0] == "users" and segments[1]:
        return segments[1]
    return None


# --- reading documents -------------------------------------------------------------------------
def host_of(url: str) -> str:
    """The host of a URL as a domain (read as browsers read URLs, core/urls.py, and normalised
    by core/hosts.py: lower case, IDNA, the port only when it is not the scheme's default)."""
    return urls.host_of(url)


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


def page_url(value: Any, object_id: str) -> str:
    """An object's page (its `url`) when that is on the host of its id, else its id: an actor
    or a status cannot show itself as another server's page. The host is the one a browser
    opens (core/urls.py: `https://victim.example\\@evil.example` is victim.example's page),
    and the URL is kept as the browser reads it, so what a client shows is what it opens."""
    found = urls.parse(first_string(value))
    return found.href if found and found.host == host_of(object_id) else object_id


def profile_url(document: dict[str, Any], actor_id: str) -> str:
    """The actor's profile page: its `url` when that is on the actor's own host, else its id
    (Mastodon's ProcessAccountService#url refuses a mismatching origin)."""
    return page_url(document.get("url"), actor_id)


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
    if is_local(actor_id):
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
