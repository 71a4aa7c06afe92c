"""Follows and follow requests: options, locked accounts, counts from the stream, the
notifications they make and take back, followers/following lists, familiar followers,
relationships and endorsements."""

from __future__ import annotations

import pytest
from stratus.repo import base, keys

from tests.rig import (
    account,
    auth,
    deliver_twice,
    dispatch_only,
    follow,
    lock,
    make_app,
    make_user,
    notifications,
    relationship,
    user_token,
)


def test_follow_answers_a_relationship_and_the_stream_counts_and_notifies(
        client, people, drain, entity):
    ids_, tokens = people
    body = follow(client, tokens["alice"], ids_["bob"])
    entity("Relationship", body)
    assert body["id"] == ids_["bob"] and body["following"] is True
    assert (body["showing_reblogs"], body["notifying"], body["languages"]) == (True, False, None)
    assert body["requested"] is False and body["followed_by"] is False
    seen_by_bob = relationship(client, tokens["bob"], ids_["alice"])
    assert seen_by_bob["followed_by"] is True and seen_by_bob["following"] is False
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 1
    assert account(client, ids_["alice"])["following_count"] == 1
    assert notifications(ids_["bob"]) == [("follow", ids_["alice"])]


def test_following_again_changes_only_the_options_given(client, people, drain):
    ids_, tokens = people
    first = follow(client, tokens["alice"], ids_["bob"], reblogs="false", notify="true",
                   **{"languages[]": ["en", "de"]})
    assert (first["showing_reblogs"], first["notifying"], first["languages"]) == \
        (False, True, ["en", "de"])
    again = follow(client, tokens["alice"], ids_["bob"], reblogs="true")
    assert (again["showing_reblogs"], again["notifying"], again["languages"]) == \
        (True, True, ["en", "de"])
    json_body = client.post(f"/api/v1/accounts/{ids_['bob']}/follow", headers=tokens["alice"],
                            json={"languages": []}).json()
    assert json_body["languages"] is None and json_body["notifying"] is True  # [] = every one
    assert relationship(client, tokens["alice"], ids_["bob"])["showing_reblogs"] is True
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 1  # one follow, changed
    assert notifications(ids_["bob"]) == [("follow", ids_["alice"])]


@pytest.mark.parametrize("target, data, status, message", [
    ("alice", {}, 403, "Following your own account is not allowed"),
    ("nobody", {}, 404, "Record not found"),
    ("bob", {"languages[]": ["not a language"]}, 422, "Languages is invalid"),
])
def test_follow_refusals(client, people, target, data, status, message):
    ids_, tokens = people
    target_id = ids_.get(target, "123456789")
    response = client.post(f"/api/v1/accounts/{target_id}/follow", headers=tokens["alice"],
                           data=data)
    assert response.status_code == status and message in response.json()["error"]


def test_a_suspended_account_cannot_be_followed(client, people):
    ids_, tokens = people
    base.update(keys.account_profile(ids_["bob"]), "SET suspended_at = :t",
                vals={":t": "2026-11-22T00:00:00.000Z"})
    response = client.post(f"/api/v1/accounts/{ids_['bob']}/follow", headers=tokens["alice"])
    assert response.status_code == 404


def test_follow_needs_the_follows_scope(client, people):
    from tests.rig import auth, make_app, user_token

    ids_, _ = people
    app = make_app(client)
    reader = auth(user_token(app, ids_["alice"], scopes=("read",)))
    assert client.post(f"/api/v1/accounts/{ids_['bob']}/follow",
                       headers=reader).status_code == 403
    legacy = auth(user_token(app, ids_["alice"], scopes=("follow",)))  # Mastodon's old scope
    assert client.post(f"/api/v1/accounts/{ids_['bob']}/follow",
                       headers=legacy).json()["following"] is True
    assert client.post(f"/api/v1/accounts/{ids_['bob']}/pin",
                       headers=legacy).status_code == 403  # write:accounts


def test_unfollow_takes_back_the_count_and_the_notification(client, people, drain):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    body = client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["alice"])
    assert body.status_code == 200 and body.json()["following"] is False
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 0
    assert account(client, ids_["alice"])["following_count"] == 0
    assert notifications(ids_["bob"]) == []  # Mastodon: the notification goes with the follow
    again = client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["alice"])
    assert again.status_code == 200 and again.json()["following"] is False


def test_a_popular_accounts_followers_are_counted_exactly(client, people, drain):
    """Following counts on both accounts in the request (the next request sees it, without the
    pipeline); the stream's worker then changes nothing more."""
    ids_, tokens = people
    for name in ("alice", "carol", "dave"):
        follow(client, tokens[name], ids_["bob"])
    assert account(client, ids_["bob"])["followers_count"] == 3
    assert account(client, ids_["alice"])["following_count"] == 1
    client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["carol"])
    assert account(client, ids_["bob"])["followers_count"] == 2
    assert account(client, ids_["carol"])["following_count"] == 0
    follow(client, tokens["carol"], ids_["bob"])
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 3
    assert notifications(ids_["bob"]) == [("follow", ids_["carol"]), ("follow", ids_["dave"]),
                                          ("follow", ids_["alice"])]


def test_redelivered_follow_jobs_count_once_and_notify_once(client, people, runtime, drain):
    ids_, tokens = people
    drain()  # the sign-ups
    follow(client, tokens["alice"], ids_["bob"])
    dispatch_only(runtime)
    # the follow, and alice's first API use of the day (active users, announce area)
    assert deliver_twice(runtime, "CountersQueue") == 2
    # bob's follow notification, and bob's directory entry (his followers_count changed with
    # the follow)
    assert deliver_twice(runtime, "EffectsFunction:async") == 2
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 1
    assert account(client, ids_["alice"])["following_count"] == 1
    assert notifications(ids_["bob"]) == [("follow", ids_["alice"])]


# --- locked accounts ------------------------------------------------------------------------------
def test_a_locked_accounts_request_flow(client, people, drain, entity):
    ids_, tokens = people
    lock(client, tokens["bob"])
    asked = follow(client, tokens["alice"], ids_["bob"], notify="true")
    entity("Relationship", asked)
    assert asked["requested"] is True and asked["following"] is False
    assert asked["notifying"] is True  # a request's options show as the follow's will
    assert relationship(client, tokens["bob"], ids_["alice"])["requested_by"] is True
    drain()
    assert notifications(ids_["bob"]) == [("follow_request", ids_["alice"])]
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["bob"]).json()
    assert me["source"]["follow_requests_count"] == 1
    pending = client.get("/api/v1/follow_requests", headers=tokens["bob"])
    assert [a["id"] for a in pending.json()] == [ids_["alice"]]
    entity("Account", pending.json()[0])
    assert account(client, ids_["bob"])["followers_count"] == 0

    accepted = client.post(f"/api/v1/follow_requests/{ids_['alice']}/authorize",
                           headers=tokens["bob"])
    assert accepted.status_code == 200
    entity("Relationship", accepted.json())
    assert accepted.json()["followed_by"] is True and accepted.json()["requested_by"] is False
    mine = relationship(client, tokens["alice"], ids_["bob"])
    assert (mine["following"], mine["requested"], mine["notifying"]) == (True, False, True)
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 1
    assert account(client, ids_["alice"])["following_count"] == 1
    # The request's notification goes with it; accepting it notifies nobody (as Mastodon).
    assert notifications(ids_["bob"]) == []
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["bob"]).json()
    assert me["source"]["follow_requests_count"] == 0
    assert client.get("/api/v1/follow_requests", headers=tokens["bob"]).json() == []
    gone = client.post(f"/api/v1/follow_requests/{ids_['alice']}/authorize",
                       headers=tokens["bob"])
    assert gone.status_code == 404


def test_rejected_and_withdrawn_requests_take_their_notification(client, people, drain):
    ids_, tokens = people
    lock(client, tokens["bob"])
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["carol"], ids_["bob"])
    drain()
    assert sorted(notifications(ids_["bob"])) == sorted(
        [("follow_request", ids_["alice"]), ("follow_request", ids_["carol"])])
    rejected = client.post(f"/api/v1/follow_requests/{ids_['alice']}/reject",
                           headers=tokens["bob"])
    assert rejected.status_code == 200 and rejected.json()["requested_by"] is False
    withdrawn = client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["carol"])
    assert withdrawn.json()["requested"] is False
    drain()
    assert notifications(ids_["bob"]) == []
    assert relationship(client, tokens["alice"], ids_["bob"])["requested"] is False
    assert client.get("/api/v1/follow_requests", headers=tokens["bob"]).json() == []
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["bob"]).json()
    assert me["source"]["follow_requests_count"] == 0
    assert client.post(f"/api/v1/follow_requests/{ids_['dave']}/reject",
                       headers=tokens["bob"]).status_code == 404


def test_follow_requests_are_paginated_by_request(client, people):
    ids_, tokens = people
    lock(client, tokens["bob"])
    for name in ("alice", "carol", "dave"):
        follow(client, tokens[name], ids_["bob"])
    first = client.get("/api/v1/follow_requests?limit=2", headers=tokens["bob"])
    assert [a["id"] for a in first.json()] == [ids_["dave"], ids_["carol"]]
    next_url = first.headers["Link"].split(">")[0].lstrip("<")
    rest = client.get(next_url.removeprefix("http://localhost:8000"), headers=tokens["bob"])
    assert [a["id"] for a in rest.json()] == [ids_["alice"]]


def test_remove_from_followers(client, people, drain):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    client.post(f"/api/v1/accounts/{ids_['bob']}/endorse", headers=tokens["alice"])
    drain()
    removed = client.post(f"/api/v1/accounts/{ids_['alice']}/remove_from_followers",
                          headers=tokens["bob"])
    assert removed.status_code == 200 and removed.json()["followed_by"] is False
    mine = relationship(client, tokens["alice"], ids_["bob"])
    assert mine["following"] is False and mine["endorsed"] is False
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 0


# --- lists ---------------------------------------------------------------------------------------
def test_followers_and_following_are_paginated_by_follow(client, people, entity):
    ids_, tokens = people
    for name in ("alice", "carol", "dave"):
        follow(client, tokens[name], ids_["bob"])
    first = client.get(f"/api/v1/accounts/{ids_['bob']}/followers?limit=2")
    assert first.status_code == 200 and first.headers["Cache-Control"].startswith("max-age=15")
    assert [a["id"] for a in first.json()] == [ids_["dave"], ids_["carol"]]
    entity("Account", first.json()[0])
    assert 'rel="next"' in first.headers["Link"] and 'rel="prev"' in first.headers["Link"]
    next_url = first.headers["Link"].split(">")[0].lstrip("<")
    rest = client.get(next_url.removeprefix("http://localhost:8000"))
    assert [a["id"] for a in rest.json()] == [ids_["alice"]]
    following = client.get(f"/api/v1/accounts/{ids_['alice']}/following")
    assert [a["id"] for a in following.json()] == [ids_["bob"]]
    assert client.get("/api/v1/accounts/123456/followers").status_code == 404


def test_hidden_collections_are_for_their_owner_only(client, people):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["bob"], ids_["carol"])
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["bob"],
                 data={"hide_collections": "true"})
    for path in ("followers", "following"):
        url = f"/api/v1/accounts/{ids_['bob']}/{path}"
        assert client.get(url).json() == []
        assert client.get(url, headers=tokens["carol"]).json() == []
        assert len(client.get(url, headers=tokens["bob"]).json()) == 1


def test_an_account_that_blocks_you_shows_you_no_followers(client, people):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    client.post(f"/api/v1/accounts/{ids_['dave']}/block", headers=tokens["bob"])
    url = f"/api/v1/accounts/{ids_['bob']}/followers"
    assert client.get(url, headers=tokens["dave"]).json() == []
    assert [a["id"] for a in client.get(url, headers=tokens["carol"]).json()] == [ids_["alice"]]


def test_own_lists_include_muted_accounts_others_do_not_see_them(client, people):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["carol"], ids_["bob"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/mute", headers=tokens["bob"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/mute", headers=tokens["dave"])
    url = f"/api/v1/accounts/{ids_['bob']}/followers"
    assert [a["id"] for a in client.get(url, headers=tokens["bob"]).json()] == \
        [ids_["carol"], ids_["alice"]]
    assert [a["id"] for a in client.get(url, headers=tokens["dave"]).json()] == [ids_["carol"]]


def test_familiar_followers(client, people, entity):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["carol"])
    follow(client, tokens["bob"], ids_["dave"])
    follow(client, tokens["carol"], ids_["dave"])
    response = client.get("/api/v1/accounts/familiar_followers", headers=tokens["alice"],
                          params={"id[]": [ids_["dave"], ids_["bob"], "99999"]})
    assert response.status_code == 200
    body = response.json()
    for item in body:
        entity("FamiliarFollowers", item)
    assert [item["id"] for item in body] == [ids_["dave"], ids_["bob"]]
    assert sorted(a["id"] for a in body[0]["accounts"]) == sorted([ids_["bob"], ids_["carol"]])
    assert body[1]["accounts"] == []
    as_json = client.request("GET", "/api/v1/accounts/familiar_followers",
                             headers=tokens["alice"], json={"id": [ids_["dave"]]})
    assert [item["id"] for item in as_json.json()] == [ids_["dave"]]  # Mastodon.py sends JSON
    # Followers who hide their collections are left out; an account hiding its own shows none.
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["carol"],
                 data={"hide_collections": "true"})
    again = client.get("/api/v1/accounts/familiar_followers", headers=tokens["alice"],
                       params={"id[]": [ids_["dave"]]}).json()
    assert [a["id"] for a in again[0]["accounts"]] == [ids_["bob"]]
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["dave"],
                 data={"hide_collections": "true"})
    assert client.get("/api/v1/accounts/familiar_followers", headers=tokens["alice"],
                      params={"id[]": [ids_["dave"]]}).json() == [{"id": ids_["dave"],
                                                                    "accounts": []}]


def test_familiar_followers_read_the_smaller_side(client, people, monkeypatch):
    """An account with more followers than the viewer follows is checked through the viewer's
    follow edges; one with fewer, through its followers — both give the same answer."""
    from stratus.repo import relationships as graph_repo

    ids_, tokens = people
    erin = auth(user_token(make_app(client), make_user("erin"), scopes=("read", "follow")))
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["carol"])
    follow(client, tokens["bob"], ids_["dave"])
    calls = []
    original = graph_repo.followers
    monkeypatch.setattr(graph_repo, "followers",
                        lambda *a, **k: calls.append(a[0]) or original(*a, **k))
    url = "/api/v1/accounts/familiar_followers"
    # dave has 1 follower, fewer than the 2 alice follows: his followers are read.
    first = client.get(url, headers=tokens["alice"], params={"id[]": [ids_["dave"]]}).json()
    assert calls == [ids_["dave"]]
    assert [a["id"] for a in first[0]["accounts"]] == [ids_["bob"]]
    follow(client, tokens["carol"], ids_["dave"])
    follow(client, erin, ids_["dave"])
    # dave has 3 followers now, more than the 2 alice follows: her edges are read
    second = client.get(url, headers=tokens["alice"], params={"id[]": [ids_["dave"]]}).json()
    assert calls == [ids_["dave"]]
    assert sorted(a["id"] for a in second[0]["accounts"]) == sorted([ids_["bob"], ids_["carol"]])


# --- relationships --------------------------------------------------------------------------------
def test_relationships_answer_every_field_for_existing_accounts_in_order(client, people,
                                                                          entity):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["carol"], ids_["alice"])
    client.post(f"/api/v1/accounts/{ids_['dave']}/mute", headers=tokens["alice"],
                data={"notifications": "false"})
    client.post(f"/api/v1/accounts/{ids_['carol']}/note", headers=tokens["alice"],
                data={"comment": "met at the fair"})
    response = client.get("/api/v1/accounts/relationships", headers=tokens["alice"], params={
        "id[]": [ids_["dave"], ids_["bob"], "424242", "x", ids_["carol"], ids_["bob"]]})
    body = response.json()
    for item in body:
        entity("Relationship", item)
    assert [r["id"] for r in body] == [ids_["dave"], ids_["bob"], ids_["carol"]]
    dave, bob, carol = body
    assert (dave["muting"], dave["muting_notifications"], dave["muting_expires_at"]) == \
        (True, False, None)
    assert bob["following"] is True and bob["followed_by"] is False
    assert carol["followed_by"] is True and carol["note"] == "met at the fair"
    assert client.get("/api/v1/accounts/relationships",
                      headers={}).status_code == 401


def test_relationships_leave_out_suspended_accounts_unless_asked(client, people):
    ids_, tokens = people
    base.update(keys.account_profile(ids_["bob"]), "SET suspended_at = :t",
                vals={":t": "2026-11-22T00:00:00.000Z"})
    url = "/api/v1/accounts/relationships"
    assert client.get(url, headers=tokens["alice"], params={"id[]": [ids_["bob"]]}).json() == []
    shown = client.get(url, headers=tokens["alice"],
                       params={"id[]": [ids_["bob"]], "with_suspended": "true"}).json()
    assert [r["id"] for r in shown] == [ids_["bob"]]


def test_a_private_note_answers_the_real_relationship(client, people):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    noted = client.post(f"/api/v1/accounts/{ids_['bob']}/note", headers=tokens["alice"],
                        data={"comment": "friend"}).json()
    assert noted["following"] is True and noted["note"] == "friend"


# --- endorsements ---------------------------------------------------------------------------------
def test_endorsements_need_a_follow_and_end_with_it(client, people, entity):
    ids_, tokens = people
    refused = client.post(f"/api/v1/accounts/{ids_['bob']}/pin", headers=tokens["alice"])
    assert refused.status_code == 422
    assert refused.json()["error"] == ("Validation failed: You must be already following the "
                                       "person you want to endorse")
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["carol"])
    for target in ("bob", "carol"):
        endorsed = client.post(f"/api/v1/accounts/{ids_[target]}/endorse",
                               headers=tokens["alice"])
        assert endorsed.status_code == 200 and endorsed.json()["endorsed"] is True
    assert client.post(f"/api/v1/accounts/{ids_['bob']}/pin",
                       headers=tokens["alice"]).status_code == 200  # idempotent
    mine = client.get("/api/v1/endorsements", headers=tokens["alice"])
    assert [a["id"] for a in mine.json()] == [ids_["carol"], ids_["bob"]]
    entity("Account", mine.json()[0])
    public = client.get(f"/api/v1/accounts/{ids_['alice']}/endorsements")
    assert [a["id"] for a in public.json()] == [ids_["carol"], ids_["bob"]]
    client.post(f"/api/v1/accounts/{ids_['bob']}/mute", headers=tokens["dave"])
    seen_by_dave = client.get(f"/api/v1/accounts/{ids_['alice']}/endorsements",
                              headers=tokens["dave"])
    assert [a["id"] for a in seen_by_dave.json()] == [ids_["carol"]]
    client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["alice"])
    unpinned = client.post(f"/api/v1/accounts/{ids_['carol']}/unpin", headers=tokens["alice"])
    assert unpinned.json()["endorsed"] is False
    assert client.get("/api/v1/endorsements", headers=tokens["alice"]).json() == []
