"""Follows across servers (api/graph/follows.py + federation/delivery.py): following a remote
account asks it (a pending request, `requested: true`, a Follow delivered), its Accept makes the
follow, unfollowing sends Undo(Follow); a remote Follow of a local account is accepted at once
(Accept delivered with their Follow as object) or, for a locked account, waits for the user
to authorize (Accept) or reject (Reject)."""

from __future__ import annotations

import pytest

from tests.rig import remote

PUBLIC_FOLLOW = "https://a.example/3f1c6f0e-follow"



def _relationship(client, headers, account_id) -> dict:
    response = client.get("/api/v1/accounts/relationships", headers=headers,
                          params={"id[]": account_id})
    assert response.status_code == 200, response.text
    return response.json()[0]


def test_following_a_remote_account_asks_it_and_its_accept_makes_the_follow(
        client, drain, alice, site):
    from stratus.federation import follows

    alice_id, headers = alice
    bob = remote(site, "a.example", "bob")
    answer = client.post(f"/api/v1/accounts/{bob}/follow", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["requested"] is True and answer.json()["following"] is False
    drain()
    [post] = site.posts
    assert post.path == "/a.example/users/bob/inbox"  # the account's own inbox
    follow = post.json()
    assert follow["type"] == "Follow" and follow["object"] == "https://a.example/users/bob"
    assert follow["actor"].endswith("/users/alice")
    assert _relationship(client, headers, bob)["requested"] is True

    assert follows.remote_accepted(alice_id, bob) is True
    assert follows.remote_accepted(alice_id, bob) is False  # the Accept again: nothing
    drain()
    relationship = _relationship(client, headers, bob)
    assert relationship["following"] is True and relationship["requested"] is False
    assert len(site.posts) == 1  # accepting sent nothing back

    assert client.post(f"/api/v1/accounts/{bob}/unfollow", headers=headers).status_code == 200
    drain()
    undo = site.posts[-1].json()
    assert undo["type"] == "Undo" and undo["object"]["id"] == follow["id"]
    assert undo["object"]["type"] == "Follow"


def test_a_withdrawn_request_is_undone_and_a_rejected_one_is_not_answered(
        client, drain, alice, site):
    from stratus.federation import follows

    alice_id, headers = alice
    bob = remote(site, "a.example", "bob")
    client.post(f"/api/v1/accounts/{bob}/follow", headers=headers)
    drain()
    client.post(f"/api/v1/accounts/{bob}/unfollow", headers=headers)
    drain()
    follow, undo = (p.json() for p in site.posts)
    assert undo["type"] == "Undo" and undo["object"]["id"] == follow["id"]

    client.post(f"/api/v1/accounts/{bob}/follow", headers=headers)
    drain()
    assert follows.remote_rejected(alice_id, bob) is True
    drain()
    assert [p.json()["type"] for p in site.posts] == ["Follow", "Undo", "Follow"]
    assert _relationship(client, headers, bob)["requested"] is False


def test_a_remote_follow_of_an_open_account_is_accepted(client, drain, alice, site):
    from stratus.federation import follows

    alice_id, headers = alice
    bob = remote(site, "a.example", "bob")
    assert follows.remote_follow(bob, alice_id, PUBLIC_FOLLOW) == "followed"
    drain()
    assert _relationship(client, headers, bob)["followed_by"] is True
    [post] = site.posts
    assert post.path == "/a.example/users/bob/inbox"
    accept = post.json()
    assert accept["type"] == "Accept" and accept["actor"].endswith("/users/alice")
    assert accept["object"] == {"id": PUBLIC_FOLLOW, "type": "Follow",
                                "actor": "https://a.example/users/bob",
                                "object": accept["actor"]}
    # The same Follow again changes nothing; a new one is accepted again (Mastodon).
    assert follows.remote_follow(bob, alice_id, PUBLIC_FOLLOW) == "followed"
    drain()
    assert len(site.posts) == 1
    follows.remote_follow(bob, alice_id, PUBLIC_FOLLOW + "-2")
    drain()
    assert site.posts[-1].json()["object"]["id"] == PUBLIC_FOLLOW + "-2"
    # Removing the follower rejects its follow; its own Undo is not answered.
    client.post(f"/api/v1/accounts/{bob}/remove_from_followers", headers=headers)
    drain()
    assert site.posts[-1].json()["type"] == "Reject"
    follows.remote_follow(bob, alice_id, PUBLIC_FOLLOW + "-3")
    drain()
    count = len(site.posts)
    assert follows.remote_unfollowed(bob, alice_id) is True
    drain()
    assert len(site.posts) == count
    assert _relationship(client, headers, bob)["followed_by"] is False


@pytest.mark.parametrize("decision,activity", [("authorize", "Accept"), ("reject", "Reject")])
def test_a_locked_account_decides(client, drain, alice, site, decision, activity):
    from stratus.federation import follows

    alice_id, headers = alice
    assert client.patch("/api/v1/accounts/update_credentials", headers=headers,
                        data={"locked": "true"}).status_code == 200
    bob = remote(site, "a.example", "bob")
    drain()
    assert follows.remote_follow(bob, alice_id, PUBLIC_FOLLOW) == "requested"
    drain()
    # The profile change was announced to followers (none remote yet): nothing for bob.
    assert site.posts == []
    assert _relationship(client, headers, bob)["requested_by"] is True
    answer = client.post(f"/api/v1/follow_requests/{bob}/{decision}", headers=headers)
    assert answer.status_code == 200, answer.text
    drain()
    [post] = site.posts
    assert post.json()["type"] == activity and post.json()["object"]["id"] == PUBLIC_FOLLOW
    assert _relationship(client, headers, bob)["followed_by"] is (decision == "authorize")


def test_a_blocked_account_is_rejected_and_the_block_is_told(client, drain, alice, site):
    from stratus.federation import follows

    alice_id, headers = alice
    bob = remote(site, "a.example", "bob")
    assert client.post(f"/api/v1/accounts/{bob}/block", headers=headers).status_code == 200
    drain()
    [block] = [p.json() for p in site.posts]
    assert block["type"] == "Block" and block["object"] == "https://a.example/users/bob"
    assert follows.remote_follow(bob, alice_id, PUBLIC_FOLLOW) == "rejected"
    drain()
    reject = site.posts[-1].json()
    assert reject["type"] == "Reject" and reject["object"]["id"] == PUBLIC_FOLLOW
    assert _relationship(client, headers, bob)["followed_by"] is False
    assert client.post(f"/api/v1/accounts/{bob}/unblock", headers=headers).status_code == 200
    drain()
    undo = site.posts[-1].json()
    assert undo["type"] == "Undo" and undo["object"] == {k: v for k, v in block.items()
                                                         if k != "@context"}
