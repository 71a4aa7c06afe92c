"""Remote statuses: Notes (and Questions, and other object types best effort) of remote
accounts, stored as statuses (docs/federation.md, "Remote statuses"); Mastodon's
ActivityPub::Activity::Create, ActivityPub::ProcessStatusUpdateService and
FetchRemoteStatusService.

A remote status is the same `status` item a local status is, written through the same
repository path (`repo/statuses.status_item` and its stats item in one transaction), with
`local: false`, its ActivityPub `uri` and `url` (the `url` only when on the status's own host,
else its `uri`, as Mastodon checks its origin), and an entry in the URI index (repo/uris.py:
only for an id on its author's host, never over another's entry). A fetched object is only
believed where it names itself (federation/http.fetch_object). Everything a
new status sets off — fan-out to the home feeds of local followers, notifications of local
mentions, hashtag entries, streaming, counters — follows from the stream as for a local one.

Ids: a remote status gets a snowflake id made from its `published` time (clamped to now),
as Mastodon does (`Mastodon::Snowflake.id_at`), so a fetched old status (a reply's parent,
a search result) sorts among statuses of its time instead of on top of every timeline.
"""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from stratus.core import clock, ids, outbound
from stratus.core.config import settings
from stratus.federation import http, remote_accounts
from stratus.federation.remote_accounts import as_list, first_string, host_of, uri_of
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys, uris
from stratus.repo import polls as polls_repo
from stratus.repo import statuses as repo
from stratus.text import formatter
from stratus.text.sanitize import clean_remote

PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
PUBLIC_ALIASES = (PUBLIC, "as:Public", "Public")
SUPPORTED = ("Note", "Question")
CONVERTED = ("Article", "Page", "Image", "Video", "Audio", "Event")
MAX_REPLY_DEPTH = 3  # parents fetched for one status (Mastodon fetches the chain lazily)
MAX_CONTENT = 40_000  # characters kept: a status item stays far below DynamoDB's 400 KB
MAX_SPOILER = 10_000
MAX_ATTACHMENTS = 16  # Mastodon keeps at most 16 remote attachments
MAX_TAGS = 100
MAX_OPTIONS = 100
MAX_OPTION = 500  # characters of a poll option's title
MAX_NAME = 100  # characters of a hashtag or emoji shortcode
MEDIA_TYPES = {"image": "image", "video": "video", "audio": "audio"}


# --- our own URLs ------------------------------------------------------------------------------
def local_status_id(uri: str) -> str | None:
    """The id of the local status one of our status URLs names (`/users/<name>/statuses/<id>`
    or `/@<name>/<id>`), if that status exists and is <name>'s; else None."""
    try:
        parts = urlsplit(uri)
    except (ValueError, TypeError):
        return None
    if (parts.netloc or "").lower() != settings().domain.lower():
        return None
    segments = parts.path.strip("/").split("/")
    if len(segments) >= 4 and segments[0] == "users" and segments[2] == "statuses":
        username, candidate = segments[1], segments[3]
    elif len(segments) == 2 and segments[0].startswith("@"):
        username, candidate = segments[0][1:], segments[1]
    else:
        return None
    if not username or not ids.is_id(candidate):
        return None
    item = repo.get(candidate)
    if item is None or item.get("local", True) is False:
        return None
    # the URL must name the status's own author (another account's path is not its URL)
    return candidate if item.get("account_id") == accounts_repo.id_by_handle(username) else None


def find(uri: str) -> str | None:
    """The id of the status (local or stored remote) an object id names, without fetching."""
    if not isinstance(uri, str) or not uri:
        return None
    local = local_status_id(uri)
    if local:
        return local
    found = uris.find(uri)
    return found[1] if found and found[0] == "status" else None


# --- reading a document -------------------------------------------------------------------------
def _types(obj: dict[str, Any]) -> list[str]:
    return [t for t in as_list(obj.get("type")) if isinstance(t, str)]


def _audience(obj: dict[str, Any], key: str) -> list[str]:
    return [u for u in (uri_of(a) for a in as_list(obj.get(key))) if u]


def visibility_of(obj: dict[str, Any], actor: dict[str, Any]) -> str:
    """Mastodon's ActivityPub::Parser::StatusParser#visibility: Public addressed → public,
    Public in cc → unlisted, the author's followers → private, else direct."""
    to, cc = _audience(obj, "to"), _audience(obj, "cc")
    if any(a in PUBLIC_ALIASES for a in to):
        return "public"
    if any(a in PUBLIC_ALIASES for a in cc):
        return "unlisted"
    followers = actor.get("followers_url")
    if followers and followers in to + cc:
        return "private"
    return "direct"


def _content(obj: dict[str, Any]) -> tuple[str, str | None]:
    """(HTML, language): `content`, or the first of `contentMap` (its key is the language)."""
    content = obj.get("content") if isinstance(obj.get("content"), str) else None
    language = None
    mapping = obj.get("contentMap") if isinstance(obj.get("contentMap"), dict) else {}
    for lang, value in mapping.items():
        if isinstance(value, str) and (content is None or value == content):
            content, language = value, lang
            break
    return content or "", language


def status_url(obj: dict[str, Any]) -> str | None:
    """The status's page: its `url` when on the host of its id, else its id (an object cannot
    show itself as another server's page)."""
    uri = uri_of(obj)
    found = first_string(obj.get("url"))
    return found if found and uri and host_of(found) == host_of(uri) else uri


def _text(obj: dict[str, Any], kind: str) -> tuple[str, str | None]:
    content, language = _content(obj)
    if kind in SUPPORTED:
        return clean_remote(content[:MAX_CONTENT]), language
    # Mastodon converts other types to a Note: the name, then the content, then a link.
    parts = []
    name = obj.get("name") if isinstance(obj.get("name"), str) else ""
    if name.strip():
        parts.append(f"<p>{html.escape(name.strip())}</p>")
    if content:
        parts.append(clean_remote(content[:MAX_CONTENT]))
    url = status_url(obj)
    if url:
        shown = html.escape(url)
        parts.append(f'<p><a href="{shown}" target="_blank" rel="nofollow noopener">{shown}</a></p>')
    return "".join(parts), language


def _published(obj: dict[str, Any]) -> datetime:
    now = clock.now()
    raw = obj.get("published")
    if isinstance(raw, str):
        try:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return now
        if moment.tzinfo is not None:
            return min(moment, now)
    return now


def _tags(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in as_list(obj.get("tag")) if isinstance(t, dict)][:MAX_TAGS]


def _hashtags(obj: dict[str, Any]) -> list[str]:
    names = []
    for tag in _tags(obj):
        if "Hashtag" in _types(tag) and isinstance(tag.get("name"), str):
            name = formatter.normalize_tag(tag["name"].strip().lstrip("#"))
            if name and len(name) <= MAX_NAME and formatter.HASHTAG.fullmatch("#" + name):
                names.append(name)
    return list(dict.fromkeys(names))


def _emojis(obj: dict[str, Any]) -> list[dict[str, str]]:
    found = []
    for tag in _tags(obj):
        if "Emoji" not in _types(tag) or not isinstance(tag.get("name"), str):
            continue
        shortcode = tag["name"].strip(":")
        url = first_string(tag.get("icon", {}).get("url") if isinstance(tag.get("icon"), dict)
                           else None)
        if (shortcode and url and len(shortcode) <= MAX_NAME
                and formatter.SHORTCODE.fullmatch(f":{shortcode}:")):
            found.append({"shortcode": shortcode, "url": url})
    return found


def _mentions(obj: dict[str, Any], visibility: str) -> tuple[list[str], list[str]]:
    """(local account ids, stored remote account ids) the status mentions. For a direct
    status, local accounts it is addressed to count as mentioned too (Mastodon's silent
    mentions), so they can see it."""
    hrefs = [uri_of(t.get("href")) for t in _tags(obj) if "Mention" in _types(t)]
    if visibility == "direct":
        # Silent mentions: as many audience entries are looked up as tags are read.
        hrefs += list(dict.fromkeys(_audience(obj, "to") + _audience(obj, "cc")))[:MAX_TAGS]
    local, remote = [], []
    unknown = []
    for href in dict.fromkeys(h for h in hrefs if h):
        account_id = remote_accounts.local_account_id(href)
        if account_id:
            local.append(account_id)
        else:
            unknown.append(href)
    # Remote mentions are shown when the account is already known (never fetched here).
    for kind, account_id in uris.find_many(unknown).values():
        if kind == "account":
            remote.append(account_id)
    return local, remote


def _media(obj: dict[str, Any], status_id: str, account_id: str, reject: bool
           ) -> list[dict[str, Any]]:
    """Media items for the attachments, by reference (their remote URLs; nothing is copied).
    None when the domain's media are rejected."""
    if reject:
        return []
    found = []
    for each in as_list(obj.get("attachment"))[:MAX_ATTACHMENTS]:
        if not isinstance(each, dict):
            continue
        url = first_string(each.get("url"))
        if not url:
            continue
        media_type = each.get("mediaType") if isinstance(each.get("mediaType"), str) else ""
        kind = MEDIA_TYPES.get(media_type.split("/")[0], "unknown")
        meta: dict[str, Any] = {}
        focal = each.get("focalPoint")
        if (isinstance(focal, list) and len(focal) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in focal)):
            meta["focus"] = {"x": float(focal[0]), "y": float(focal[1])}
        width, height = each.get("width"), each.get("height")
        if isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0:
            meta["original"] = {"width": width, "height": height,
                                "size": f"{width}x{height}", "aspect": width / height}
        description = each.get("name") if isinstance(each.get("name"), str) else None
        found.append({"id": ids.new_id(), "account_id": account_id, "status_id": status_id,
                      "media_type": kind, "remote_url": url, "mime_type": media_type or None,
                      "description": (description or "").strip()[:1500] or None,
                      "blurhash": each.get("blurhash") if isinstance(each.get("blurhash"), str)
                      else None, "meta": meta, "created_at": clock.iso(clock.now())})
    return found


def _poll(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A Question's poll: options and their counts, end, voters (Mastodon's PollParser)."""
    if "Question" not in _types(obj):
        return None
    multiple = bool(obj.get("anyOf"))
    choices = as_list(obj.get("anyOf") if multiple else obj.get("oneOf"))
    options, votes = [], []
    for choice in choices[:MAX_OPTIONS]:
        if not isinstance(choice, dict) or not isinstance(choice.get("name"), str):
            continue
        options.append(choice["name"][:MAX_OPTION])
        replies = choice.get("replies") if isinstance(choice.get("replies"), dict) else {}
        count = replies.get("totalItems")
        votes.append(count if isinstance(count, int) and count >= 0 else 0)
    if not options:
        return None
    end = obj.get("endTime") or obj.get("closed")
    expires_at = None
    if isinstance(end, str):
        try:
            expires_at = clock.iso(datetime.fromisoformat(end.replace("Z", "+00:00")))
        except ValueError:
            expires_at = None
    voters = obj.get("votersCount")
    return {"options": options, "votes": votes, "multiple": multiple,
            "voters_count": voters if isinstance(voters, int) and voters >= 0
            else (None if multiple else sum(votes)),
            "expires_at": expires_at,
            "closed": bool(obj.get("closed")) and (expires_at is None or
                                                   clock.parse_iso(expires_at) <= clock.now())}


def _poll_op(poll: dict[str, Any], poll_id: str, status_id: str, account_id: str):
    """The new poll of a Question, laid out as a local poll is (repo/polls.poll_item)."""
    return polls_repo.create_op(polls_repo.poll_item(
        poll_id, status_id, account_id, options=poll["options"], multiple=poll["multiple"],
        expires_at=poll["expires_at"], votes=poll["votes"],
        voters_count=poll["voters_count"] if poll["voters_count"] is not None else 0,
        closed=poll["closed"], remote=True))


# --- ingesting -------------------------------------------------------------------------------------
def _attributed_to(obj: dict[str, Any]) -> str | None:
    for each in as_list(obj.get("attributedTo")):
        found = uri_of(each)
        if found:
            return found
    return None


def _parent(obj: dict[str, Any], depth: int) -> tuple[dict[str, Any] | None, str | None]:
    """(the parent status item, its URI) of a reply; the parent is fetched when unknown,
    at most MAX_REPLY_DEPTH levels up from the status first ingested."""
    parent_uri = uri_of(obj.get("inReplyTo")) if not isinstance(obj.get("inReplyTo"), list) \
        else next((uri_of(u) for u in obj["inReplyTo"] if uri_of(u)), None)
    if not parent_uri:
        return None, None
    parent_id = find(parent_uri)
    if parent_id is None and depth < MAX_REPLY_DEPTH:
        parent_id = _resolve(parent_uri, depth + 1)
    parent = repo.get(parent_id) if parent_id else None
    return parent, parent_uri


def _acceptable(obj: Any, actor: dict[str, Any] | None) -> str | None:
    """The object's kind if it may be ingested for this actor, else None."""
    if not isinstance(obj, dict) or not actor or not actor.get("domain"):
        return None
    kind = next((t for t in _types(obj) if t in SUPPORTED + CONVERTED), None)
    uri = uri_of(obj)
    if kind is None or not uri or not uri.startswith(("https://", "http://")):
        return None
    # The object is the actor's (Mastodon: attributedTo is the activity's actor) and lives
    # on the actor's server.
    if _attributed_to(obj) != actor["uri"] or host_of(uri) != actor["domain"]:
        return None
    if actor.get("suspended_at"):
        return None
    return kind


def mark_deleted(uri: str, actor: dict[str, Any]) -> None:
    """A Delete of a status of this actor we do not have: remembered (14 days), so that its
    Create arriving later is not stored (Mastodon keeps a Tombstone)."""
    from stratus.repo import dedupe

    if host_of(uri) == actor.get("domain"):
        dedupe.mark("status-deleted", dedupe.actor_scoped(actor["uri"], uri))


def _deleted_first(uri: str, actor: dict[str, Any]) -> bool:
    from stratus.repo import dedupe

    return bool(dedupe.marked("status-deleted", [dedupe.actor_scoped(actor["uri"], uri)]))


def ingest(obj: dict[str, Any], *, actor: dict[str, Any], activity_id: str | None = None,
           depth: int = 0) -> str | None:
    """Store a remote object as a status (or, when its URI is known, apply it as an edit);
    its id, or None when it is refused (not the actor's, an unsupported type, a domain we
    do not federate with). Idempotent: the same URI is one status."""
    kind = _acceptable(obj, actor)
    if kind is None:
        return None
    uri = uri_of(obj)
    known = find(uri)
    if known is not None:
        item = repo.get(known)
        if item is None or item["account_id"] != actor["id"]:
            return None  # someone else's status (or one of ours): not this actor's to change
        _edit(item, obj, actor, kind)
        return known
    if not domain_blocks.allowed(remote_accounts.hostname_of(actor["domain"])) or \
            _deleted_first(uri, actor):
        return None
    return _create(obj, actor, kind, depth)


def _create(obj: dict[str, Any], actor: dict[str, Any], kind: str, depth: int) -> str | None:
    uri = uri_of(obj)
    published = _published(obj)
    status_id = ids.new_id(max(int(published.timestamp() * 1000), 0))
    visibility = visibility_of(obj, actor)
    parent, parent_uri = _parent(obj, depth)
    content, language = _text(obj, kind)
    spoiler = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    local_mentions, remote_mentions = _mentions(obj, visibility)
    policy = domain_blocks.policy_for(remote_accounts.hostname_of(actor["domain"]))
    media = _media(obj, status_id, actor["id"], policy.reject_media)
    poll = _poll(obj)
    item: dict[str, Any] = {
        "id": status_id, "account_id": actor["id"], "uri": uri,
        "url": status_url(obj),
        "content": content, "spoiler_text": spoiler.strip()[:MAX_SPOILER],
        "visibility": visibility,
        "sensitive": obj.get("sensitive") is True or bool(spoiler.strip()),
        "language": language or None,
        "in_reply_to_id": parent["id"] if parent else None,
        "in_reply_to_account_id": parent["account_id"] if parent else None,
        "in_reply_to_uri": parent_uri,
        "thread_id": (parent.get("thread_id") or parent["id"]) if parent else status_id,
        "mention_ids": local_mentions, "remote_mention_ids": remote_mentions,
        "tags": _hashtags(obj), "emojis": [], "remote_emojis": _emojis(obj),
        "media_ids": [m["id"] for m in media], "local": False, "application": None,
        "created_at": clock.iso(published),
        "remote_updated_at": obj.get("updated") if isinstance(obj.get("updated"), str) else None,
    }
    ops: list[base.Op] = [uris.claim_op(uri, "status", status_id, owner_uri=actor["uri"])]
    for each in media:
        ops.append(base.put_new({**keys.media(each["id"]), "type": "media_attachment", **each}))
    if poll:
        poll_id = ids.new_id()
        item["poll_id"] = poll_id
        ops.append(_poll_op(poll, poll_id, status_id, actor["id"]))
    ops += [base.put_new(repo.status_item(item)), base.put_new(repo.stats_item(status_id))]
    try:
        base.transact(ops)
    except base.ConditionFailed:
        return find(uri)  # ingested meanwhile (a redelivery, a concurrent fetch)
    if item["tags"]:
        from stratus.repo import search as search_repo

        search_repo.index_tags(item["tags"])
    return status_id


def _older(updated: str, stored: str | None) -> bool:
    """Mastodon's already_updated_more_recently?: the stored version is newer."""
    if not stored:
        return False
    try:
        return datetime.fromisoformat(updated.replace("Z", "+00:00")) < \
            datetime.fromisoformat(stored.replace("Z", "+00:00"))
    except (ValueError, TypeError):  # not a time, or one with a zone and one without
        return False


def _snapshot(data: dict[str, Any], at: str, media_ids: list[str],
              options: list[str] | None) -> dict[str, Any]:
    return {"type": "status_edit", "content": data.get("content", ""),
            "spoiler_text": data.get("spoiler_text", ""),
            "sensitive": bool(data.get("sensitive", False)), "created_at": at,
            "media_ids": media_ids, "poll_options": options}


def _edit(item: dict[str, Any], obj: dict[str, Any], actor: dict[str, Any], kind: str) -> bool:
    """An Update of a known status: a new version when `updated` moved on (Mastodon's
    ProcessStatusUpdateService), kept in the edit history as local edits are. Poll counts
    without a new `updated` are only counts (update_poll)."""
    updated = obj.get("updated") if isinstance(obj.get("updated"), str) else None
    if not updated or updated == item.get("remote_updated_at") or \
            _older(updated, item.get("remote_updated_at")):
        if item.get("poll_id"):
            _apply_poll_counts(item, obj)
        return False
    content, language = _text(obj, kind)
    spoiler = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    local_mentions, remote_mentions = _mentions(obj, item["visibility"])
    try:
        edited_at = clock.iso(datetime.fromisoformat(updated.replace("Z", "+00:00")))
    except ValueError:
        edited_at = clock.iso(clock.now())
    changes: dict[str, Any] = {
        "content": content, "spoiler_text": spoiler.strip()[:MAX_SPOILER],
        "sensitive": obj.get("sensitive") is True or bool(spoiler.strip()),
        "language": language or item.get("language"), "tags": _hashtags(obj),
        "mention_ids": list(dict.fromkeys(list(item.get("mention_ids", [])) + local_mentions)),
        "remote_mention_ids": remote_mentions, "remote_emojis": _emojis(obj),
        "edited_at": edited_at, "remote_updated_at": updated}
    ops: list[base.Op] = []
    old_options = None
    poll = _poll(obj)
    if item.get("poll_id"):
        current = repo.get_poll(item["poll_id"])
        old_options = list(current["options"]) if current else None
    new_options = old_options
    if poll and poll["options"] != old_options:
        poll_id = ids.new_id()
        if item.get("poll_id"):
            ops.append(polls_repo.remove_op(item["poll_id"]))
        ops.append(_poll_op(poll, poll_id, item["id"], actor["id"]))
        changes["poll_id"] = poll_id
        new_options = poll["options"]
    elif poll and item.get("poll_id"):
        _apply_poll_counts(item, obj)
    media_ids = list(item.get("media_ids", []))
    if not repo.edits(item["id"]):
        first_id = ids.id_at(int(clock.parse_iso(item["created_at"]).timestamp() * 1000))
        ops.append(base.Op("Put", item={**keys.status_edit(item["id"], first_id),
                                        **_snapshot(item, item["created_at"], media_ids,
                                                    old_options)}))
    ops.append(base.Op("Put", item={**keys.status_edit(item["id"], ids.new_id()),
                                    **_snapshot(changes, edited_at, media_ids, new_options)}))
    ops.append(base.set_op(keys.status(item["id"]), changes))
    base.transact(ops)
    return True


def _apply_poll_counts(item: dict[str, Any], obj: dict[str, Any]) -> bool:
    poll = _poll(obj)
    current = repo.get_poll(item["poll_id"]) if item.get("poll_id") else None
    if poll is None or current is None or poll["options"] != list(current["options"]):
        return False
    changes = {"votes": poll["votes"], "closed": poll["closed"],
               "voters_count": poll["voters_count"] if poll["voters_count"] is not None
               else current.get("voters_count", 0)}
    if poll["expires_at"]:
        changes["expires_at"] = poll["expires_at"]
    base.transact([polls_repo.counts_op(item["poll_id"], changes)])
    return True


def update_poll(obj: dict[str, Any], actor: dict[str, Any]) -> bool:
    """A Question's new counts (an Update without a new version): the poll's votes, voters
    and end. Only its author's; False when nothing applied."""
    uri = uri_of(obj) if isinstance(obj, dict) else None
    status_id = uris.find(uri) if uri else None
    if not status_id or status_id[0] != "status" or not actor:
        return False
    item = repo.get(status_id[1])
    if item is None or item["account_id"] != actor.get("id"):
        return False
    return _apply_poll_counts(item, obj)


# --- fetching, deleting --------------------------------------------------------------------------
def _resolve(uri: str, depth: int) -> str | None:
    known = find(uri)
    if known is not None:
        return known
    if not uri.startswith(("https://", "http://")) or host_of(uri) == settings().domain.lower():
        return None  # ours and not found: there is nothing to fetch
    if not domain_blocks.allowed(remote_accounts.hostname_of(host_of(uri))):
        return None
    try:
        obj = http.fetch_object(uri, id_is_known=True)  # its id is `uri`, served there
    except outbound.Refused:
        return None
    author = _attributed_to(obj)
    actor = remote_accounts.resolve(author) if author else None
    if actor is None:
        return None
    return ingest(obj, actor=actor, depth=depth)


def resolve(uri: str) -> str | None:
    """The status an object URI names: local, stored, or fetched and ingested (with its
    author). None when it cannot be had."""
    if not isinstance(uri, str) or not uri:
        return None
    return _resolve(uri, 0)


def delete(uri: str, *, actor_id: str) -> bool:
    """A Delete of a remote status: only by its author, or another account of the author's
    domain (Mastodon accepts a Delete from the object's origin). The status goes the way a
    deleted local status goes (the outbox removes its likes, boosts, notifications, feed
    entries and counters); its media and poll items and its URI entry go with it."""
    found = uris.find(uri) if isinstance(uri, str) else None
    if found is None or found[0] != "status":
        return False
    item = repo.get(found[1])
    if item is None:
        uris.release(uri, "status", found[1])
        return False
    if item["account_id"] != actor_id:

        profiles = accounts_repo.get_many([item["account_id"], actor_id],
                                          (accounts_repo.PROFILE,))
        author = profiles.get(item["account_id"], {}).get(accounts_repo.PROFILE, {})
        deleter = profiles.get(actor_id, {}).get(accounts_repo.PROFILE, {})
        if not author.get("domain") or author.get("domain") != deleter.get("domain"):
            return False
    ops = [base.Op("Delete", key=keys.status(item["id"])),
           base.Op("Delete", key=keys.status_stats(item["id"])),
           uris.release_op(uri, "status", item["id"])]
    ops += [base.Op("Delete", key=keys.media(m)) for m in item.get("media_ids", [])]
    if item.get("poll_id"):
        ops.append(polls_repo.remove_op(item["poll_id"]))
    try:
        base.transact(ops)
    except base.ConditionFailed:
        return False  # the entry changed hands meanwhile: nothing deleted
    return True


def resolve_url(url: str) -> tuple[str, str] | None:
    """What a remote URL is (Mastodon's ResolveURLService, for search): ("account", id) or
    ("status", id), stored or fetched once and stored; None otherwise."""
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        return None
    if host_of(url) == settings().domain.lower():
        return None  # ours: never fetched (search reads its own URLs itself)
    known = uris.find(url)
    if known is not None:
        return ("account", known[1]) if known[0] in ("account", "key") else known
    if not domain_blocks.allowed(remote_accounts.hostname_of(host_of(url))):
        return None
    try:
        obj = http.fetch_object(url)  # the id is not known: served at its own id, checked
    except outbound.Refused:
        return None
    object_uri = uri_of(obj)  # may be on another host than `url`: that host's policy holds
    if not object_uri or \
            not domain_blocks.allowed(remote_accounts.hostname_of(host_of(object_uri))):
        return None
    if any(t in remote_accounts.ACTOR_TYPES for t in _types(obj)):
        profile = remote_accounts.store(obj, fetched_from=object_uri)
        return ("account", profile["id"]) if profile else None
    known_id = find(object_uri)
    if known_id is not None:
        return "status", known_id
    author = _attributed_to(obj)
    actor = remote_accounts.resolve(author) if author else None
    status_id = ingest(obj, actor=actor) if actor else None
    return ("status", status_id) if status_id else None
