"""Remote statuses: Notes (and Questions, and other object types best effort) of remote
accounts, stored as statuses (docs/federation.md, "Remote statuses"); Mastodon's
ActivityPub::Activity::Create, ActivityPub::ProcessStatusUpdateService and
FetchRemoteStatusService.

What a document says is read by federation/status_objects.py; this module stores it. A remote
status is the same `status` item a local status is, written through the same repository verbs
(repo/status_writes: its creation, an edit and its history, its removal), with
`local: false`, its ActivityPub `uri` and `url` (the `url` only when on the status's own host,
else its `uri`, as Mastodon checks its origin), and an entry in the URI index (repo/uris.py:
only for an id on its author's host, never over another's entry). A fetched object is only
believed where it names itself (federation/http.fetch_object). Its hashtag
entries are written with it, as a local status's are (status_writes: hashtag timelines show it
at once); everything else a new status sets off — fan-out to the home feeds of local
followers, notifications of local mentions, streaming, counters — follows from the stream as
for a local one.

Size: a status item must fit DynamoDB's 400 KB (repo/item_size.py). What a document says is
bounded field by field (status_objects); when all of it together would still not fit (40,000
characters of content that sanitising can make fifteen times longer, beside 100 emoji with
long URLs), the content is cut to what fits (`status_objects.fit`), on creation and on an edit
alike. Mastodon, which has no such limit, keeps it whole.

Ids: a remote status gets a snowflake id made from its `published` time (clamped to now),
as Mastodon does (`Mastodon::Snowflake.id_at`), so a fetched old status (a reply's parent,
a search result) sorts among statuses of its time instead of on top of every timeline.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stratus.core import clock, hosts, ids, outbound, urls
from stratus.core.observability import logger
from stratus.federation import http, remote_accounts
from stratus.federation import status_objects as objects
from stratus.federation.actor_documents import ACTOR_TYPES, host_of, hostname_of, uri_of
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import item_size
from stratus.repo import polls as polls_repo
from stratus.repo import status_writes, transaction, uris
from stratus.repo import statuses as repo

MAX_REPLY_DEPTH = 3  # parents fetched for one status (Mastodon fetches the chain lazily)


# --- our own URLs ------------------------------------------------------------------------------
def local_status_id(uri: str) -> str | None:
    """The id of the local status one of our status URLs names (`/users/<name>/statuses/<id>`
    or `/@<name>/<id>`), if that status exists and is <name>'s; else None."""
    found = urls.parse(uri)
    if found is None or not hosts.ours(found.host):
        return None
    segments = found.target.split("?", 1)[0].strip("/").split("/")
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


# --- storing ---------------------------------------------------------------------------------------
def _poll_op(poll: dict[str, Any], poll_id: str, status_id: str, account_id: str):
    """The new poll of a Question, laid out as a local poll is (repo/polls.create_op)."""
    return polls_repo.create_op(
        poll_id, status_id, account_id, options=poll["options"], multiple=poll["multiple"],
        expires_at=poll["expires_at"], votes=poll["votes"],
        voters_count=poll["voters_count"] if poll["voters_count"] is not None else 0,
        closed=poll["closed"], remote=True)


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
    kind = next((t for t in objects.types(obj) if t in objects.SUPPORTED + objects.CONVERTED), None)
    uri = uri_of(obj)
    if kind is None or not uri or not uri.startswith(("https://", "http://")):
        return None
    # The object is the actor's (Mastodon: attributedTo is the activity's actor) and lives
    # on the actor's server.
    if objects.attributed_to(obj) != actor["uri"] or host_of(uri) != actor["domain"]:
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
    if not domain_blocks.allowed(hostname_of(actor["domain"])) or \
            _deleted_first(uri, actor):
        return None
    return _create(obj, actor, kind, depth)


def _create(obj: dict[str, Any], actor: dict[str, Any], kind: str, depth: int) -> str | None:
    uri = uri_of(obj)
    published = objects.published(obj)
    status_id = ids.new_id(max(int(published.timestamp() * 1000), 0))
    visibility = objects.visibility_of(obj, actor)
    parent, parent_uri = _parent(obj, depth)
    content, language = objects.text(obj, kind)
    spoiler = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    local_mentions, remote_mentions = objects.mentions(obj, visibility)
    policy = domain_blocks.policy_for(hostname_of(actor["domain"]))
    media = objects.media(obj, status_id, actor["id"], policy.reject_media)
    poll = objects.poll(obj)
    item: dict[str, Any] = {
        "id": status_id, "account_id": actor["id"], "uri": uri,
        "url": objects.status_url(obj),
        "content": content, "spoiler_text": spoiler.strip()[:objects.MAX_SPOILER],
        "visibility": visibility,
        "sensitive": obj.get("sensitive") is True or bool(spoiler.strip()),
        "language": language or None,
        "in_reply_to_id": parent["id"] if parent else None,
        "in_reply_to_account_id": parent["account_id"] if parent else None,
        "in_reply_to_uri": parent_uri,
        "thread_id": (parent.get("thread_id") or parent["id"]) if parent else status_id,
        "mention_ids": local_mentions, "remote_mention_ids": remote_mentions,
        "tags": objects.hashtags(obj), "emojis": [], "remote_emojis": objects.emojis(obj),
        "media_ids": [m["id"] for m in media], "local": False, "application": None,
        "created_at": clock.iso(published),
        "remote_updated_at": obj.get("updated") if isinstance(obj.get("updated"), str) else None,
    }
    _fit(item)
    ops = [uris.claim_op(uri, "status", status_id, owner_uri=actor["uri"])]
    if poll:
        poll_id = ids.new_id()
        item["poll_id"] = poll_id
        ops.append(_poll_op(poll, poll_id, status_id, actor["id"]))
    ops += status_writes.create_ops(item, media=media)
    try:
        transaction.write(ops)
    except transaction.ConditionFailed:
        return find(uri)  # ingested meanwhile (a redelivery, a concurrent fetch)
    except item_size.Unstorable as refused:  # still too large, cut as it is: not stored
        logger.info("remote status refused: it cannot be stored",
                    extra={"uri": uri, "reason": str(refused)[:200]})
        return None
    if item["tags"]:
        from stratus.repo import search as search_repo

        search_repo.index_tags(item["tags"])
    return status_id


def _fit(status: dict[str, Any], changes: dict[str, Any] | None = None) -> None:
    """Cut the content (of `changes`, an edit's, when given) so the status item fits."""
    target = status if changes is None else changes
    over = status_writes.excess(status if changes is None else {**status, **changes})
    if over:
        size = len(target["content"].encode("utf-8"))
        target["content"] = objects.fit(target["content"], max(size - over, 0))


def _older(updated: str, stored: str | None) -> bool:
    """Mastodon's already_updated_more_recently?: the stored version is newer."""
    if not stored:
        return False
    try:
        return datetime.fromisoformat(updated.replace("Z", "+00:00")) < \
            datetime.fromisoformat(stored.replace("Z", "+00:00"))
    except (ValueError, TypeError):  # not a time, or one with a zone and one without
        return False


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
    content, language = objects.text(obj, kind)
    spoiler = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    local_mentions, remote_mentions = objects.mentions(obj, item["visibility"])
    try:
        edited_at = clock.iso(datetime.fromisoformat(updated.replace("Z", "+00:00")))
    except ValueError:
        edited_at = clock.iso(clock.now())
    changes: dict[str, Any] = {
        "content": content, "spoiler_text": spoiler.strip()[:objects.MAX_SPOILER],
        "sensitive": obj.get("sensitive") is True or bool(spoiler.strip()),
        "language": language or item.get("language"), "tags": objects.hashtags(obj),
        "mention_ids": list(dict.fromkeys(list(item.get("mention_ids", [])) + local_mentions)),
        "remote_mention_ids": remote_mentions, "remote_emojis": objects.emojis(obj),
        "edited_at": edited_at, "remote_updated_at": updated}
    _fit(item, changes)
    ops: list[transaction.Op] = []
    old_options = None
    poll = objects.poll(obj)
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
    ops += status_writes.edit_ops(item, changes, poll_options_before=old_options,
                                  poll_options_after=new_options)
    transaction.write(ops)
    return True


def _apply_poll_counts(item: dict[str, Any], obj: dict[str, Any]) -> bool:
    poll = objects.poll(obj)
    current = repo.get_poll(item["poll_id"]) if item.get("poll_id") else None
    if poll is None or current is None or poll["options"] != list(current["options"]):
        return False
    changes = {"votes": poll["votes"], "closed": poll["closed"],
               "voters_count": poll["voters_count"] if poll["voters_count"] is not None
               else current.get("voters_count", 0)}
    if poll["expires_at"]:
        changes["expires_at"] = poll["expires_at"]
    transaction.write([polls_repo.counts_op(item["poll_id"], changes)])
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
def _fetchable(uri: str) -> bool:
    """A remote URI (not ours) on a domain we federate with."""
    return uri.startswith(("https://", "http://")) and not hosts.ours(host_of(uri)) and \
        domain_blocks.allowed(hostname_of(host_of(uri)))


def _store(obj: dict[str, Any], depth: int) -> str | None:
    author = objects.attributed_to(obj)
    actor = remote_accounts.resolve(author) if author else None
    return ingest(obj, actor=actor, depth=depth) if actor is not None else None


def _resolve(uri: str, depth: int) -> str | None:
    known = find(uri)
    if known is not None:
        return known
    if not _fetchable(uri):
        return None  # ours and not found, or of a domain we do not federate with
    try:
        obj = http.fetch_object(uri, id_is_known=True)  # its id is `uri`, served there
    except outbound.Refused:
        return None
    return _store(obj, depth)


def fetch(uri: str) -> tuple[str | None, dict[str, Any] | None, bool]:
    """A remote status fetched by its URI even when stored (a thread's replies are read from
    it: federation/reply_fetch.py), and stored when new: (its id, the document, whether it was
    stored now). (None, None, False) for one of ours or of a domain we do not federate with,
    or what cannot be fetched; a deadline or a job's budget that runs out is raised
    (outbound.TimedOut), so the caller can tell it from a refusal."""
    if not isinstance(uri, str) or not _fetchable(uri):
        return None, None, False
    try:
        obj = http.fetch_object(uri, id_is_known=True)
    except outbound.TimedOut:
        raise
    except outbound.Refused:
        return None, None, False
    known = find(uri)
    if known is not None:
        return known, obj, False
    stored = _store(obj, 0)
    return stored, obj, stored is not None


def resolve(uri: str) -> str | None:
    """The status an object URI names: local, stored, or fetched and ingested (with its
    author). None when it cannot be had."""
    if not isinstance(uri, str) or not uri:
        return None
    return _resolve(uri, 0)


def delete(uri: str, *, actor_id: str) -> bool:
    """A Delete of a remote status: only by its author (Mastodon's
    ActivityPub::Activity::Delete#delete_status finds the status by its URI *and* the
    activity's actor; another account of the same server deletes nothing). The status goes
    the way a deleted local status goes (the outbox removes its likes, boosts, notifications,
    feed entries and counters); its media and poll items and its URI entry go with it."""
    found = uris.find(uri) if isinstance(uri, str) else None
    if found is None or found[0] != "status":
        return False
    item = repo.get(found[1])
    if item is None:
        uris.release(uri, "status", found[1])
        return False
    if item["account_id"] != actor_id:
        return False  # another account's status, whatever server it is on
    try:
        transaction.write(status_writes.removal_ops(item, uri=uri))
    except transaction.ConditionFailed:
        return False  # deleted, or the entry changed hands, meanwhile: nothing deleted
    return True


def resolve_url(url: str) -> tuple[str, str] | None:
    """What a remote URL is (Mastodon's ResolveURLService, for search): ("account", id) or
    ("status", id), stored or fetched once and stored; None otherwise."""
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        return None
    if hosts.ours(host_of(url)):
        return None  # ours: never fetched (search reads its own URLs itself)
    known = uris.find(url)
    if known is not None:
        return ("account", known[1]) if known[0] in ("account", "key") else known
    if not domain_blocks.allowed(hostname_of(host_of(url))):
        return None
    try:
        obj = http.fetch_object(url)  # the id is not known: served at its own id, checked
    except outbound.Refused:
        return None
    object_uri = uri_of(obj)  # may be on another host than `url`: that host's policy holds
    if not object_uri or \
            not domain_blocks.allowed(hostname_of(host_of(object_uri))):
        return None
    if any(t in ACTOR_TYPES for t in objects.types(obj)):
        profile = remote_accounts.store(obj, fetched_from=object_uri)
        return ("account", profile["id"]) if profile else None
    known_id = find(object_uri)
    if known_id is not None:
        return "status", known_id
    author = objects.attributed_to(obj)
    actor = remote_accounts.resolve(author) if author else None
    status_id = ingest(obj, actor=actor) if actor else None
    return ("status", status_id) if status_id else None
