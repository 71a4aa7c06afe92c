"""Streaming rules without a socket: who may subscribe to what (Mastodon's channelNameToIds and
checkScopes), the streams a status is broadcast on, gone connections forgotten, a redelivered
job posting nothing twice, and which change produces which streaming job."""

from __future__ import annotations

import pytest
from stratus.api.streaming import streaming
from stratus.api.streaming.streaming import Listener, StreamError, subscription
from stratus.jobs import messages as jobs
from stratus.jobs.outbox import route
from stratus.repo import connections
from stratus.workers import stream as stream_worker

from tests.rig import make_app, make_user, record, user_token


def listener(*scopes: str, account: str = "1") -> Listener:
    return Listener(account, "9", scopes)


@pytest.mark.parametrize("name, scopes, allowed", [
    ("user", ("read",), True), ("user", ("read:statuses",), True),
    ("user", ("read:notifications",), False), ("user", ("write",), False),
    ("user:notification", ("read:notifications",), True),
    ("user:notification", ("read:statuses",), False),
    ("direct", ("read:statuses",), True), ("direct", ("write",), False),
    ("public", ("write",), True), ("public:remote:media", ("push",), True),
])
def test_scopes_decide_like_mastodon(name, scopes, allowed):
    if allowed:
        assert subscription(listener(*scopes), name, {}).stream == (name,)
    else:
        with pytest.raises(StreamError) as refused:
            subscription(listener(*scopes), name, {})
        assert (refused.value.status, refused.value.message) == (
            401, "Access token does not have the required scopes")


def test_the_user_stream_carries_notifications_only_for_tokens_that_may_read_them():
    assert subscription(listener("read"), "user", {}).extra_keys == (
        connections.USER_WITH_NOTIFICATIONS,)
    assert subscription(listener("read:statuses"), "user", {}).extra_keys == ()


def test_unknown_streams_and_missing_parameters():
    for name in ("nope", None, 3):
        with pytest.raises(StreamError, match="Unknown stream type"):
            subscription(listener("read"), name, {})
    with pytest.raises(StreamError, match="Missing tag name parameter"):
        subscription(listener("read"), "hashtag:local", {"tag": " "})
    with pytest.raises(StreamError, match="Missing list name parameter"):
        subscription(listener("read"), "list", {})
    tagged = subscription(listener("read"), "hashtag:local", {"tag": "Rust"})
    assert tagged.key == "hashtag:local#rust" and tagged.stream == ("hashtag:local", "Rust")


def test_sse_paths_name_streams_as_mastodon_does():
    assert streaming.sse_stream_name("public/local", {"only_media": "true"}) == \
        "public:local:media"
    assert streaming.sse_stream_name("user/notification", {}) == "user:notification"
    assert streaming.sse_stream_name("public", {"only_media": "0"}) == "public"
    assert streaming.sse_stream_name("timelines", {}) is None


def test_public_streams_follow_fan_out_on_writes_broadcast_rules():
    job = jobs.StreamStatus(event="update", status_id="5", account_id="1", visibility="public",
                            local=True, has_media=True, tags=["Cats"])
    assert stream_worker.public_keys(job) == ["hashtag#cats", "hashtag:local#cats", "public",
                                              "public:local", "public:media",
                                              "public:local:media"]
    reply = jobs.StreamStatus(event="update", status_id="5", account_id="1",
                              visibility="public", tags=["cats"], in_reply_to_id="4",
                              in_reply_to_account_id="2", local=False)
    assert stream_worker.public_keys(reply) == ["hashtag#cats"]  # replies to others: tags only
    for hidden in ({"visibility": "unlisted"}, {"reblog": True}):
        assert stream_worker.public_keys(jobs.StreamStatus(
            event="update", status_id="5", account_id="1",
            **{"visibility": "public", **hidden})) == []


def streamed(rec):
    return [job for queue, job in route(rec) if queue == "stream"]


def test_the_outbox_streams_what_mastodon_streams():
    status = {"type": "status", "id": "10", "account_id": "1", "visibility": "public"}
    assert [j.event for j in streamed(record("INSERT", status))] == ["update"]
    assert [j.event for j in streamed(record("REMOVE", old=status))] == ["delete"]
    assert streamed(record("INSERT", {**status, "visibility": "private"})) == []
    edited = {**status, "visibility": "private", "edited_at": "2026-01-01T00:00:00.000Z"}
    assert [j.event for j in streamed(record("MODIFY", edited, {**edited, "edited_at": None}))
            ] == ["status.update"]
    note = {"type": "notification", "id": "8", "account_id": "1", "notification_type": "mention",
            "from_account_id": "2"}
    assert streamed(record("INSERT", note)) == [jobs.StreamNotification(
        event_id="e1", account_id="1", notification_id="8")]
    assert streamed(record("INSERT", {**note, "filtered": True})) == []  # waits in a request
    rev = {"type": "filters_rev", "account_id": "1", "rev": 2}
    assert streamed(record("MODIFY", rev, {**rev, "rev": 1})) == [
        jobs.StreamFiltersChanged(event_id="e1", account_id="1")]
    token = {"type": "token", "id": "7", "account_id": "1"}
    assert streamed(record("REMOVE", old=token)) == [
        jobs.CloseConnections(event_id="e1", account_id="1", token_id="7")]
    assert streamed(record("REMOVE", old={"type": "token", "id": "7"})) == []  # app token


@pytest.fixture
def alice(client):
    account = make_user("alice")
    return account, user_token(make_app(client), account)


def test_gone_connections_are_forgotten(runtime, alice):
    account, _ = alice
    listener_ = Listener(account, "9", ("read",))
    # A connection API Gateway no longer has (its $disconnect was lost): 410 on post.
    connections.open_connection("gone=", account, "9", ["read"])
    streaming.subscribe("gone=", listener_, subscription(listener_, "user", {}))
    connections.add_account_stream("lost=", account, "user")  # item already gone
    assert set(connections.account_listeners([account])[account]["user"]) == {"gone=", "lost="}
    sent = stream_worker.handle(jobs.StreamFiltersChanged(event_id="x", account_id=account))
    assert sent == 2
    assert connections.get("gone=") is None
    assert connections.account_listeners([account]) == {}


def test_a_redelivered_job_posts_nothing_twice(runtime, alice, monkeypatch):
    account, _ = alice
    listener_ = Listener(account, "9", ("read",))
    connections.open_connection("sse:one", account, "9", ["read"])  # mailbox delivery
    streaming.subscribe("sse:one", listener_, subscription(listener_, "user", {}))
    job = jobs.StreamFiltersChanged(event_id="x", account_id=account)
    assert stream_worker.handle(job) == 1
    assert stream_worker.handle(jobs.decode(job.to_dict())) == 0
    assert streaming.sse_pending("sse:one") == ['{"stream":["user"],"event":"filters_changed"}']

    def broken(*_):
        raise RuntimeError("throttled")

    again = jobs.StreamFiltersChanged(event_id="y", account_id=account)
    monkeypatch.setattr(connections, "post", broken)
    with pytest.raises(RuntimeError):
        stream_worker.handle(again)
    monkeypatch.undo()
    assert stream_worker.handle(again) == 1  # the failed attempt gave its claim back


def test_revocation_closes_only_that_tokens_connections(runtime, alice):
    account, _ = alice
    connections.open_connection("sse:a", account, "1", ["read"])
    connections.open_connection("sse:b", account, "2", ["read"])
    assert stream_worker.handle(jobs.CloseConnections(event_id="r", account_id=account,
                                                      token_id="1")) == 1
    assert connections.get("sse:a") is None and connections.get("sse:b") is not None
    assert streaming.sse_pending("sse:a") is None  # the SSE response ends


def test_an_event_for_many_recipients_reads_what_they_share_once(runtime):
    """Rendering one status for each recipient of a stream event: the author's and mentioned
    accounts, media and emoji are read once for all of them; only each recipient's own edges
    and filters are read per recipient."""
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.read import status_views
    from stratus.repo import statuses as statuses_repo
    from stratus.repo.client import dynamodb

    author = make_user("author")
    readers = [make_user(f"reader{i}") for i in range(4)]
    posted = posting.create(identity.viewer_for_account(author),
                             {"status": "hello @reader0 @reader1"})
    item = statuses_repo.get(posted)
    calls: list[str] = []

    def count(model=None, **_):
        calls.append(model.name)

    client = dynamodb()
    client.meta.events.register("before-parameter-build.dynamodb", count)
    try:
        alone = []
        for reader in readers:
            calls.clear()
            [entity] = status_views.render([item], reader)
            alone.append(len(calls))
        shared: status_views.Shared = {}
        together = []
        for reader in readers:
            calls.clear()
            [entity] = status_views.render([item], reader, shared=shared)
            assert entity["id"] == posted and len(entity["mentions"]) == 2
            together.append(len(calls))
    finally:
        client.meta.events.unregister("before-parameter-build.dynamodb", count)
    assert together[0] == alone[0]  # the first recipient reads everything
    assert all(n == together[1] < alone[0] for n in together[1:])  # the rest: their own only
