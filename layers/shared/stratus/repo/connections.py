"""Streaming connections (the Connections table) and delivery to them.

A connection is a WebSocket held by API Gateway (delivery: `PostToConnection` on the WebSocket
API's @connections endpoint) or a Server-Sent Events response held by the SSE function
(delivery: an entry in the connection's mailbox, which that function reads and empties). Which
one is told by the id: SSE ids start with `SSE_PREFIX`, a character API Gateway's ids never
contain. Every item carries a `ttl` past the longest life of its connection, so what a lost
`$disconnect` leaves behind goes by itself.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from typing import Any

from stratus.core.config import settings
from stratus.repo import base, dedupe, keys
from stratus.repo.client import client, dynamodb

SSE_PREFIX = "sse:"
# Streams kept as one item per connection that GSI1 finds by stream (the rest are account
# streams on the presence item): the public and hashtag streams, and every
# `user` stream's announcements listener.
INSTANCE_WIDE = ("public", "hashtag", "announcements")
# The `user` stream with notifications: connections whose token may read them.
USER_WITH_NOTIFICATIONS = "user@notification"
# Every `user` stream also listens here: announcements go to all of them (Mastodon publishes
# them to each active account's timeline channel), found with one GSI1 query, not per account.
ANNOUNCEMENTS = "announcements"
WEBSOCKET_LIFETIME = 2 * 3600  # API Gateway closes a WebSocket after two hours
SSE_LIFETIME = 15 * 60  # a Lambda response stream ends after fifteen minutes
MARGIN = 600
DEDUPE_SECONDS = 86400


def stream_key(name: str, param: str | None = None) -> str:
    """Where a stream's listeners are kept: `user`, `public:local`, `list#5`, `hashtag#cats`
    (a tag lower-cased: one stream whatever the case clients write it in)."""
    return keys.stream_key(name, param)


def stream_name(stream_key_: str) -> list[str]:
    """A stream key's name and parameter: `list#5` → ["list", "5"]."""
    return keys.stream_name(stream_key_)


def stream_of(stream_key_: str) -> list[str]:
    """The `stream` array events carry for an account stream's key (the `user` stream with
    notifications is the `user` stream)."""
    if stream_key_ == USER_WITH_NOTIFICATIONS:
        return ["user"]
    return stream_name(stream_key_)


def _table() -> str:
    return settings().connections_table


def is_sse(connection_id: str) -> bool:
    return connection_id.startswith(SSE_PREFIX)


def new_sse_id() -> str:
    return SSE_PREFIX + secrets.token_urlsafe(12)


def expiry(connection_id: str, now: int | None = None) -> int:
    life = SSE_LIFETIME if is_sse(connection_id) else WEBSOCKET_LIFETIME
    return (now or base.now_epoch()) + life + MARGIN


# --- connections ---------------------------------------------------------------------------------
def open_connection(connection_id: str, account_id: str, token_id: str, scopes: list[str]
                    ) -> dict[str, Any]:
    item = {**keys.connection(connection_id), "type": "connection",
            "connection_id": connection_id, "account_id": account_id, "token_id": token_id,
            "scopes": scopes, "connected_at": base.now_epoch(), "ttl": expiry(connection_id),
            **keys.connection_index_keys(account_id, connection_id)}
    base.put(item, table_name=_table())
    return base.record(item)


def get(connection_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.connection(connection_id), table_name=_table(),
                                consistent=True))


def of_account(account_id: str) -> list[dict[str, Any]]:
    return list(base.records(base.query(keys.connections_of(account_id), index="GSI1",
                                        table_name=_table())))


# --- subscriptions -------------------------------------------------------------------------------
def add_account_stream(connection_id: str, account_id: str, stream_key: str) -> None:
    """Subscribe to a stream of the connection's own account (a set on its presence item)."""
    base.update(keys.stream_presence(account_id), "ADD #s :c SET #ttl = :ttl",
                names={"#s": stream_key, "#ttl": "ttl"},
                vals={":c": {connection_id},
                      ":ttl": base.now_epoch() + WEBSOCKET_LIFETIME + MARGIN},
                table_name=_table())
    _remember(connection_id, stream_key)


def remove_account_stream(connection_id: str, account_id: str, stream_key: str) -> None:
    base.update(keys.stream_presence(account_id), "DELETE #s :c",
                names={"#s": stream_key}, vals={":c": {connection_id}}, table_name=_table())


def add_stream(connection_id: str, account_id: str, stream_key: str, stream: list[str]) -> None:
    """Subscribe to an instance-wide stream (public*, hashtag*): an item GSI1 finds by stream;
    `stream` is the array events carry, with the tag as the client wrote it."""
    base.put({**keys.stream_subscription(connection_id, stream_key), "type": "subscription",
              "connection_id": connection_id, "account_id": account_id, "stream": stream,
              "ttl": expiry(connection_id),
              **keys.stream_subscription_index_keys(stream_key, connection_id)},
             table_name=_table())
    _remember(connection_id, stream_key)


def remove_stream(connection_id: str, stream_key: str) -> None:
    base.delete(keys.stream_subscription(connection_id, stream_key), table_name=_table())


def _remember(connection_id: str, stream_key: str) -> None:
    """Note the stream on the connection (its `$disconnect` clears it); a connection that went
    meanwhile is not made again (what it left is cleared when a post finds it gone)."""
    try:
        base.update(keys.connection(connection_id), "ADD streams :s",
                    vals={":s": {stream_key}}, condition="attribute_exists(PK)",
                    table_name=_table())
    except dynamodb().exceptions.ConditionalCheckFailedException:
        pass


def forget(connection_id: str, stream_key: str) -> None:
    try:
        base.update(keys.connection(connection_id), "DELETE streams :s",
                    vals={":s": {stream_key}}, condition="attribute_exists(PK)",
                    table_name=_table())
    except dynamodb().exceptions.ConditionalCheckFailedException:
        pass


def listeners(stream_key: str) -> list[dict[str, Any]]:
    """The subscriptions to an instance-wide stream ({connection_id, account_id, stream})."""
    return list(base.records(base.query(keys.stream_listeners(stream_key), index="GSI1",
                                        table_name=_table())))


def account_listeners(account_ids: Iterable[str]) -> dict[str, dict[str, set[str]]]:
    """For each account with live connections: its stream keys → connection ids (one batched
    read of presence items, whatever the number of accounts)."""
    wanted = list(dict.fromkeys(account_ids))
    found = base.batch_get([keys.stream_presence(a) for a in wanted], table_name=_table())
    by_key = {keys.stream_presence(a)["PK"]: a for a in wanted}
    result: dict[str, dict[str, set[str]]] = {}
    for item in found:
        streams = {k: set(v) for k, v in item.items() if isinstance(v, set) and v}
        if streams:
            result[by_key[item["PK"]]] = streams
    return result


def remove(connection: dict[str, Any]) -> None:
    """Forget a connection: its account streams, its subscriptions, its mailbox, itself."""
    connection_id, account_id = connection["connection_id"], connection["account_id"]
    streams = set(connection.get("streams") or ())
    account_keys = [s for s in streams if not s.startswith(INSTANCE_WIDE)]
    if account_keys:
        names = {f"#s{i}": s for i, s in enumerate(account_keys)}
        base.update(keys.stream_presence(account_id),
                    "DELETE " + ", ".join(f"{n} :c" for n in names), names=names,
                    vals={":c": {connection_id}}, table_name=_table())
    doomed = [keys.connection(connection_id)]
    doomed += [keys.stream_subscription(connection_id, s) for s in streams
               if s.startswith(INSTANCE_WIDE)]
    if is_sse(connection_id):
        doomed += [keys.key(e["PK"], e["SK"]) for e in base.query(
            keys.connection_pk(connection_id), sk_prefix=keys.MAILBOX_PREFIX,
            table_name=_table(), projection="PK, SK")]
    base.delete_many(doomed, table_name=_table())


# --- delivery ------------------------------------------------------------------------------------
def _management() -> Any:
    return client("apigatewaymanagementapi", endpoint_url=settings().connections_endpoint)


def post(connection_id: str, data: str) -> bool:
    """Send one message; False when the connection is gone (API Gateway's 410)."""
    if is_sse(connection_id):
        if get(connection_id) is None:
            return False
        sequence = f"{time.time_ns():020d}{secrets.token_hex(2)}"
        base.put({**keys.mailbox_entry(connection_id, sequence), "type": "mailbox_entry",
                  "data": data, "ttl": expiry(connection_id)}, table_name=_table())
        return True
    api = _management()
    try:
        api.post_to_connection(ConnectionId=connection_id, Data=data.encode("utf-8"))
    except api.exceptions.GoneException:
        return False
    return True


def close(connection_id: str) -> None:
    """End a connection from the server's side (a revoked token)."""
    if is_sse(connection_id):
        connection = get(connection_id)
        if connection is not None:
            remove(connection)  # the SSE function ends the response when it is gone
        return
    api = _management()
    try:
        api.delete_connection(ConnectionId=connection_id)
    except api.exceptions.GoneException:
        pass


def take_mailbox(connection_id: str) -> list[str]:
    """An SSE connection's waiting events, oldest first, removed as they are taken."""
    entries = list(base.query(keys.connection_pk(connection_id), sk_prefix=keys.MAILBOX_PREFIX,
                              table_name=_table(), limit=100))
    if entries:
        base.delete_many([keys.key(e["PK"], e["SK"]) for e in entries], table_name=_table())
    return [e["data"] for e in entries]


def claim(scope: str, job_id: str) -> bool:
    """True the first time a delivery job is seen (redelivered jobs deliver nothing again)."""
    return dedupe.claim(scope, job_id, ttl=DEDUPE_SECONDS, table_name=_table())


def release(scope: str, job_id: str) -> None:
    dedupe.release(scope, job_id, table_name=_table())


def drop_presence(account_id: str, connection_id: str) -> None:
    """Take a connection out of every stream set of its account (its item already went)."""
    item = base.get(keys.stream_presence(account_id), table_name=_table())
    holding = [k for k, v in (item or {}).items() if isinstance(v, set) and connection_id in v]
    if holding:
        names = {f"#s{i}": k for i, k in enumerate(holding)}
        base.update(keys.stream_presence(account_id),
                    "DELETE " + ", ".join(f"{n} :c" for n in names), names=names,
                    vals={":c": {connection_id}}, table_name=_table())
