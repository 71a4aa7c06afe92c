"""A remote thread's replies, fetched when a user reads it (api/statuses/context.py,
federation/reply_fetch.py): `Mastodon-Async-Refresh` while the walk runs, the replies we lacked
in `/context` after it, bounded and on each collection's own host."""

from __future__ import annotations

import base64
import json

import pytest

from tests.federation import peers

AP = peers.AP


@pytest.fixture
def other_site():
    from tests.rig.sites import Site

    served = Site()
    yield served
    served.close()


def collection(site, path, items, *, first_inline=True):
    """A replies collection of `path`'s status: its first page inline (or by URL)."""
    uri = site.url(f"{path}/replies")
    page = {"type": "CollectionPage", "partOf": uri, "items": items}
    if first_inline:
        return {"id": uri, "type": "Collection", "first": page}
    site.serve(f"{path}/replies?page=true", json.dumps(
        {"@context": "https://www.w3.org/ns/activitystreams", "id": f"{uri}?page=true", **page}),
        AP)
    return {"id": uri, "type": "Collection", "first": f"{uri}?page=true"}


def serve_thread(site, other_site):
    """bob's root (1) with replies: bob's 2 (which has carol's reply 4), carol's 3, and dave's
    reply on another server; the root's collection by URL, its page served."""
    peers.serve_actor(site, "bob")
    peers.serve_actor(site, "carol")
    peers.serve_actor(other_site, "dave")
    root_uri = site.url("/users/bob/statuses/1")
    two, three = site.url("/users/bob/statuses/2"), site.url("/users/carol/statuses/3")
    four = site.url("/users/carol/statuses/4")
    dave = other_site.url("/users/dave/statuses/5")
    peers.serve_note(site, 1, "bob", replies=collection(
        site, "/users/bob/statuses/1", [two, three, dave], first_inline=False))
    peers.serve_note(site, 2, "bob", inReplyTo=root_uri,
                     replies=collection(site, "/users/bob/statuses/2", [four]))
    peers.serve_note(site, 3, "carol", inReplyTo=root_uri)
    peers.serve_note(site, 4, "carol", inReplyTo=two)
    peers.serve_note(other_site, 5, "dave", inReplyTo=root_uri)
    return root_uri


def context(client, headers, status_id):
    return client.get(f"/api/v1/statuses/{status_id}/context", headers=headers)


def test_reading_a_remote_thread_fetches_the_replies_we_lack(client, people, drain, site,
                                                            other_site):
    from stratus.federation import remote_statuses

    _, auth = people
    root_id = remote_statuses.resolve(serve_thread(site, other_site))
    drain()
    first = context(client, auth["alice"], root_id)
    assert first.status_code == 200 and first.json()["descendants"] == []
    header = first.headers["mastodon-async-refresh"]
    refresh = base64.urlsafe_b64encode(f"context:{root_id}:refresh".encode()).decode().rstrip("=")
    assert header == f'id="{refresh}", retry=3, result_count=0'
    running = client.get(f"/api/v1_alpha/async_refreshes/{refresh}", headers=auth["alice"])
    assert running.json() == {"async_refresh": {"id": refresh, "status": "running",
                                                "result_count": 0}}
    drain()
    done = client.get(f"/api/v1_alpha/async_refreshes/{refresh}", headers=auth["alice"])
    assert done.json() == {"async_refresh": {"id": refresh, "status": "finished",
                                             "result_count": 4}}
    after = context(client, auth["alice"], root_id)
    assert "mastodon-async-refresh" not in after.headers  # done, and cooling down
    assert sorted(s["uri"] for s in after.json()["descendants"]) == sorted(
        [site.url("/users/bob/statuses/2"), site.url("/users/carol/statuses/3"),
         site.url("/users/carol/statuses/4"), other_site.url("/users/dave/statuses/5")])


def test_anonymous_readers_and_fresh_or_local_statuses_start_nothing(client, people, drain,
                                                                    site, other_site):
    from stratus.federation import remote_statuses
    from tests.rig import post

    _, auth = people
    root_id = remote_statuses.resolve(serve_thread(site, other_site))
    assert "mastodon-async-refresh" not in context(client, {}, root_id).headers
    mine = post(client, auth["alice"], status="local", visibility="public")
    assert "mastodon-async-refresh" not in context(client, auth["alice"], mine["id"]).headers
    peers.serve_note(site, 9, "bob", published="2099-01-01T00:00:00Z")  # clamped to now
    fresh = remote_statuses.resolve(site.url("/users/bob/statuses/9"))
    assert "mastodon-async-refresh" not in context(client, auth["alice"], fresh).headers
    drain()


def test_a_collection_on_another_host_is_not_read(client, people, drain, site, other_site):
    """A peer cannot make us crawl a third server: a replies collection (or page) not on its
    status's host is never fetched (Mastodon's non_matching_uri_hosts?)."""
    from stratus.federation import remote_statuses

    _, auth = people
    peers.serve_actor(site, "bob")
    other_site.serve("/victim/replies", json.dumps({
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": other_site.url("/victim/replies"), "type": "Collection", "items": []}), AP)
    peers.serve_note(site, 1, "bob", replies=other_site.url("/victim/replies"))
    root_id = remote_statuses.resolve(site.url("/users/bob/statuses/1"))
    context(client, auth["alice"], root_id)
    drain()
    assert other_site.hits("/victim/replies") == 0


def test_a_refresh_of_a_status_the_reader_may_not_see_is_not_found(client, people, drain):
    _, auth = people
    for refresh in ("nonsense", base64.urlsafe_b64encode(b"context:1:refresh").decode(),
                    base64.urlsafe_b64encode(b"other:1:thing").decode()):
        answer = client.get(f"/api/v1_alpha/async_refreshes/{refresh}", headers=auth["alice"])
        assert (answer.status_code, answer.json()) == (404, {"error": "Record not found"})
    assert client.get("/api/v1_alpha/async_refreshes/x").status_code == 401


def test_a_walk_out_of_budget_goes_on_in_a_new_job(runtime, site, other_site, monkeypatch):
    """A job with room for one step only: the walk still ends, a step a job, each job
    handing the rest on, and no reply is lost to a step cut short (an author not fetched)."""
    from datetime import timedelta

    from stratus.core import outbound
    from stratus.federation import remote_statuses, reply_fetch
    from stratus.jobs import messages
    from stratus.repo import async_refreshes, queues

    root_id = remote_statuses.resolve(serve_thread(site, other_site))
    sent = []
    monkeypatch.setattr(queues, "send", lambda queue, jobs_, **_: sent.extend(
        (queue, j) for j in jobs_))
    name = f"context:{root_id}:refresh"
    async_refreshes.start(name, subject={"replies_of": root_id}, cooldown=timedelta(minutes=15))
    job, parts = messages.FetchReplies(refresh=name, status_id=root_id), 0
    while job is not None:
        with outbound.budget(60, requests=reply_fetch.STEP_REQUESTS):
            reply_fetch.run(job)
        parts += 1
        queue, body = sent.pop() if sent else (None, None)
        assert queue in (None, "inbox")
        job = messages.decode(body) if body else None
    assert parts >= 6  # the root, its page and the four replies: a job each at least
    found = async_refreshes.get(name)
    assert (found["status"], found["result_count"]) == ("finished", 4)
