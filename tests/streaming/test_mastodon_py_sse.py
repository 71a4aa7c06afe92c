"""Mastodon.py streams over Server-Sent Events by default: it finds the streaming host in the
instance entity, checks `/api/v1/streaming/health`, and reads `event:`/`data:` lines from
`/api/v1/streaming/user` and `/public`. It also has a WebSocket transport (one socket,
`subscribe` messages). The local stack serves both on the REST port."""

from __future__ import annotations

import threading

import httpx
from mastodon import StreamListener

from tests.rig import mastodon_py_users

WAIT = 15


class Recorder(StreamListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []
        self.changed = threading.Event()

    def _note(self, kind: str, value: object) -> None:
        self.events.append((kind, value))
        self.changed.set()

    def on_update(self, status):
        self._note("update", status)

    def on_notification(self, notification):
        self._note("notification", notification)

    def on_delete(self, status_id):
        self._note("delete", status_id)

    def wait_for(self, count: int) -> list[tuple[str, object]]:
        while len(self.events) < count:
            self.changed.clear()
            assert self.changed.wait(WAIT), f"only {self.events} arrived"
        return self.events


def test_mastodon_py_streams_user_and_public_over_sse(live_server):
    base = live_server.base_url
    reader, poster = mastodon_py_users(base, "reader", "poster", app="streaming test")
    assert reader.stream_healthy()
    assert httpx.get(base + "/api/v1/streaming/health").text == "OK"
    reader.account_follow(poster.me().id)
    reader.timeline_home()
    live_server.pipeline.drain()

    user, public = Recorder(), Recorder()
    handles = [reader.stream_user(user, run_async=True),
               reader.stream_public(public, run_async=True)]
    try:
        for handle in handles:  # both responses are open before anything is posted
            while not handle.is_receiving():
                threading.Event().wait(0.05)
        threading.Event().wait(0.5)
        status = poster.status_post("over the wire")
        live_server.pipeline.drain()
        mine = reader.status_post("my own")
        poster.status_favourite(mine)
        live_server.pipeline.drain()

        kinds = [(kind, getattr(value, "id", value)) for kind, value in user.wait_for(3)]
        assert ("update", status.id) in kinds and ("update", mine.id) in kinds
        notification = next(v for k, v in user.events if k == "notification")
        assert notification.type == "favourite" and notification.status.id == mine.id
        assert notification.account.acct == "poster"

        seen = {value.id for kind, value in public.wait_for(2) if kind == "update"}
        assert seen == {status.id, mine.id}

        # filters_changed read raw: its exact wire form (Mastodon's streaming server writes the
        # absent payload as `undefined`).
        raw = httpx.Client(base_url=base, timeout=WAIT)
        with raw.stream("GET", "/api/v1/streaming/user",
                        headers={"Authorization": f"Bearer {reader.access_token}"}) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            assert next(lines) == ":)"
            reader.create_filter_v2("pets", ["home"], "warn",
                                    keywords_attributes=[{"keyword": "cat"}])
            live_server.pipeline.drain()
            assert [next(lines), next(lines)] == ["event: filters_changed", "data: undefined"]
        raw.close()
    finally:
        for handle in handles:
            handle.close()


class WebSocketRecorder(Recorder):
    def on_filters_changed(self):
        self._note("filters_changed", None)


def test_mastodon_py_streams_over_a_websocket(live_server):
    """Mastodon.py's WebSocket transport: one connection (token in the Authorization header),
    `subscribe` messages for user and public, update, notification and filters_changed."""
    base = live_server.base_url
    reader, poster = mastodon_py_users(base, "wsreader", "wsposter", app="websocket test")
    reader.account_follow(poster.me().id)
    reader.timeline_home()
    live_server.pipeline.drain()

    user, public = WebSocketRecorder(), WebSocketRecorder()
    handle = reader.stream_open_websocket()
    try:
        reader.stream_user(user, websocket_handle=handle)
        reader.stream_public(public, websocket_handle=handle)
        # The subscriptions are messages on the open socket: wait until the server has them
        # (an own post comes back on both), as a client would see its first event.
        first = reader.status_post("am I subscribed?")
        live_server.pipeline.drain()
        assert ("update", first.id) in [(k, v.id) for k, v in user.wait_for(1)]
        assert [(k, v.id) for k, v in public.wait_for(1)] == [("update", first.id)]

        status = poster.status_post("over the socket")
        poster.status_favourite(first)
        live_server.pipeline.drain()
        reader.create_filter_v2("pets", ["home"], "warn", keywords_attributes=[{"keyword": "cat"}])
        live_server.pipeline.drain()

        events = user.wait_for(4)
        kinds = [(k, getattr(v, "id", v)) for k, v in events]
        assert ("update", status.id) in kinds and kinds[-1] == ("filters_changed", None)
        notification = next(v for k, v in events if k == "notification")
        assert notification.type == "favourite" and notification.status.id == first.id
        assert [(k, v.id) for k, v in public.wait_for(2)][1] == ("update", status.id)
    finally:
        handle.close()
