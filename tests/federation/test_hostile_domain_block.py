"""A user's domain block ends the follows with that domain (docs/security.md, "Federation
threats"; Mastodon's AfterBlockDomainFromAccountService): the domain's followers are rejected
(a signed Reject(Follow) to each follower's inbox, and the follow is gone), so the user's
followers-only posts never reach that domain again; pending requests from there are rejected the
same way, and the user's own follows of the domain's accounts end with an Undo(Follow). The work
is the outbox's job on the block's insert, a bounded page of the user's own edges per step,
each step idempotent.

The blocked server is a HostilePeer (tests/rig/hostile.py) on `127.0.0.1:<port>`: a user's block of
`127.0.0.1` names it (a block names a host without its port). Every POST we make to it is kept in
`.posts`."""

from __future__ import annotations

import json

import pytest

from tests import rig


def follow_id(peer, username: str, n: int) -> str:
    return peer.url(f"/users/{username}/follows/{n}")


def received(peer, kind: str | None = None) -> list[tuple[str, dict, dict]]:
    """(path, headers, activity) of what the peer was sent, of one type when `kind` is given."""
    return [(path, headers, body) for path, headers, body in peer.posts
            if isinstance(body, dict) and (kind is None or body.get("type") == kind)]


@pytest.fixture
def local(client):
    """Local users alice and carol: {name: (account id, auth headers)}."""
    app = rig.make_app(client)
    made = {}
    for name in ("alice", "carol"):
        account_id = rig.make_user(name)
        made[name] = (account_id, rig.auth(rig.user_token(app, account_id,
                                                          scopes=("read", "write", "follow"))))
    return made


def block_domain(client, headers, domain: str) -> None:
    answer = client.post("/api/v1/domain_blocks", headers=headers, data={"domain": domain})
    assert answer.status_code == 200, answer.text


def followers_count(client, headers, account_id: str) -> int:
    return client.get(f"/api/v1/accounts/{account_id}", headers=headers).json()["followers_count"]


def test_attack_domain_blocked_follower_still_receives_followers_only_posts(
        client, drain, local, hostile):
    """Alice blocks the domain of a follower: before the fix its follow stayed, so her next
    followers-only post was delivered to the blocked server. Now the follow ends, the follower's
    server gets a Reject(Follow) of that Follow signed by alice, and the post goes nowhere."""
    from stratus.federation import actor_keys, follows
    from stratus.repo import relationships as relationships_repo

    alice_id, headers = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    assert follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1)) == \
        "followed"
    drain()
    rig.post_status(client, headers, "before", "private")
    drain()
    assert [b["object"]["content"] for _, _, b in received(hostile, "Create")] == ["<p>before</p>"]
    hostile.posts.clear()

    block_domain(client, headers, "127.0.0.1")
    drain()
    rig.post_status(client, headers, "for my followers only", "private")
    drain()
    assert received(hostile, "Create") == []
    assert relationships_repo.get_follow(mallory, alice_id) is None
    assert followers_count(client, headers, alice_id) == 0
    [(path, sent_headers, reject)] = received(hostile, "Reject")
    assert path == "/users/mallory/inbox"
    assert reject["actor"] == "http://localhost:8000/users/alice"
    assert reject["object"]["type"] == "Follow"
    assert reject["object"]["id"] == follow_id(hostile, "mallory", 1)
    assert reject["object"]["actor"] == hostile.url("/users/mallory")
    signed = rig.verify_signature(sent_headers, "post", path,
                                  actor_keys.public_key_pem(alice_id))
    assert signed[0] == "http://localhost:8000/users/alice#main-key"
    assert {b["type"] for _, _, b in received(hostile)} == {"Reject"}


def test_a_domain_block_rejects_requests_and_ends_the_users_follows_there(
        client, drain, local, hostile, victim_site):
    """A locked account's pending request from the blocked domain is rejected (Reject(Follow)
    with the request's Follow id); the user's own follow of an account there ends with an
    Undo(Follow); a follower on another domain (whose inboxes are on another loopback port)
    keeps its follow and still gets the followers-only post; another user's follower on the
    blocked domain is not touched."""
    from stratus.federation import follows
    from stratus.repo import relationships as relationships_repo

    alice_id, headers = local["alice"]
    carol_id, _ = local["carol"]
    rig.lock(client, headers)
    mallory = rig.peer_account(hostile, "mallory")
    olive = rig.peer_account(hostile, "olive")
    bob = rig.peer_account(victim_site, "bob", domain="fine.example")
    assert follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1)) == \
        "requested"
    assert follows.remote_follow(mallory, carol_id, follow_id(hostile, "mallory", 2)) == \
        "followed"
    rig.follow_edge(bob, alice_id)
    rig.follow(client, headers, olive)  # a request to a remote account, then its Accept
    drain()
    assert follows.remote_accepted(alice_id, olive)
    drain()
    [(_, _, asked)] = received(hostile, "Follow")
    hostile.posts.clear()

    block_domain(client, headers, "127.0.0.1")
    drain()
    assert relationships_repo.get_follow_request(alice_id, mallory) is None
    assert relationships_repo.get_follow(alice_id, olive) is None
    assert relationships_repo.get_follow(mallory, carol_id) is not None  # carol blocks nothing
    assert relationships_repo.get_follow(bob, alice_id) is not None
    [(path, _, reject)] = received(hostile, "Reject")
    assert path == "/users/mallory/inbox"
    assert reject["object"]["id"] == follow_id(hostile, "mallory", 1)
    [(path, _, undo)] = received(hostile, "Undo")
    assert path == "/users/olive/inbox"
    assert undo["object"]["type"] == "Follow" and undo["object"]["id"] == asked["id"]

    victim_site.posts.clear()
    rig.post_status(client, headers, "for my followers only", "private")
    drain()
    assert received(hostile, "Create") == []
    assert [b["object"]["content"] for _, _, b in received(victim_site, "Create")] == [
        "<p>for my followers only</p>"]


class DynamoCalls:
    """Every DynamoDB call made while active: (operation, request parameters)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def __enter__(self) -> "DynamoCalls":
        from stratus.repo.client import dynamodb

        dynamodb().meta.events.register("before-parameter-build.dynamodb", self._record,
                                        unique_id="test-domain-block-calls")
        return self

    def __exit__(self, *_) -> None:
        from stratus.repo.client import dynamodb

        dynamodb().meta.events.unregister("before-parameter-build.dynamodb",
                                          unique_id="test-domain-block-calls")

    def _record(self, params, model, **_) -> None:
        self.calls.append((model.name, dict(params)))


def test_a_large_follower_set_is_ended_in_pages_each_run_once(
        client, drain, local, hostile, monkeypatch):
    """Five followers on the blocked domain among three elsewhere, two edges a step: every
    step reads one page of alice's own followers (a Query of her followers index) and their
    profiles (one BatchGetItem), never a Scan; each follower on the domain gets one Reject and
    loses its follow, the others keep theirs; the whole walk again (every step redelivered)
    ends and sends nothing more, and a redelivered job is not run twice."""
    from stratus.federation import follows
    from stratus.jobs import messages as jobs
    from stratus.repo import keys
    from stratus.repo import relationships as relationships_repo
    from stratus.workers import effects

    monkeypatch.setattr(follows, "ENDED_PER_STEP", 2)
    alice_id, headers = local["alice"]
    blocked = [rig.peer_account(hostile, f"m{n}") for n in range(5)]
    kept = [rig.make_remote_account("fine.example", f"f{n}") for n in range(2)]
    kept.append(local["carol"][0])
    for n, follower in enumerate(blocked):
        assert follows.remote_follow(follower, alice_id, follow_id(hostile, f"m{n}", n)) == \
            "followed"
    for follower in kept:
        rig.follow_edge(follower, alice_id)
    drain()
    hostile.posts.clear()

    block_domain(client, headers, "127.0.0.1")
    drain()
    assert relationships_repo.follows_among([(f, alice_id) for f in blocked + kept]) == \
        {(f, alice_id) for f in kept}
    rejects = received(hostile, "Reject")
    assert sorted(b["object"]["id"] for _, _, b in rejects) == sorted(
        follow_id(hostile, f"m{n}", n) for n in range(5))
    assert {path for path, _, _ in rejects} == {f"/users/m{n}/inbox" for n in range(5)}

    cursors, cursor = [], None
    with DynamoCalls() as dynamo:
        follows.end_follows_with_domain(alice_id, "127.0.0.1", None)
    ops = [op for op, _ in dynamo.calls]
    assert "Scan" not in ops and ops.count("Query") == 1 and ops.count("BatchGetItem") == 1
    [query] = [p for op, p in dynamo.calls if op == "Query"]
    assert query["IndexName"] == "GSI1" and query["Limit"] <= 2
    assert keys.followers_of(alice_id) in json.dumps(query["ExpressionAttributeValues"])
    while True:  # the whole walk again: every step of it redelivered
        ended, cursor = follows.end_follows_with_domain(alice_id, "127.0.0.1", cursor)
        assert ended == 0
        cursors.append(cursor)
        if cursor is None:
            break
    assert len(cursors) > 3  # pages of two over three phases
    job = jobs.UserDomainBlocked(event_id="ev-1", account_id=alice_id, domain="127.0.0.1")
    assert effects.handle(job) == 0
    with DynamoCalls() as dynamo:
        assert effects.handle(job) == 0  # the same job again: claimed, nothing read
    assert [op for op, _ in dynamo.calls] == ["PutItem"]
    drain()
    assert len(received(hostile, "Reject")) == 5
    assert received(hostile, "Undo") == []


def test_a_walk_stops_when_the_domain_is_unblocked(client, drain, local, hostile, monkeypatch):
    """Unblocking before the walk reaches a follower leaves that follow as it is (the block is
    read again at each step)."""
    from stratus.federation import follows
    from stratus.repo import blocks as blocks_repo

    alice_id, _ = local["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    follows.remote_follow(mallory, alice_id, follow_id(hostile, "mallory", 1))
    drain()
    assert blocks_repo.block_domain(alice_id, "127.0.0.1")
    blocks_repo.unblock_domain(alice_id, "127.0.0.1")
    drain()
    assert follows.end_follows_with_domain(alice_id, "127.0.0.1", None) == (0, None)
    from stratus.repo import relationships as relationships_repo

    assert relationships_repo.get_follow(mallory, alice_id) is not None
