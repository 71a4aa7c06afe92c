"""Streaming: who may listen to which stream, and the connections that listen.

Transport-neutral. A WebSocket (API Gateway's `$connect` / `$default` / `$disconnect` routes,
functions/streaming) and a Server-Sent Events response (functions/streaming_sse) are both a
*connection* with subscriptions (repo/connections.py); the stream worker (workers/stream.py)
turns the outbox's jobs into events and posts them to the connections listening, one message
per connection and stream, exactly as Mastodon's streaming server frames them
(convert/streaming.py).

Mastodon's rules (streaming/index.js, 4.2+): every stream needs a user token; `user` and
`direct` and the list streams need `read` or `read:statuses`, `user:notification` needs `read`
or `read:notifications`, and the `user` stream carries notifications only when the token may
read them; the public and hashtag streams need no particular scope. A list streams only to
its owner.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from stratus.auth import identity
from stratus.auth import scopes as scope_rules
from stratus.convert.streaming import dumps
from stratus.core import ids
from stratus.repo import connections
from stratus.repo import lists as lists_repo

PUBLIC = ("public", "public:media", "public:local", "public:local:media", "public:remote",
          "public:remote:media")
HASHTAG = ("hashtag", "hashtag:local")
STREAMS = ("user", "user:notification", *PUBLIC, *HASHTAG, "list", "direct")


class StreamError(Exception):
    """A refusal, told to the client as Mastodon does: `{"error": ..., "status": ...}` over a
    WebSocket, the status and `{"error": ...}` over HTTP."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def frame(self) -> str:
        return dumps({"error": self.message, "status": self.status})


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
        extra = (connections.USER_WITH_NOTIFICATIONS,) \
            if _may(listener.scopes, "read:notifications") else ()
        return Subscription("user", ("user",), True, extra)
    if name in ("user:notification", "direct"):
        return Subscription(name, (name,), True)
    return Subscription(name, (name,), False)


def subscribe(connection_id: str, listener: Listener, sub: Subscription) -> None:
    if sub.account_scoped:
        for key in (sub.key, *sub.extra_keys):
            connections.add_account_stream(connection_id, listener.account_id, key)
        if sub.key == "user":
            connections.add_stream(connection_id, listener.account_id,
                                   connections.ANNOUNCEMENTS, ["user"])
    else:
        connections.add_stream(connection_id, listener.account_id, sub.key, list(sub.stream))


def unsubscribe(connection_id: str, listener: Listener, sub: Subscription) -> None:
    if sub.account_scoped:
        with_notifications = (connections.USER_WITH_NOTIFICATIONS,) if sub.key == "user" \
            else ()
        for key in (sub.key, *sub.extra_keys, *with_notifications):
            connections.remove_account_stream(connection_id, listener.account_id, key)
            connections.forget(connection_id, key)
        if sub.key == "user":
            connections.remove_stream(connection_id, connections.ANNOUNCEMENTS)
            connections.forget(connection_id, connections.ANNOUNCEMENTS)
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
