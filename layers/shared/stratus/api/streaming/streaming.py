"""Streaming: who may listen to which stream, and the events connections are sent.

Transport-neutral. A WebSocket (API Gateway's `$connect` / `$default` / `$disconnect` routes,
functions/streaming) and a Server-Sent Events response (functions/streaming_sse) are both a
*connection* with subscriptions (repo/connections.py); the stream worker (functions/workers/
stream) turns the outbox's jobs into events and posts them, one message per connection and
stream, exactly as Mastodon's streaming server frames them:
`{"stream":["hashtag","Foo"],"event":"update","payload":"<the Status as a JSON string>"}`.

Mastodon's rules (streaming/index.js, 4.2+): every stream needs a user token; `user` and
`direct` and the list streams need `read` or `read:statuses`, `user:notification` needs `read`
or `read:notifications`, and the `user` stream carries notifications only when the token may
read them; the public and hashtag streams need no particular scope. A list streams only to
its owner. Public and hashtag streams carry what FanOutOnWriteService broadcasts (public
statuses that are not boosts; replies to others stay off the public streams but reach the
hashtag ones), rendered once without a viewer and dropped per subscriber who blocks or mutes
the author or a mentioned account, is blocked by the author, or blocks the author's domain.
Home and list events are rendered for their recipient (the fan-out worker already applied
FeedManager's rules when it chose them).
"""

from __future__ import annotations

import contextvars
import hashlib
import json
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from stratus.api.announcements import announcements
from stratus.api.conversations import conversations
from stratus.api.notifications import notifications
from stratus.auth import identity
from stratus.auth import scopes as scope_rules
from stratus.convert import instance as convert_instance
from stratus.core import ids
from stratus.jobs import messages as jobs
from stratus.model.relationships import Relationships
from stratus.read import filters, relationships, status_views
from stratus.repo import announcements as announcements_repo
from stratus.repo import connections, feeds
from stratus.repo import conversations as conversations_repo
from stratus.repo import instance as instance_repo
from stratus.repo import lists as lists_repo
from stratus.repo import notifications as notifications_repo
from stratus.repo import statuses as statuses_repo
from stratus.workers import fanout

PUBLIC = ("public", "public:media", "public:local", "public:local:media", "public:remote",
          "public:remote:media")
HASHTAG = ("hashtag", "hashtag:local")
STREAMS = ("user", "user:notification", *PUBLIC, *HASHTAG, "list", "direct")
# The `user` stream with notifications: connections whose token may read them.
USER_WITH_NOTIFICATIONS = "user@notification"
# Every `user` stream also listens here: announcements go to all of them (Mastodon publishes
# them to each active account's timeline channel), found with one GSI1 query, not per account.
ANNOUNCEMENTS = "announcements"
FOLLOWERS_PAGE = 1000
PARALLEL_POSTS = 16


class StreamError(Exception):
    """A refusal, told to the client as Mastodon does: `{"error": ..., "status": ...}` over a
    WebSocket, the status and `{"error": ...}` over HTTP."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def frame(self) -> str:
        return _dumps({"error": self.message, "status": self.status})


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def frame(stream: list[str], event: str, payload: str | None = None) -> str:
    """One message as Mastodon sends it; `filters_changed` has no payload key at all."""
    message: dict[str, Any] = {"stream": stream, "event": event}
    if payload is not None:
        message["payload"] = payload
    return _dumps(message)


# --- who is connecting -----------------------------------------------------------------------------
def token_from(headers: dict[str, str], query: dict[str, str]) -> tuple[str | None, str | None]:
    """(the access token, the sub-protocol to answer with). Mastodon reads the Authorization
    header, then `Sec-WebSocket-Protocol` (masto sends the token there and needs it echoed),
    then `?access_token=` (megalodon). The first offered sub-protocol is echoed whatever carried
    the token, as Node's `ws` server does; none is echoed when none was offered."""
    lowered = {k.lower(): v for k, v in headers.items()}
    offered = [p.strip() for p in lowered.get("sec-websocket-protocol", "").split(",")
               if p.strip()]
    protocol = offered[0] if offered else None
    authorization = lowered.get("authorization", "")
    if authorization[:7].lower() == "bearer " and authorization[7:].strip():
        return authorization[7:].strip(), protocol
    if protocol:
        return protocol, protocol
    return (query.get("access_token") or None), protocol


@dataclass(frozen=True)
class Listener:
    account_id: str
    token_id: str
    scopes: tuple[str, ...]


def authenticate(raw: str | None) -> Listener:
    """The user behind a token (Mastodon 4.2+: every stream needs one; app tokens, disabled
    and suspended users are refused)."""
    if not raw:
        raise StreamError(401, "Missing access token")
    viewer = identity.viewer_for_token(raw)
    if viewer is None or viewer.account is None or viewer.user is None:
        raise StreamError(401, "Invalid access token")
    if viewer.user.get("disabled") or viewer.account.get("suspended_at"):
        raise StreamError(401, "Invalid access token")
    return Listener(viewer.account_id, str(viewer.token["id"]), tuple(viewer.scopes))


def _may(scopes: Iterable[str], *wanted: str) -> bool:
    return any(scope_rules.covers(list(scopes), w) for w in wanted)


# --- what they may listen to -------------------------------------------------------------------
@dataclass(frozen=True)
class Subscription:
    key: str  # where it is stored: "user", "list#5", "public:local", "hashtag#foo", ...
    stream: tuple[str, ...]  # what events carry: ("list", "5"), ("hashtag", "Foo"), ...
    account_scoped: bool  # a stream of the listener's own account (presence item)
    extra_keys: tuple[str, ...] = ()  # also listened to (the user stream's notifications)


def subscription(listener: Listener, name: str | None, params: dict[str, Any]) -> Subscription:
    """Mastodon's channelNameToIds + checkScopes for one stream request."""
    if not isinstance(name, str) or name not in STREAMS:
        raise StreamError(400, "Unknown stream type")
    if name == "user:notification":
        if not _may(listener.scopes, "read:notifications"):
            raise StreamError(401, "Access token does not have the required scopes")
    elif name not in PUBLIC and name not in HASHTAG and \
            not _may(listener.scopes, "read:statuses"):
        raise StreamError(401, "Access token does not have the required scopes")
    if name in HASHTAG:
        tag = params.get("tag")
        if not isinstance(tag, str) or not tag.strip():
            raise StreamError(400, "Missing tag name parameter")
        return Subscription(connections.stream_key(name, tag.strip().lower()), (name, tag), False)
    if name == "list":
        list_id = params.get("list")
        if list_id is None or str(list_id) == "":
            raise StreamError(400, "Missing list name parameter")
        list_id = str(list_id)
        if not ids.is_id(list_id) or lists_repo.get(listener.account_id, list_id) is None:
            raise StreamError(401, "Not authorized to stream this list")
        return Subscription(connections.stream_key("list", list_id), ("list", list_id), True)
    if name == "user":
        extra = (USER_WITH_NOTIFICATIONS,) if _may(listener.scopes, "read:notifications") \
            else ()
        return Subscription("user", ("user",), True, extra)
    if name in ("user:notification", "direct"):
        return Subscription(name, (name,), True)
    return Subscription(name, (name,), False)


def stream_of(key: str) -> list[str]:
    """The `stream` array of an account stream's key."""
    if key == USER_WITH_NOTIFICATIONS:
        return ["user"]
    return connections.stream_name(key)


def subscribe(connection_id: str, listener: Listener, sub: Subscription) -> None:
    if sub.account_scoped:
        for key in (sub.key, *sub.extra_keys):
            connections.add_account_stream(connection_id, listener.account_id, key)
        if sub.key == "user":
            connections.add_stream(connection_id, listener.account_id, ANNOUNCEMENTS, ["user"])
    else:
        connections.add_stream(connection_id, listener.account_id, sub.key, list(sub.stream))


def unsubscribe(connection_id: str, listener: Listener, sub: Subscription) -> None:
    if sub.account_scoped:
        for key in (sub.key, *sub.extra_keys, *((USER_WITH_NOTIFICATIONS,)
                                                 if sub.key == "user" else ())):
            connections.remove_account_stream(connection_id, listener.account_id, key)
            connections.forget(connection_id, key)
        if sub.key == "user":
            connections.remove_stream(connection_id, ANNOUNCEMENTS)
            connections.forget(connection_id, ANNOUNCEMENTS)
    else:
        connections.remove_stream(connection_id, sub.key)
        connections.forget(connection_id, sub.key)


# --- the WebSocket routes ----------------------------------------------------------------------
def connect(connection_id: str, headers: dict[str, str], query: dict[str, str]) -> str | None:
    """`$connect`: authenticate and open the connection (and subscribe to `?stream=`); returns
    the sub-protocol to echo. A refused stream at connect time refuses the connection (there
    is no socket yet to tell the error on)."""
    raw, protocol = token_from(headers, query)
    listener = authenticate(raw)
    wanted = query.get("stream")
    sub = subscription(listener, wanted, query) if wanted else None
    connections.open_connection(connection_id, listener.account_id, listener.token_id,
                                list(listener.scopes))
    if sub is not None:
        subscribe(connection_id, listener, sub)
    return protocol


def _listener(connection: dict[str, Any]) -> Listener:
    return Listener(connection["account_id"], connection["token_id"],
                    tuple(connection.get("scopes") or ()))


def message(connection_id: str, body: str | None) -> list[str]:
    """`$default`: a client message; returns what to answer (errors only). Anything that is
    not a subscribe/unsubscribe message is ignored, as Mastodon does (a text "ping" too)."""
    try:
        data = json.loads(body or "")
    except ValueError:
        return []
    if not isinstance(data, dict) or data.get("type") not in ("subscribe", "unsubscribe"):
        return []
    connection = connections.get(connection_id)
    if connection is None:
        return []
    listener = _listener(connection)
    try:
        sub = subscription(listener, data.get("stream"), data)
    except StreamError as error:
        return [error.frame()]
    if data["type"] == "subscribe":
        subscribe(connection_id, listener, sub)
    else:
        unsubscribe(connection_id, listener, sub)
    return []


def disconnect(connection_id: str) -> None:
    connection = connections.get(connection_id)
    if connection is not None:
        connections.remove(connection)


# --- SSE ---------------------------------------------------------------------------------------
SSE_PATHS = {"user": "user", "user/notification": "user:notification", "public": "public",
             "public/local": "public:local", "public/remote": "public:remote",
             "hashtag": "hashtag", "hashtag/local": "hashtag:local", "list": "list",
             "direct": "direct"}


def sse_stream_name(path: str, query: dict[str, str]) -> str | None:
    """Mastodon's channelNameFromPath: `/api/v1/streaming/public/local?only_media=true` →
    `public:local:media`."""
    name = SSE_PATHS.get(path.strip("/"))
    if name in ("public", "public:local", "public:remote") and \
            str(query.get("only_media", "")).lower() in ("1", "true", "t", "on"):
        name += ":media"
    return name


def open_sse(headers: dict[str, str], query: dict[str, str], path: str) -> str:
    """Authenticate and subscribe an SSE request; returns its connection id."""
    raw, _ = token_from({k: v for k, v in headers.items()
                         if k.lower() != "sec-websocket-protocol"}, query)
    listener = authenticate(raw)
    name = sse_stream_name(path, query)
    if name is None:
        raise StreamError(404, "Not found")
    sub = subscription(listener, name, query)
    connection_id = connections.new_sse_id()
    connections.open_connection(connection_id, listener.account_id, listener.token_id,
                                list(listener.scopes))
    subscribe(connection_id, listener, sub)
    return connection_id


def sse_pending(connection_id: str) -> list[str] | None:
    """The messages waiting for an SSE connection; None once it was closed (token revoked)."""
    if connections.get(connection_id) is None:
        return None
    return connections.take_mailbox(connection_id)


def sse_lines(data: str) -> str:
    """A WebSocket-format message as an SSE event: `event: update\\ndata: <payload>\\n\\n`."""
    message_ = json.loads(data)
    payload = message_.get("payload")
    return f"event: {message_['event']}\ndata: {'undefined' if payload is None else payload}\n\n"


# --- delivery ----------------------------------------------------------------------------------
def for_recipient(status: dict[str, Any], matcher: filters.Matcher) -> dict[str, Any] | None:
    """A status rendered once for everyone (public and hashtag streams), prepared for one
    recipient: their filters for the stream's context mark it (`filtered`) or, with `hide`,
    keep it from them (None). Blocks and mutes are decided before this is called."""
    kept = matcher.keep([status])
    return kept[0] if kept else None


def _post_all(messages: list[tuple[str, str]], owners: dict[str, str] | None = None) -> int:
    """Post (connection id, message) pairs, several at a time; gone connections are forgotten
    (`owners`: connection id → account, to clear a presence entry whose connection item is
    already gone). Returns how many posts were made."""
    if not messages:
        return 0
    if len(messages) == 1:
        results = [connections.post(*messages[0])]
    else:
        context = contextvars.copy_context()  # the invocation's identity goes along

        def post(pair: tuple[str, str]) -> bool:
            return context.copy().run(connections.post, *pair)

        with ThreadPoolExecutor(max_workers=min(PARALLEL_POSTS, len(messages))) as pool:
            results = list(pool.map(post, messages))
    gone = {cid for (cid, _), ok in zip(messages, results) if not ok}
    for connection_id in gone:
        connection = connections.get(connection_id)
        if connection is not None:
            connections.remove(connection)
        elif owners and connection_id in owners:
            connections.drop_presence(owners[connection_id], connection_id)
    return len(messages)


def excluded(status: dict[str, Any], relations: Relationships) -> bool:
    """Mastodon's per-subscriber check on the public and hashtag streams: the subscriber blocks
    or mutes the author or a mentioned account, the author blocks the subscriber, or the
    subscriber blocks the author's domain."""
    involved = [status["account_id"], *status.get("mention_ids", [])]
    return (any(a in relations.blocking or a in relations.muting for a in involved)
            or status["account_id"] in relations.blocked_by
            or relations.blocks_domain(status.get("account_domain")))


def public_keys(job: jobs.StreamStatus) -> list[str]:
    """The instance-wide streams a status goes to (FanOutOnWriteService: broadcast_to_hashtag_
    streams!, broadcast_to_public_streams!)."""
    if job.visibility != "public" or job.reblog:
        return []
    found = []
    for tag in dict.fromkeys(t.lower() for t in job.tags):
        found.append(connections.stream_key("hashtag", tag))
        if job.local:
            found.append(connections.stream_key("hashtag:local", tag))
    if not (job.in_reply_to_id and job.in_reply_to_account_id != job.account_id):
        where = "public:local" if job.local else "public:remote"
        found += ["public", where]
        if job.has_media:
            found += ["public:media", where + ":media"]
    return found


def _payload(entity: dict[str, Any]) -> str:
    return _dumps(entity)


def stream_status(job: jobs.StreamStatus) -> int:
    """A public status to the public and hashtag streams; an edit also to the homes that hold
    it (Mastodon's status.update reaches followers whose feed has it)."""
    posted = 0
    subscribers = [s for key in public_keys(job) for s in connections.listeners(key)]
    item = statuses_repo.get(job.status_id) if job.event != "delete" else None
    if job.event == "delete":
        posted += _post_all([(s["connection_id"], frame(list(s["stream"]), "delete",
                                                        job.status_id)) for s in subscribers])
    elif item is not None and subscribers:
        rendered = status_views.render([item], None)
        if rendered:
            posted += _post_all(_public_messages(job.event, item, rendered[0], subscribers))
    if job.event == "status.update" and item is not None:
        posted += _edit_to_homes(item) + _edit_to_lists(item)
    return posted


def _public_messages(event: str, item: dict[str, Any], entity: dict[str, Any],
                     subscribers: list[dict[str, Any]]) -> list[tuple[str, str]]:
    views: dict[str, Relationships] = {}
    matchers: dict[str, filters.Matcher] = {}
    messages = []
    for subscriber in subscribers:
        account = subscriber["account_id"]
        if account not in views:
            views[account] = relationships.loader(account).accounts(
                [item["account_id"], *item.get("mention_ids", [])],
                [item["account_domain"]] if item.get("account_domain") else [])
        if excluded(item, views[account]):
            continue
        if account not in matchers:
            matchers[account] = filters.compiled(account, "public")
        prepared = for_recipient(entity, matchers[account])
        if prepared is not None:
            messages.append((subscriber["connection_id"],
                             frame(list(subscriber["stream"]), event, _payload(prepared))))
    return messages


def _edit_to_homes(item: dict[str, Any]) -> int:
    """status.update for the author and the followers whose home holds the status and who
    are listening: followers a page at a time, one presence read per hundred."""
    author, posted, after = item["account_id"], 0, None
    first = True
    while True:
        page, after = feeds.followers_page(author, after, FOLLOWERS_PAGE)
        if first:
            page, first = [author, *page], False
        listening = {a: s for a, s in connections.account_listeners(page).items()
                     if s.get("user")}
        if listening:
            holding = feeds.present([(feeds.home(a), item["id"]) for a in listening],
                                    markers=False)
            owners = [a for a in listening if (feeds.home(a), item["id"]) in holding]
            posted += _to_accounts("status.update", item, {a: listening[a] for a in owners},
                                   "user")
        if after is None:
            return posted


def _edit_to_lists(item: dict[str, Any]) -> int:
    """status.update on the list streams of lists that hold the status (the author's lists
    whose owner is listening to that list), as Mastodon's fan-out of an edit does."""
    targets, _ = fanout.author_lists(item["account_id"])
    if not targets:
        return 0
    listening = connections.account_listeners(sorted({t["owner_id"] for t in targets}))
    wanted = [t for t in targets
              if listening.get(t["owner_id"], {}).get(connections.stream_key("list", t["id"]))]
    if not wanted:
        return 0
    holding = feeds.present([(feeds.of_list(t["id"]), item["id"]) for t in wanted],
                            markers=False)
    posted = 0
    for listed in wanted:
        if (feeds.of_list(listed["id"]), item["id"]) in holding:
            stream = connections.stream_key("list", listed["id"])
            posted += _to_accounts("status.update", item,
                                   {listed["owner_id"]: listening[listed["owner_id"]]}, stream)
    return posted


def _to_accounts(event: str, item: dict[str, Any], listening: dict[str, dict[str, set[str]]],
                 key: str, context: str = "home") -> int:
    """Render `item` for each listening account and post it on their `key` stream (what
    does not depend on the recipient is read once for all of them)."""
    messages = []
    shared: status_views.Shared = {}
    for account, streams in listening.items():
        targets = streams.get(key) or set()
        if not targets:
            continue
        # Rendered for the recipient with their filters for the context: `hide` keeps it
        # from them, `warn`/`blur` mark it.
        rendered = status_views.render([item], account,
                                       matcher=filters.compiled(account, context),
                                       shared=shared)
        if not rendered:
            continue
        prepared = rendered[0]
        data = frame(stream_of(key), event, _payload(prepared))
        messages += [(cid, data) for cid in sorted(targets)]
    return _post_all(messages, {cid: a for a, s in listening.items()
                                for cid in s.get(key) or ()})


def _owners(listening: dict[str, dict[str, set[str]]]) -> dict[str, str]:
    return {cid: account for account, streams in listening.items()
            for cids in streams.values() for cid in cids}


def stream_to_feeds(job: jobs.StreamToFeeds) -> int:
    """What fan-out put into (or took out of) homes and lists, to their listening owners."""
    owners = {listed["owner_id"] for listed in job.lists}
    listening = connections.account_listeners([*job.receivers, *owners])
    if not listening:
        return 0
    homes = {a: listening[a] for a in job.receivers if a in listening}
    lists = [(listed, listening[listed["owner_id"]]) for listed in job.lists
             if listed["owner_id"] in listening]
    if job.event == "delete":
        messages = [(cid, frame(["user"], "delete", job.status_id))
                    for streams in homes.values() for cid in sorted(streams.get("user", ()))]
        messages += [(cid, frame(["list", listed["id"]], "delete", job.status_id))
                     for listed, streams in lists
                     for cid in sorted(streams.get(connections.stream_key("list", listed["id"]),
                                                   ()))]
        return _post_all(messages, _owners(listening))
    item = statuses_repo.get(job.status_id)
    if item is None:
        return 0
    posted = _to_accounts("update", item, homes, "user")
    for listed, streams in lists:
        posted += _to_accounts("update", item, {listed["owner_id"]: streams},
                               connections.stream_key("list", listed["id"]))
    return posted


def stream_notification(job: jobs.StreamNotification) -> int:
    streams = connections.account_listeners([job.account_id]).get(job.account_id, {})
    targets = [(key, cid) for key in (USER_WITH_NOTIFICATIONS, "user:notification")
               for cid in sorted(streams.get(key, ()))]
    if not targets:
        return 0
    item = notifications_repo.get(job.account_id, job.notification_id)
    rendered = notifications.render_for(job.account_id, [item]) if item else []
    if not rendered:
        return 0
    payload = _payload(rendered[0])  # a status a `hide` filter removes drops the notification
    return _post_all([(cid, frame(stream_of(key), "notification", payload))
                      for key, cid in targets], {cid: job.account_id for _, cid in targets})


def stream_conversation(job: jobs.StreamConversation) -> int:
    streams = connections.account_listeners([job.account_id]).get(job.account_id, {})
    targets = sorted(streams.get("direct", ()))
    if not targets:
        return 0
    item = conversations_repo.get(job.account_id, job.conversation_id)
    rendered = conversations.render_for(job.account_id, [item]) if item else []
    if not rendered:
        return 0
    payload = _payload(rendered[0])
    return _post_all([(cid, frame(["direct"], "conversation", payload)) for cid in targets],
                     {cid: job.account_id for cid in targets})


def stream_filters_changed(job: jobs.StreamFiltersChanged) -> int:
    streams = connections.account_listeners([job.account_id]).get(job.account_id, {})
    targets = sorted(streams.get("user", ()))
    return _post_all([(cid, frame(["user"], "filters_changed")) for cid in targets],
                     {cid: job.account_id for cid in targets})


def close_connections(job: jobs.CloseConnections) -> int:
    """A revoked token's connections end (Mastodon closes them on revocation)."""
    doomed = [c for c in connections.of_account(job.account_id)
              if str(c.get("token_id")) == str(job.token_id)]
    for connection in doomed:
        connections.close(connection["connection_id"])
        connections.remove(connection)
    return len(doomed)


# --- announcements (announce area) -------------------------------------------------------------
def _announce(event: str, payload: str) -> int:
    """One event to every `user` stream (Mastodon: each active account's timeline channel)."""
    subscribers = connections.listeners(ANNOUNCEMENTS)
    return _post_all([(s["connection_id"], frame(list(s["stream"]), event, payload))
                      for s in subscribers],
                     {s["connection_id"]: s["account_id"] for s in subscribers})


def stream_announcement(job: jobs.StreamAnnouncement) -> int:
    """`announcement`: the announcement rendered once without a viewer (no `read`, no `me`),
    as it is now (gone or unpublished meanwhile: nothing); `announcement.delete`: its id."""
    if job.event == "announcement.delete":
        return _announce(job.event, job.announcement_id)
    item, reactions = announcements_repo.with_reactions(job.announcement_id)
    if item is None or not item.get("published"):
        return 0
    entity = announcements.render([item], {job.announcement_id: reactions}, viewer_id=None)[0]
    return _announce(job.event, _payload(entity))


def stream_announcement_reaction(job: jobs.StreamAnnouncementReaction) -> int:
    """`announcement.reaction`: {name, count, announcement_id} (and the custom emoji's urls),
    the count as the counters worker left it."""
    payload: dict[str, Any] = {"name": job.reaction, "count": max(job.count, 0)}
    if job.custom_emoji:
        found = instance_repo.get_emoji(job.custom_emoji)
        if found:
            emoji_entity = convert_instance.custom_emoji(found)
            payload.update(url=emoji_entity["url"], static_url=emoji_entity["static_url"])
    payload["announcement_id"] = job.announcement_id
    return _announce("announcement.reaction", _payload(payload))


HANDLERS = {jobs.StreamStatus: stream_status, jobs.StreamToFeeds: stream_to_feeds,
            jobs.StreamNotification: stream_notification,
            jobs.StreamConversation: stream_conversation,
            jobs.StreamFiltersChanged: stream_filters_changed,
            jobs.CloseConnections: close_connections,
            jobs.StreamAnnouncement: stream_announcement,
            jobs.StreamAnnouncementReaction: stream_announcement_reaction}


def handle(job: jobs.Job) -> int:
    """Run a stream job once: a job delivered again after it succeeded (SQS is at-least-once;
    fan-out may send the same batch twice) posts nothing again. A job that fails gives its
    claim back, so its retry posts (what the failed attempt already posted may then arrive
    twice). Closing a revoked token's connections is idempotent and always runs."""
    handler = HANDLERS.get(type(job))
    if handler is None:
        raise ValueError(f"not a streaming job: {job.name}")
    if isinstance(job, jobs.CloseConnections):
        return handler(job)
    claim = hashlib.sha256(_dumps(job.to_dict()).encode()).hexdigest()
    if not connections.claim("stream", claim):
        return 0
    try:
        return handler(job)
    except Exception:
        connections.release("stream", claim)
        raise
