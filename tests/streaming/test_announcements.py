"""The `announcement`, `announcement.reaction` and `announcement.delete` events: which change
makes which job (the outbox), every `user` stream gets them, once, also when redelivered."""

from __future__ import annotations

import json

import pytest
from stratus.api.streaming import streaming
from stratus.api.streaming.streaming import Listener, subscription
from stratus.jobs import messages as jobs
from stratus.jobs.outbox import route
from stratus.repo import connections
from stratus.workers import stream as stream_worker

from tests.rig import auth, make_app, make_user, record, user_token


def streamed(rec):
    return [job for queue, job in route(rec) if queue == "stream"]


def test_the_outbox_streams_announcements_as_mastodon_does():
    draft = {"type": "announcement", "id": "5", "text": "x", "published": False,
             "updated_at": "a"}
    live = {**draft, "published": True, "published_at": "b", "updated_at": "b"}
    assert streamed(record("INSERT", draft)) == []
    assert streamed(record("INSERT", live)) == [jobs.StreamAnnouncement(
        event_id="e1", event="announcement", announcement_id="5")]
    assert [j.event for j in streamed(record("MODIFY", live, draft))] == ["announcement"]
    edited = {**live, "text": "y", "updated_at": "c"}
    assert [j.event for j in streamed(record("MODIFY", edited, live))] == ["announcement"]
    assert streamed(record("MODIFY", live, live)) == []
    assert [j.event for j in streamed(record("MODIFY", draft, live))] == ["announcement.delete"]
    assert [j.event for j in streamed(record("REMOVE", old=live))] == ["announcement.delete"]
    assert streamed(record("REMOVE", old=draft)) == []
    counter = {"type": "announcement_reactions", "announcement_id": "5", "name": "👍",
               "count": 3}
    assert streamed(record("MODIFY", counter, {**counter, "count": 2})) == [
        jobs.StreamAnnouncementReaction(event_id="e1", announcement_id="5", reaction="👍",
                                        count=3)]
    assert streamed(record("MODIFY", counter, counter)) == []
    assert streamed(record("REMOVE", old=counter)) == []


@pytest.fixture
def listening(client):
    """ann and ben on their user streams (SSE mailboxes), cat on the public stream only."""
    found = {}
    for name, stream in (("ann", "user"), ("ben", "user"), ("cat", "public")):
        account = make_user(name)
        listener = Listener(account, "9", ("read",))
        connections.open_connection(f"sse:{name}", account, "9", ["read"])
        streaming.subscribe(f"sse:{name}", listener, subscription(listener, stream, {}))
        found[name] = account
    return found


def events(name):
    return [json.loads(m) for m in streaming.sse_pending(f"sse:{name}")]


def test_every_user_stream_gets_each_event_once(client, listening, drain):
    app = make_app(client, scopes="read write admin:read admin:write")
    staff = auth(user_token(app, make_user("boss", role="Owner"),
                            scopes=("admin:read", "admin:write")))
    created = client.post("/api/v1/admin/announcements", headers=staff,
                          data={"text": "Maintenance tonight"}).json()
    drain()
    for name in ("ann", "ben"):
        (event,) = events(name)
        assert event["stream"] == ["user"] and event["event"] == "announcement"
        payload = json.loads(event["payload"])
        assert payload["id"] == created["id"] and "read" not in payload
        assert payload["content"] == "<p>Maintenance tonight</p>"
    assert events("cat") == []

    token = auth(user_token(app, listening["ann"], scopes=("write",)))
    client.put(f"/api/v1/announcements/{created['id']}/reactions/👍", headers=token)
    drain()
    for name in ("ann", "ben"):
        (event,) = events(name)
        assert event["event"] == "announcement.reaction"
        assert json.loads(event["payload"]) == {"name": "👍", "count": 1,
                                                "announcement_id": created["id"]}

    client.put(f"/api/v1/admin/announcements/{created['id']}", headers=staff,
               data={"published": "false"})
    drain()
    for name in ("ann", "ben"):
        assert events(name) == [{"stream": ["user"], "event": "announcement.delete",
                                 "payload": created["id"]}]
    assert events("cat") == []


def test_a_redelivered_announcement_job_posts_nothing_twice(client, listening):
    job = jobs.StreamAnnouncement(event_id="x", event="announcement.delete",
                                  announcement_id="42")
    assert stream_worker.handle(job) == 2
    assert stream_worker.handle(jobs.decode(job.to_dict())) == 0
    assert len(events("ann")) == 1 and len(events("ben")) == 1
    reaction = jobs.StreamAnnouncementReaction(event_id="y", announcement_id="42",
                                               reaction="🎉", count=2)
    assert stream_worker.handle(reaction) == 2
    assert stream_worker.handle(jobs.decode(reaction.to_dict())) == 0


def test_unsubscribing_and_disconnecting_stop_announcements(client, listening):
    listener = Listener(listening["ann"], "9", ("read",))
    streaming.unsubscribe("sse:ann", listener, subscription(listener, "user", {}))
    streaming.disconnect("sse:ben")
    assert connections.listeners(connections.ANNOUNCEMENTS) == []
