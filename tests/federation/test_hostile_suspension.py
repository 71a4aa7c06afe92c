"""Suspension stops delivery (docs/security.md, "Federation threats"): a suspended remote
account, or any account of a suspended domain (or, in limited federation mode, of a domain not
allowed), hears nothing more from us — checked when the fan-out picks inboxes and again when a
queued delivery is sent. Suspending a remote account rejects its follows of local accounts
(Mastodon's SuspendAccountService#reject_remote_follows!): a Reject(Follow) to its own inbox,
the one activity it still gets, and the follow is gone (counted as any unfollow). Hosts are
compared as stratus/core/hosts.py normalises them: a port, upper case or an IDN form escapes nothing.

The attacker is a HostilePeer (tests/rig/hostile.py): its accounts live on `127.0.0.1:<port>` and
every POST we make to it is kept in `.posts`."""

from __future__ import annotations

import json

import pytest

from tests import rig

# --- helpers -------------------------------------------------------------------------------------

def follow_id(peer, username: str, n: int) -> str:
    return peer.url(f"/users/{username}/follows/{n}")


def received(peer, kind: str | None = None) -> list[tuple[str, dict]]:
    """(path, activity) of what the peer was sent, of one type when `kind` is given."""
    return [(path, body) for path, _, body in peer.posts
            if isinstance(body, dict) and (kind is None or body.get("type") == kind)]



@pytest.fixture
def local(client):
    """Three local users (alice, bob, carol): {name: (account id, auth headers)}."""
    app = rig.make_app(client)
    made = {}
    for name in ("alice", "bob", "carol"):
        account_id = rig.make_user(name)
        made[name] = (account_id, rig.auth(rig.user_token(app, account_id,
                                                          scopes=("read", "write", "follow"))))
    return made



def domain_block(client, staff, domain: str, severity: str = "suspend") -> dict:
    answer = client.post("/api/v1/admin/domain_blocks", headers=staff,
                         json={"domain": domain, "severity": severity})
    assert answer.status_code == 200, answer.text
    return answer.json()


def followers_count(client, headers, account_id: str) -> int:
    return client.get(f"/api/v1/accounts/{account_id}", headers=headers).json()["followers_count"]


@pytest.fixture
def no_network(monkeypatch):
    """The delivery worker's POSTs recorded instead of sent: [(inbox, body)]."""
    from stratus.federation import http as fed_http

    sent: list[tuple[str, dict]] = []

    class Answer:
        status = 202

    def post_activity(inbox, body, **_):
        sent.append((inbox, json.loads(body)))
        return Answer()

    monkeypatch.setattr(fed_http, "post_activity", post_activity)
    return sent


# --- attacks -------------------------------------------------------------------------------------
def test_attack_suspended_follower_still_receives_followers_only_posts(
        client, drain, staff, local, hostile):
    """A suspended account followed a local one: after its suspension a followers-only post of
    that local account must not reach it (today's fan-out never looked at `suspended_at`)."""
    from stratus.federation import follows

    alice_id, headers = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    assert follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1)) == \
        "followed"
    drain()
    rig.post_status(client, headers, "before", "private")
    drain()
    assert [b["object"]["content"] for _, b in received(hostile, "Create")] == ["<p>before</p>"]
    hostile.posts.clear()

    rig.suspend(client, staff, mallory)
    drain()
    rig.post_status(client, headers, "for my followers only", "private")
    rig.post_status(client, headers, "and a public one")
    drain()
    assert received(hostile, "Create") == []
    assert {b["type"] for _, b in received(hostile)} <= {"Reject"}


def test_a_follower_suspended_before_its_follow_is_removed_hears_nothing(
        client, drain, local, hostile):
    """The fan-out reads each follower's profile: one suspended while its follow still stands
    (the follows are removed in batches, after the suspension) is skipped, its server's shared
    inbox too when it was the only follower there."""
    from stratus.core import clock
    from stratus.federation import delivery
    from stratus.jobs import messages as jobs
    from stratus.repo import accounts as accounts_repo

    alice_id, headers = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    rig.follow_edge(mallory, alice_id)
    status = rig.post_status(client, headers, "followers only", "private")
    drain()
    hostile.posts.clear()
    profile = accounts_repo.get_profile(mallory)
    accounts_repo.put_profiles([{**{k: v for k, v in profile.items() if k != "type"},
                                 "suspended_at": clock.iso(clock.now())}])
    sent = delivery.fan_out(jobs.Federate(event_id=None, kind="create", account_id=alice_id,
                                          item={"id": status["id"], "account_id": alice_id}))
    assert sent == 0
    drain()
    assert received(hostile, "Create") == []


def test_attack_suspended_account_mentioned_still_receives_the_post(
        client, drain, staff, local, hostile):
    """A post mentioning an account that is suspended by the time it is delivered is not
    delivered to it (a direct one neither)."""
    from stratus.repo import statuses as statuses_repo

    _, headers = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    drain()
    hostile.posts.clear()
    status = rig.post_status(client, headers, f"psst @mallory@{hostile.host}", "direct")
    assert statuses_repo.get(status["id"])["mention_ids"] == [mallory]
    rig.suspend(client, staff, mallory)
    drain()
    assert received(hostile, "Create") == []


def test_attack_domain_block_with_explicit_port_still_delivered(
        client, drain, staff, local, hostile, no_network):
    """A domain block names a host without a port: a block of `127.0.0.1` covers the peer at
    `127.0.0.1:<port>`, whatever domain the account was stored under (an actor on a domain we
    federate with may name an inbox on the blocked host), and a block of `evil.example` covers
    inboxes written `https://EVIL.example:443/…` or in an IDN form."""
    from stratus.federation import delivery, follows
    from stratus.jobs import messages as jobs

    alice_id, headers = local["alice"]
    # Stored from `https://evil.example:443/users/mallory`: its domain is the bare host, but its
    # inboxes are the peer's, on 127.0.0.1 with a port.
    mallory = rig.peer_account(hostile, "mallory", domain="fine.example")
    follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1))
    drain()
    no_network.clear()
    domain_block(client, staff, "127.0.0.1")
    drain()
    rig.post_status(client, headers, "not for a blocked host")
    drain()
    assert [(i, b["type"]) for i, b in no_network if b["type"] != "Reject"] == []

    # Messages queued for such inboxes are dropped when sent, without a request.
    domain_block(client, staff, "EVIL.example:443")
    domain_block(client, staff, "bücher.example")
    create = {"@context": "https://www.w3.org/ns/activitystreams", "type": "Create",
              "id": "https://local.example/1", "actor": "https://local.example/users/alice",
              "object": {"type": "Note", "content": "secret"}}
    no_network.clear()
    for inbox in ("https://EVIL.example:443/inbox", "https://evil.example./inbox",
                  "https://a.EVIL.example:443/users/x/inbox", "https://xn--bcher-kva.example/inbox",
                  "https://BÜCHER.example:443/inbox", f"http://127.0.0.1:{hostile.port}/inbox"):
        job = jobs.DeliverActivity(inbox=inbox, body=json.dumps(create), account_id=alice_id)
        assert delivery.attempt(job) == "dropped", inbox
    assert no_network == []


def test_suspension_rejects_and_removes_follows(
        client, drain, staff, local, hostile, monkeypatch):
    """Staff suspend a remote account: each follow it has of a local account is rejected (a
    Reject(Follow) with that Follow's id, to its own inbox) and removed, followers counts drop,
    its pending follow request is rejected too; the work goes in batches (here of one) and a
    batch run twice sends and removes nothing more."""
    from stratus.federation import follows
    from stratus.repo import relationships as relationships_repo

    monkeypatch.setattr(follows, "REJECTED_PER_STEP", 1, raising=False)
    alice_id, alice_headers = local["alice"]
    bob_id, _ = local["bob"]
    carol_id, carol_headers = local["carol"]
    assert client.patch("/api/v1/accounts/update_credentials", headers=carol_headers,
                        data={"locked": "true"}).status_code == 200
    mallory = rig.peer_account(hostile, "mallory")
    assert follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1)) == \
        "followed"
    assert follows.remote_follow(mallory, bob_id, follow_id(hostile, "mallory", 2)) == \
        "followed"
    assert follows.remote_follow(mallory, carol_id, follow_id(hostile, "mallory", 3)) == \
        "requested"
    drain()
    assert followers_count(client, alice_headers, alice_id) == 1
    hostile.posts.clear()

    rig.suspend(client, staff, mallory)
    drain()
    rejects = received(hostile, "Reject")
    assert {path for path, _ in rejects} == {"/users/mallory/inbox"}  # its own inbox
    assert sorted(b["object"]["id"] for _, b in rejects) == [
        follow_id(hostile, "mallory", n) for n in (1, 2, 3)]
    assert all(b["object"]["type"] == "Follow" and b["object"]["actor"] ==
               hostile.url("/users/mallory") for _, b in rejects)
    assert relationships_repo.follows_among([(mallory, alice_id), (mallory, bob_id)]) == set()
    assert followers_count(client, alice_headers, alice_id) == 0
    assert relationships_repo.get_follow_request(carol_id, mallory) is None
    assert received(hostile, "Create") == []

    # Idempotent: the whole walk again (a redelivered job) sends and removes nothing more.
    count = len(hostile.posts)
    cursor = None
    while True:
        cursor = follows.reject_follows_of_suspended(mallory, cursor)
        if cursor is None:
            break
    drain()
    assert len(hostile.posts) == count


def test_a_domain_suspension_rejects_and_removes_follows(client, drain, staff, local,
                                                         hostile):
    """A domain block of severity suspend suspends every account of the domain (here the peer's
    host with its port, covered by a block of `127.0.0.1`): their follows are rejected and
    removed too — the Reject is delivered although the domain is suspended."""
    from stratus.federation import follows
    from stratus.repo import accounts as accounts_repo

    alice_id, alice_headers = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1))
    drain()
    hostile.posts.clear()
    domain_block(client, staff, "127.0.0.1")
    drain()
    assert accounts_repo.get_profile(mallory).get("suspended_at")
    [(path, reject)] = received(hostile, "Reject")
    assert path == "/users/mallory/inbox" and reject["object"]["id"] == \
        follow_id(hostile, "mallory", 1)
    assert followers_count(client, alice_headers, alice_id) == 0
    rig.post_status(client, alice_headers, "nothing for a suspended domain", "private")
    drain()
    assert received(hostile, "Create") == []


def test_delivery_queued_before_a_domain_suspension_is_dropped(
        client, drain, staff, local, hostile):
    """Delivery messages already queued when a domain is suspended are dropped when their turn
    comes, without a request; a queued Reject(Follow) still goes (the one activity a suspended
    peer gets)."""
    from stratus.federation import delivery

    alice_id, _ = local["alice"]
    actor = "https://local.example/users/alice"
    create = {"@context": "https://www.w3.org/ns/activitystreams", "type": "Create",
              "id": "https://local.example/statuses/1", "actor": actor,
              "object": {"type": "Note", "content": "queued"}}
    reject = {"@context": "https://www.w3.org/ns/activitystreams", "type": "Reject",
              "id": "https://local.example/reject/1", "actor": actor,
              "object": {"type": "Follow", "id": follow_id(hostile, "mallory", 1),
                         "actor": hostile.url("/users/mallory"), "object": actor}}
    delivery.send(create, alice_id, [hostile.url("/inbox")])
    delivery.send(reject, alice_id, [hostile.url("/users/mallory/inbox")])
    domain_block(client, staff, "127.0.0.1:" + str(hostile.port))  # the port is dropped
    drain()
    assert [(path, body["type"]) for path, body in received(hostile)] == [
        ("/users/mallory/inbox", "Reject")]


def test_delivery_queued_before_an_account_suspension_is_dropped(
        client, drain, local, hostile, monkeypatch):
    """A message queued for an account's own inbox (a server with no shared inbox) is dropped
    when that account was suspended before the message's turn came: the fan-out names the
    inbox's account in the message and the delivery reads it again."""
    from stratus.core import clock
    from stratus.federation import delivery
    from stratus.repo import accounts as accounts_repo

    alice_id, headers = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    profile = accounts_repo.get_profile(mallory)
    profile.pop("shared_inbox")
    accounts_repo.put_profiles([{k: v for k, v in profile.items() if k != "type"}])
    rig.follow_edge(mallory, alice_id)
    original = delivery.attempt

    def suspended_meanwhile(job, **kwargs):
        current = accounts_repo.get_profile(mallory)
        if not current.get("suspended_at"):  # the suspension lands while the message waits
            current["suspended_at"] = clock.iso(clock.now())
            accounts_repo.put_profiles([{k: v for k, v in current.items() if k != "type"}])
        return original(job, **kwargs)

    monkeypatch.setattr(delivery, "attempt", suspended_meanwhile)
    rig.post_status(client, headers, "for my followers only", "private")
    drain()
    assert received(hostile, "Create") == []


def test_limited_federation_drops_queued_delivery_outside_the_allowlist(
        client, drain, staff, local, hostile):
    """In limited federation mode only allowed domains hear from us, queued messages too."""
    from stratus.federation import delivery
    from stratus.read import settings

    alice_id, _ = local["alice"]
    create = {"@context": "https://www.w3.org/ns/activitystreams", "type": "Create",
              "id": "https://local.example/statuses/2",
              "actor": "https://local.example/users/alice",
              "object": {"type": "Note", "content": "queued"}}
    delivery.send(create, alice_id, [hostile.url("/inbox")])
    settings.set_value("limited_federation_mode", "true")
    drain()
    assert received(hostile) == []


# --- the pending requests of a suspended account --------------------------------------------------
def locked_user(name: str) -> str:
    """A local account that approves its followers (a remote Follow of it is a request)."""
    from stratus.repo import accounts as accounts_repo

    account_id = rig.make_user(name)
    profile = accounts_repo.get_profile(account_id)
    profile["locked"] = True
    accounts_repo.put_profiles([{k: v for k, v in profile.items() if k != "type"}])
    return account_id


class DynamoCalls:
    """Every DynamoDB call made while active: (operation, request parameters)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def __enter__(self) -> "DynamoCalls":
        from stratus.repo.client import dynamodb

        dynamodb().meta.events.register("before-parameter-build.dynamodb", self._record,
                                        unique_id="test-dynamo-calls")
        return self

    def __exit__(self, *_) -> None:
        from stratus.repo.client import dynamodb

        dynamodb().meta.events.unregister("before-parameter-build.dynamodb",
                                          unique_id="test-dynamo-calls")

    def _record(self, params, model, **_) -> None:
        self.calls.append((model.name, dict(params)))

    def reads(self) -> list[tuple[str, dict]]:
        """The listings and batched reads (not the GetItem of the account's profile)."""
        return [(op, p) for op, p in self.calls
                if op in ("Query", "Scan", "BatchGetItem", "TransactGetItems")]


def test_suspension_reads_only_the_requests_the_account_made(
        client, drain, staff, local, hostile):
    """A server with many local accounts: suspending a remote account that made one pending
    request finds that request with one Query of the requests it made (its own index
    partition) — no walk of the local accounts, no batched read of keys guessed from them —
    removes it (one Reject(Follow) to its inbox) and leaves another account's requests."""
    from stratus.federation import follows
    from stratus.repo import keys
    from stratus.repo import relationships as relationships_repo

    carol, dave = locked_user("carol2"), locked_user("dave")
    for n in range(10):  # the local accounts the former walk read through
        rig.make_user(f"bystander{n}")
    mallory = rig.peer_account(hostile, "mallory")
    eve = rig.peer_account(hostile, "eve")
    assert follows.remote_follow(mallory, carol, follow_id(hostile, "mallory", 1)) == \
        "requested"
    assert follows.remote_follow(eve, carol, follow_id(hostile, "eve", 1)) == "requested"
    assert follows.remote_follow(eve, dave, follow_id(hostile, "eve", 2)) == "requested"
    drain()
    hostile.posts.clear()

    rig.suspend(client, staff, mallory)
    with DynamoCalls() as dynamo:
        assert follows.reject_follows_of_suspended(mallory, f"{follows.REQUESTS}:") is None
    [(op, query)] = dynamo.reads()
    assert op == "Query" and query["IndexName"] == "GSI2"
    assert keys.follow_requests_by(mallory) in json.dumps(query["ExpressionAttributeValues"])
    # one write: the request's removal, with carol's follow_requests_count (one transaction)
    writes = [p for op, p in dynamo.calls if op in ("DeleteItem", "TransactWriteItems")]
    assert len(writes) == 1 and any("Delete" in item for item in writes[0]["TransactItems"])

    drain()
    [(path, reject)] = received(hostile, "Reject")
    assert path == "/users/mallory/inbox" and reject["object"]["id"] == \
        follow_id(hostile, "mallory", 1)
    assert relationships_repo.get_follow_request(carol, mallory) is None
    assert relationships_repo.get_follow_request(carol, eve) is not None
    assert relationships_repo.get_follow_request(dave, eve) is not None


def test_suspension_pages_the_requests_made_and_a_step_run_twice_does_nothing_more(
        client, drain, staff, local, hostile, monkeypatch):
    """The requests a suspended account made are rejected a bounded page per step (here two),
    as many steps as pages of its own requests; each step run twice (a redelivered job)
    removes and sends nothing more."""
    from stratus.federation import follows
    from stratus.repo import relationships as relationships_repo

    monkeypatch.setattr(follows, "REJECTED_PER_STEP", 2)
    targets = [locked_user(f"locked{n}") for n in range(5)]
    mallory = rig.peer_account(hostile, "mallory")
    for n, target in enumerate(targets):
        assert follows.remote_follow(mallory, target, follow_id(hostile, "mallory", n)) == \
            "requested"
    drain()
    hostile.posts.clear()

    rig.suspend(client, staff, mallory)
    found = []
    made = relationships_repo.follow_requests_made

    def spy(account_id, after, limit):
        page, cursor = made(account_id, after, limit)
        assert account_id == mallory and len(page) <= limit == 2
        found.extend(e["target_id"] for e in page)
        return page, cursor

    monkeypatch.setattr(relationships_repo, "follow_requests_made", spy)
    cursors, cursor = [], f"{follows.REQUESTS}:"
    while cursor is not None:
        cursors.append(cursor)
        cursor = follows.reject_follows_of_suspended(mallory, cursor)
    assert len(cursors) == 3  # 5 requests, 2 a step
    assert sorted(found) == sorted(targets)  # each request read once
    for cursor in cursors:  # every step redelivered
        follows.reject_follows_of_suspended(mallory, cursor)
    assert sorted(found) == sorted(targets)
    drain()
    rejects = received(hostile, "Reject")
    assert sorted(b["object"]["id"] for _, b in rejects) == sorted(
        follow_id(hostile, "mallory", n) for n in range(5))
    assert {path for path, _ in rejects} == {"/users/mallory/inbox"}
