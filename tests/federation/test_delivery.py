"""Outbound delivery (federation/delivery.py): a local post reaches each remote server once,
through its shared inbox, signed by its author, as the exact document our own endpoint serves;
direct statuses reach only those mentioned; failed deliveries are retried on Mastodon's curve
(the test plays SQS's clock), unsalvageable ones dropped; a host's breaker opens after ten
failures; a redelivered fan-out job sends nothing twice."""

from __future__ import annotations

import json

import pytest

from tests import rig
from tests.rig import remote, verify_signature


@pytest.fixture
def sqs_clock(monkeypatch):
    """SQS's clock, played: a delayed message is sent at once and time jumps by its delay
    (what the delivery worker reads as now), so retries run without waiting. `waits` records
    each delay asked for."""
    from stratus.federation import delivery
    from stratus.repo import queues

    now = [1_900_000_000.0]
    waits: list[int] = []
    real = queues.send

    def send(url, messages, *, delays=None):
        if delays:
            waits.extend(delays)
            now[0] += max(delays)
        real(url, messages)

    monkeypatch.setattr(queues, "send", send)
    monkeypatch.setattr(delivery, "clock_now", lambda: now[0])
    return waits


def _post(client, headers, text: str, visibility: str = "public") -> dict:
    response = client.post("/api/v1/statuses", headers=headers,
                           data={"status": text, "visibility": visibility})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_post_reaches_each_server_once_signed_as_its_author(client, drain, alice, site):
    from stratus.federation import activitypub, actor_keys

    alice_id, headers = alice
    followers = [remote(site, "a.example", "bob"), remote(site, "a.example", "carol"),
                 remote(site, "b.example", "dave", shared=False)]
    for follower in followers:
        rig.follow_edge(follower, alice_id)
    drain()
    status = _post(client, headers, "Hello fediverse")
    drain()
    assert sorted(p.path for p in site.posts) == ["/a.example/inbox",
                                                  "/b.example/users/dave/inbox"]
    served = activitypub.status_activity("alice", status["id"])
    for post in site.posts:
        assert post.json() == served  # the exact document our own endpoint serves
        assert post.headers["content-type"].startswith("application/activity+json")
        signed = verify_signature(post.headers, "post", post.path, actor_keys.public_key_pem(alice_id))
        assert signed[0].endswith("/users/alice#main-key")
        assert "digest" in signed
    body = site.posts[0].json()
    assert body["type"] == "Create" and body["object"]["id"] == status["uri"]
    assert body["to"] == ["https://www.w3.org/ns/activitystreams#Public"]


def test_a_direct_status_goes_only_to_those_mentioned(client, drain, alice, site):
    alice_id, headers = alice
    remote(site, "a.example", "bob")
    rig.follow_edge(remote(site, "c.example", "eve"), alice_id)
    drain()
    status = _post(client, headers, "@bob@a.example a secret", "direct")
    assert [m["acct"] for m in status["mentions"]] == ["bob@a.example"]
    assert 'href="https://a.example/@bob"' in status["content"]
    drain()
    assert [p.path for p in site.posts] == ["/a.example/inbox"]  # followers hear nothing
    note = site.posts[0].json()["object"]
    assert note["to"] == ["https://a.example/users/bob"] and note["cc"] == []
    assert note["tag"] == [{"type": "Mention", "href": "https://a.example/users/bob",
                            "name": "@bob@a.example"}]


def test_an_unknown_remote_address_in_a_post_is_resolved_by_webfinger(
        client, drain, alice, site):
    """Mastodon's ProcessMentionsService: `@user@host` not known yet is looked up (WebFinger,
    then the actor), stored, mentioned and delivered to; an address that does not resolve
    stays text."""
    from tests.federation import peers

    alice_id, headers = alice
    actor = peers.serve_actor(site, "zed")
    peers.serve_webfinger(site, "zed")
    host = peers.host(site)
    status = _post(client, headers, f"hi @zed@{host} and @ghost@{host}", "public")
    assert [m["acct"] for m in status["mentions"]] == [f"zed@{host}"]
    assert status["mentions"][0]["url"] == actor["url"]
    assert f"@ghost@{host}" in status["content"] and "ghost</a>" not in status["content"]
    drain()
    inboxes = [p.path for p in site.posts]
    assert inboxes == ["/inbox"]  # zed's server's shared inbox, once
    note = site.posts[0].json()["object"]
    assert actor["id"] in note["cc"]
    assert {"type": "Mention", "href": actor["id"], "name": f"@zed@{host}"} in note["tag"]
    # zed's server was told; no notification is kept here for an account with no user here
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import notifications as notifications_repo

    zed_id = accounts_repo.id_by_handle("zed", host)
    assert notifications_repo.newest_first(zed_id, 10) == []


def test_a_deleted_status_is_a_tombstone_for_the_same_servers(client, drain, alice, site):
    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    drain()
    status = _post(client, headers, "Soon gone")
    drain()
    assert client.delete(f"/api/v1/statuses/{status['id']}", headers=headers).status_code == 200
    drain()
    deleted = site.posts[-1].json()
    assert deleted["type"] == "Delete" and deleted["id"] == f"{status['uri']}#delete"
    assert deleted["object"] == {"id": status["uri"], "type": "Tombstone",
                                 "atomUri": status["uri"]}


def test_a_suspended_domain_hears_nothing(client, drain, alice, site):
    from stratus.core import clock, ids
    from stratus.repo import base
    from stratus.repo import domain_blocks as blocks_repo

    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    rig.follow_edge(remote(site, "bad.example", "mallory"), alice_id)
    drain()
    base.transact([blocks_repo.put_block_op({"id": ids.new_id(), "domain": "bad.example",
                                             "severity": "noop",
                                             "created_at": clock.iso(clock.now())},
                                            replace=True)])
    base.transact([blocks_repo.put_block_op({"id": ids.new_id(), "domain": "bad.example",
                                             "severity": "suspend",
                                             "created_at": clock.iso(clock.now())},
                                            replace=True)])
    _post(client, headers, "Not for them")
    drain()
    assert [p.path for p in site.posts] == ["/a.example/inbox"]


def test_followers_are_read_a_page_at_a_time_and_each_server_gets_it_once(
        client, drain, alice, site, monkeypatch):
    from stratus.federation import delivery

    monkeypatch.setattr(delivery, "FOLLOWERS_PAGE", 2)
    alice_id, headers = alice
    for i in range(7):
        rig.follow_edge(remote(site, f"{'ab'[i % 2]}.example", f"user{i}"), alice_id)
    drain()
    _post(client, headers, "Paged")
    drain()
    assert sorted(p.path for p in site.posts) == ["/a.example/inbox", "/b.example/inbox"]


def test_a_redelivered_fan_out_job_sends_nothing_twice(client, drain, alice, site):
    from stratus.federation import delivery
    from stratus.jobs import messages as jobs

    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    drain()
    status = _post(client, headers, "Once")
    drain()
    site.posts.clear()
    job = jobs.Federate(event_id="redelivered-1", kind="create", account_id=alice_id,
                        item={"id": status["id"], "account_id": alice_id})
    assert delivery.fan_out(job) == 1
    assert delivery.fan_out(job) == 0  # SQS delivered it again
    drain()
    assert [p.path for p in site.posts] == ["/a.example/inbox"]


def test_a_failing_inbox_is_retried_on_the_curve_until_it_answers(
        client, drain, alice, site, sqs_clock):
    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    drain()
    site.answers["/a.example/inbox"] = [503, 500, 408]
    _post(client, headers, "Persistent")
    drain()
    assert [p.status for p in site.posts] == [503, 500, 408, 202]  # one success, four attempts
    assert len({p.json()["id"] for p in site.posts}) == 1
    # Waits of n⁴ + 15 s + jitter after attempt n (jitter: 0 to 9 times n + 1).
    for n, wait in enumerate(sqs_clock, start=1):
        assert n ** 4 + 15 <= wait <= n ** 4 + 15 + 9 * (n + 1)
    assert len(sqs_clock) == 3


@pytest.mark.parametrize("status", [400, 403, 404, 410, 422, 501])
def test_an_unsalvageable_answer_drops_the_delivery(
        client, drain, alice, sqs_clock, status, site):
    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    drain()
    site.answers["/a.example/inbox"] = [status]
    _post(client, headers, "Unwanted")
    drain()
    assert [p.status for p in site.posts] == [status]
    assert sqs_clock == []


def test_sixteen_attempts_then_the_delivery_is_abandoned(
        client, drain, alice, sqs_clock, site):
    from stratus.federation import delivery

    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    drain()
    site.answers["/a.example/inbox"] = [500] * 20
    _post(client, headers, "Into the void")
    drain()
    assert len(site.posts) == delivery.ATTEMPTS == 16
    # (Each wait outlasts the breaker's minute: every attempt was a request.)
    assert len(sqs_clock) == 15 and sum(sqs_clock) > 2 * 86400  # over two days in all


def test_the_breaker_opens_after_ten_failures_and_closes_after_a_minute(runtime, site):
    from stratus.federation import delivery
    from stratus.jobs import messages as jobs

    site.answers["/x/inbox"] = [500] * 10
    job = jobs.DeliverActivity(inbox=site.url("/x/inbox"), body=json.dumps({"id": "a"}))
    outcomes = [delivery.attempt(job, now=1000.0 + i) for i in range(12)]
    assert outcomes == ["retry"] * 10 + ["waiting"] * 2
    assert len(site.posts) == 10  # no request while open
    assert delivery.attempt(job, now=1009.0 + delivery.BREAKER_OPEN + 1) == "delivered"
    assert len(site.posts) == 11
    # A success closes it: the next failure counts from one again.
    site.answers["/x/inbox"] = [500]
    assert delivery.attempt(job, now=2000.0) == "retry"
    assert delivery.attempt(job, now=2001.0) == "delivered"


def test_a_profile_change_or_a_new_key_is_an_update_of_the_actor(client, drain, alice, site):
    from stratus.federation import activitypub, actor_keys

    alice_id, headers = alice
    rig.follow_edge(remote(site, "a.example", "bob"), alice_id)
    rig.follow_edge(remote(site, "a.example", "carol"), alice_id)
    drain()
    assert client.patch("/api/v1/accounts/update_credentials", headers=headers,
                        data={"display_name": "Alice Liddell"}).status_code == 200
    drain()
    [post] = site.posts
    assert post.path == "/a.example/inbox"
    update = post.json()
    actor = activitypub.actor("alice")
    assert update["type"] == "Update" and update["actor"] == actor["id"]
    assert update["object"] == {k: v for k, v in actor.items() if k != "@context"}
    assert update["object"]["name"] == "Alice Liddell"
    assert "https://w3id.org/security/v1" in update["@context"]

    actor_keys.rotate(alice_id)
    drain()
    rotated = site.posts[-1].json()
    assert rotated["type"] == "Update" and len(site.posts) == 2
    assert rotated["object"]["publicKey"]["publicKeyPem"] == actor_keys.public_key_pem(alice_id)
    # Signed with the new key.
    verify_signature(site.posts[-1].headers, "post", "/a.example/inbox",
            actor_keys.public_key_pem(alice_id))


def test_likes_boosts_and_votes_on_a_remote_status_reach_its_author(client, drain, site):
    from stratus.repo import base, keys

    app = rig.make_app(client)
    alice_id, carol_id = rig.make_user("alice"), rig.make_user("carol")
    alice = rig.auth(rig.user_token(app, alice_id, scopes=("read", "write", "follow")))
    carol = rig.auth(rig.user_token(app, carol_id, scopes=("read", "write", "follow")))
    bob = remote(site, "a.example", "bob")
    response = client.post("/api/v1/statuses", headers=alice, json={
        "status": "Which?", "poll": {"options": ["Tea", "Coffee"], "expires_in": 3600}})
    assert response.status_code == 200, response.text
    status = response.json()
    drain()
    # Stand-in for a status the remote-statuses work stores: this one is now bob's.
    uri = "https://a.example/users/bob/statuses/1"
    base.update(keys.status(status["id"]), "SET account_id = :b, uri = :u",
                vals={":b": bob, ":u": uri})
    site.posts.clear()

    assert client.post(f"/api/v1/statuses/{status['id']}/favourite",
                       headers=carol).status_code == 200
    drain()
    [like] = site.posts
    assert like.path == "/a.example/users/bob/inbox"  # the author's own inbox
    assert like.json()["type"] == "Like" and like.json()["object"] == uri
    assert client.post(f"/api/v1/statuses/{status['id']}/unfavourite",
                       headers=carol).status_code == 200
    drain()
    assert site.posts[-1].json()["type"] == "Undo"
    assert site.posts[-1].json()["object"]["id"] == like.json()["id"]

    assert client.post(f"/api/v1/polls/{status['poll']['id']}/votes", headers=carol,
                       json={"choices": [1]}).status_code == 200
    drain()
    vote = site.posts[-1].json()
    assert vote["type"] == "Create" and vote["object"]["name"] == "Coffee"
    assert vote["object"]["inReplyTo"] == uri and vote["to"] == ["https://a.example/users/bob"]

    assert client.post(f"/api/v1/statuses/{status['id']}/reblog",
                       headers=carol).status_code == 200
    drain()
    boost = site.posts[-1]
    assert boost.path == "/a.example/inbox" and boost.json()["type"] == "Announce"
    assert boost.json()["object"] == uri
    assert "https://a.example/users/bob" in boost.json()["cc"]


def test_an_account_peers_cannot_see_sends_no_update(client, drain, site):
    from stratus.federation import delivery
    from stratus.jobs import messages as jobs

    pending = rig.make_user("pending", confirmed=False)
    rig.follow_edge(remote(site, "a.example", "bob"), pending)
    drain()
    job = jobs.Federate(event_id="u-1", kind="update_actor", account_id=pending,
                        item={"id": pending})
    assert delivery.fan_out(job) == 0  # no actor document to send: done, not failed
    drain()
    assert site.posts == []
