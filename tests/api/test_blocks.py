"""Blocks, mutes and domain blocks: what they end, what they hide and from whom (as Mastodon's
StatusPolicy and StatusFilter do), the notifications they stop, expiring mutes, their lists."""

from __future__ import annotations

import pytest
from stratus.api.accounts import operator
from stratus.repo import base, keys

from tests.rig import ALICE, account, deliver, follow, lock, notifications, post, relationship, remote_id


def block(client, headers, account_id) -> dict:
    response = client.post(f"/api/v1/accounts/{account_id}/block", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def mute(client, headers, account_id, **data) -> dict:
    response = client.post(f"/api/v1/accounts/{account_id}/mute", headers=headers, data=data)
    assert response.status_code == 200, response.text
    return response.json()


def reply(client, headers, to, text) -> dict:
    return post(client, headers, status=text, in_reply_to_id=to["id"])


def context_ids(client, headers, status) -> tuple[list[str], list[str]]:
    body = client.get(f"/api/v1/statuses/{status['id']}/context", headers=headers).json()
    return [s["id"] for s in body["ancestors"]], [s["id"] for s in body["descendants"]]


# --- blocks ---------------------------------------------------------------------------------------
def test_a_block_ends_follows_and_requests_both_ways(client, people, drain, entity):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["bob"], ids_["alice"])
    client.post(f"/api/v1/accounts/{ids_['bob']}/endorse", headers=tokens["alice"])
    lock(client, tokens["carol"])
    lock(client, tokens["alice"])
    follow(client, tokens["carol"], ids_["dave"])
    follow(client, tokens["dave"], ids_["alice"])  # a request to alice
    follow(client, tokens["alice"], ids_["carol"])  # alice's request to carol
    drain()
    body = block(client, tokens["alice"], ids_["bob"])
    entity("Relationship", body)
    assert (body["blocking"], body["following"], body["followed_by"], body["endorsed"]) == \
        (True, False, False, False)
    assert relationship(client, tokens["bob"], ids_["alice"])["blocked_by"] is True
    for name, requester in (("carol", "alice"), ("alice", "dave")):
        block(client, tokens[name], ids_[requester])
    assert client.get("/api/v1/follow_requests", headers=tokens["alice"]).json() == []
    assert client.get("/api/v1/follow_requests", headers=tokens["carol"]).json() == []
    assert relationship(client, tokens["alice"], ids_["carol"])["requested"] is False
    drain()
    assert account(client, ids_["alice"])["followers_count"] == 0
    assert account(client, ids_["alice"])["following_count"] == 0
    assert account(client, ids_["bob"])["followers_count"] == 0
    # The follows' and requests' notifications went with them.
    assert notifications(ids_["alice"]) == [] and notifications(ids_["carol"]) == []
    blocked = client.get("/api/v1/blocks", headers=tokens["alice"])
    assert [a["id"] for a in blocked.json()] == [ids_["dave"], ids_["bob"]]
    entity("Account", blocked.json()[0])
    assert block(client, tokens["alice"], ids_["bob"])["blocking"] is True  # idempotent


def test_the_blocked_cannot_follow_and_the_blocker_must_unblock_first(client, people):
    ids_, tokens = people
    block(client, tokens["alice"], ids_["bob"])
    refused = client.post(f"/api/v1/accounts/{ids_['alice']}/follow", headers=tokens["bob"])
    assert refused.status_code == 403 and refused.json()["error"] == "This action is not allowed"
    assert client.post(f"/api/v1/accounts/{ids_['bob']}/follow",
                       headers=tokens["alice"]).status_code == 403
    unblocked = client.post(f"/api/v1/accounts/{ids_['bob']}/unblock", headers=tokens["alice"])
    assert unblocked.json()["blocking"] is False
    assert follow(client, tokens["bob"], ids_["alice"])["following"] is True
    assert client.get("/api/v1/blocks", headers=tokens["alice"]).json() == []


def test_a_block_hides_the_blockers_statuses_from_the_blocked(client, people):
    ids_, tokens = people
    mine = post(client, tokens["alice"], status="not for bob")
    theirs = post(client, tokens["bob"], status="bob speaks")
    block(client, tokens["alice"], ids_["bob"])
    # Mastodon's StatusPolicy: the blocked get 404 for the blocker's statuses...
    assert client.get(f"/api/v1/statuses/{mine['id']}", headers=tokens["bob"]).status_code == 404
    assert client.get(f"/api/v1/statuses?id[]={mine['id']}", headers=tokens["bob"]).json() == []
    assert client.get(f"/api/v1/accounts/{ids_['alice']}/statuses",
                      headers=tokens["bob"]).json() == []
    assert client.post(f"/api/v1/statuses/{mine['id']}/favourite",
                       headers=tokens["bob"]).status_code == 404
    # ...while the blocker may still open the blocked account's status, not like or boost it.
    assert client.get(f"/api/v1/statuses/{theirs['id']}",
                      headers=tokens["alice"]).status_code == 200
    for action in ("favourite", "reblog"):
        refused = client.post(f"/api/v1/statuses/{theirs['id']}/{action}", headers=tokens["alice"])
        assert refused.status_code == 403
    assert client.post(f"/api/v1/statuses/{theirs['id']}/bookmark",
                       headers=tokens["alice"]).status_code == 200
    # Others see both as before.
    assert client.get(f"/api/v1/statuses/{mine['id']}", headers=tokens["carol"]).status_code == 200


def test_a_block_in_the_middle_of_a_conversation(client, people):
    """Context leaves out the blocked account's replies for the blocker, and the blocker's for
    the blocked (Mastodon's StatusFilter); replies to a hidden status stay, and so do one's
    own. Others see the whole thread."""
    ids_, tokens = people
    root = post(client, tokens["carol"], status="What's for dinner?")
    a1 = reply(client, tokens["alice"], root, "Soup")
    b1 = reply(client, tokens["bob"], root, "Pie")
    c2 = reply(client, tokens["carol"], b1, "Pie it is")
    b2 = reply(client, tokens["bob"], a1, "Soup again?")
    everything = [a1["id"], b2["id"], b1["id"], c2["id"]]
    assert context_ids(client, tokens["dave"], root) == ([], everything)
    block(client, tokens["alice"], ids_["bob"])
    assert context_ids(client, tokens["alice"], root) == ([], [a1["id"], c2["id"]])
    assert context_ids(client, tokens["bob"], root) == ([], [b2["id"], b1["id"], c2["id"]])
    assert context_ids(client, tokens["bob"], b2) == ([root["id"]], [])
    assert context_ids(client, tokens["dave"], root) == ([], everything)
    assert context_ids(client, {}, root) == ([], everything)


def test_a_block_takes_away_the_blocked_accounts_notifications_and_stops_new_ones(
        client, people, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="hello")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    post(client, tokens["bob"], status="hey @alice")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["carol"])
    drain()
    assert sorted(notifications(ids_["alice"])) == sorted(
        [("favourite", ids_["bob"]), ("mention", ids_["bob"]), ("favourite", ids_["carol"])])
    block(client, tokens["alice"], ids_["bob"])
    drain()
    assert notifications(ids_["alice"]) == [("favourite", ids_["carol"])]
    post(client, tokens["bob"], status="still there, @alice?")
    drain()
    assert notifications(ids_["alice"]) == [("favourite", ids_["carol"])]


def test_a_blocks_notification_sweep_continues_in_further_jobs(client, people, drain,
                                                               monkeypatch):
    from stratus.workers import effects

    monkeypatch.setattr(effects, "BLOCK_SWEEP", 2)
    ids_, tokens = people
    for n in range(5):
        post(client, tokens["bob"], status=f"{n} @alice")
    post(client, tokens["carol"], status="hi @alice")
    drain()
    assert len(notifications(ids_["alice"])) == 6
    block(client, tokens["alice"], ids_["bob"])
    drain()
    assert notifications(ids_["alice"]) == [("mention", ids_["carol"])]


def test_staff_mentions_reach_those_who_block_them(client, people, drain):
    ids_, tokens = people
    base.update(keys.account_user(ids_["bob"]), "SET role_id = :r",
                vals={":r": operator.role_id_for("moderator")})
    block(client, tokens["alice"], ids_["bob"])
    post(client, tokens["bob"], status="a word from the moderators, @alice")
    drain()
    assert notifications(ids_["alice"]) == [("mention", ids_["bob"])]


def test_unfavourite_and_unbookmark_work_after_being_blocked(client, people):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="liked, then blocked")
    for action in ("favourite", "bookmark"):
        client.post(f"/api/v1/statuses/{status['id']}/{action}", headers=tokens["bob"])
    boost = client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"]).json()
    block(client, tokens["alice"], ids_["bob"])
    assert client.get(f"/api/v1/statuses/{status['id']}", headers=tokens["bob"]).status_code == 404
    for action in ("unfavourite", "unbookmark", "unreblog"):
        undone = client.post(f"/api/v1/statuses/{status['id']}/{action}", headers=tokens["bob"])
        assert undone.status_code == 200, action
    assert client.get(f"/api/v1/statuses/{boost['id']}").status_code == 404


def test_who_liked_and_boosted_leaves_out_blocked_and_muted_accounts(client, people):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="popular")
    for name in ("bob", "carol", "dave"):
        client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens[name])
    block(client, tokens["alice"], ids_["bob"])
    mute(client, tokens["alice"], ids_["carol"])
    url = f"/api/v1/statuses/{status['id']}/favourited_by"
    assert [a["id"] for a in client.get(url, headers=tokens["alice"]).json()] == [ids_["dave"]]
    assert len(client.get(url).json()) == 3


# --- mutes ----------------------------------------------------------------------------------------
def test_a_mute_hides_replies_in_threads_but_not_a_direct_read(client, people, entity):
    ids_, tokens = people
    root = post(client, tokens["alice"], status="thread")
    answer = reply(client, tokens["bob"], root, "noise")
    body = mute(client, tokens["alice"], ids_["bob"])
    entity("Relationship", body)
    assert (body["muting"], body["muting_notifications"], body["muting_expires_at"]) == \
        (True, True, None)
    assert body["following"] is False and body["blocking"] is False
    assert context_ids(client, tokens["alice"], root) == ([], [])
    assert client.get(f"/api/v1/statuses/{answer['id']}", headers=tokens["alice"]).status_code \
        == 200
    assert context_ids(client, tokens["bob"], root) == ([], [answer["id"]])  # muting is silent
    assert client.get(f"/api/v1/accounts/{ids_['bob']}/statuses",
                      headers=tokens["alice"]).json()[0]["id"] == answer["id"]


@pytest.mark.parametrize("data, notified", [({}, False), ({"notifications": "true"}, False),
                                            ({"notifications": "false"}, True)])
def test_a_mute_silences_notifications_unless_told_otherwise(client, people, drain, data,
                                                             notified):
    ids_, tokens = people
    mute(client, tokens["alice"], ids_["bob"], **data)
    post(client, tokens["bob"], status="hello @alice")
    follow(client, tokens["bob"], ids_["alice"])
    drain()
    expected = [("follow", ids_["bob"]), ("mention", ids_["bob"])] if notified else []
    assert notifications(ids_["alice"]) == expected


def test_an_expiring_mute(client, people, monkeypatch, entity):
    ids_, tokens = people
    root = post(client, tokens["alice"], status="thread")
    answer = reply(client, tokens["bob"], root, "noise")
    body = mute(client, tokens["alice"], ids_["bob"], duration="3600", notifications="false")
    assert body["muting"] is True and body["muting_notifications"] is False
    expires = body["muting_expires_at"]
    assert expires.endswith(".000Z")
    listed = client.get("/api/v1/mutes", headers=tokens["alice"]).json()
    assert [a["id"] for a in listed] == [ids_["bob"]] and listed[0]["mute_expires_at"] == expires
    entity("MutedAccount", listed[0])
    assert context_ids(client, tokens["alice"], root) == ([], [])
    # An hour and a second later the mute is over, whether or not DynamoDB swept it yet.
    real_now = base.now_epoch
    monkeypatch.setattr(base, "now_epoch", lambda: real_now() + 3601)
    assert relationship(client, tokens["alice"], ids_["bob"])["muting"] is False
    assert client.get("/api/v1/mutes", headers=tokens["alice"]).json() == []
    assert context_ids(client, tokens["alice"], root) == ([], [answer["id"]])


def test_muting_again_changes_the_mute_and_unmute_ends_it(client, people):
    ids_, tokens = people
    mute(client, tokens["alice"], ids_["bob"], duration="600")
    mute(client, tokens["alice"], ids_["carol"])
    again = mute(client, tokens["alice"], ids_["bob"], notifications="false")
    assert again["muting_expires_at"] is None and again["muting_notifications"] is False
    listed = client.get("/api/v1/mutes?limit=1", headers=tokens["alice"])
    assert [a["id"] for a in listed.json()] == [ids_["carol"]]  # the changed mute kept its place
    assert 'rel="next"' in listed.headers["Link"]
    undone = client.post(f"/api/v1/accounts/{ids_['bob']}/unmute", headers=tokens["alice"])
    assert undone.json()["muting"] is False
    assert [a["id"] for a in client.get("/api/v1/mutes", headers=tokens["alice"]).json()] == \
        [ids_["carol"]]
    assert mute(client, tokens["alice"], ids_["alice"])["muting"] is False  # yourself: no-op


# --- domain blocks --------------------------------------------------------------------------------
def test_user_domain_blocks(client, people):
    _, tokens = people
    url = "/api/v1/domain_blocks"
    for domain in ("spam.example", "Bad.Example", "bücher.example", "spam.example"):
        response = client.post(url, headers=tokens["alice"], data={"domain": domain})
        assert response.status_code == 200 and response.json() == {}
    listed = client.get(url, headers=tokens["alice"])
    assert listed.json() == ["xn--bcher-kva.example", "bad.example", "spam.example"]
    page = client.get(url + "?limit=1", headers=tokens["alice"])
    assert page.json() == ["xn--bcher-kva.example"] and 'rel="next"' in page.headers["Link"]
    client.request("DELETE", url, headers=tokens["alice"], data={"domain": "bad.example"})
    assert client.get(url, headers=tokens["alice"]).json() == ["xn--bcher-kva.example",
                                                               "spam.example"]
    for bad in ({}, {"domain": ""}, {"domain": "not a domain"}):
        response = client.post(url, headers=tokens["alice"], data=bad)
        assert response.status_code == 422, bad
    assert client.get(url, headers=tokens["bob"]).json() == []


def test_attack_a_peer_on_another_port_escapes_user_domain_blocks(client, drain, people, peer):
    """A peer on a non-default port (`127.0.0.1:<port>`, its accounts stored under that host)
    is blocked by a user's domain block however it is typed, with the port or without: a
    block names the host name, ports never matter (Mastodon's account domain blocks), and
    every check of it compares through the one host normaliser. It was compared as
    `host:port` against a block stored without the port: the peer's accounts were never
    blocked (its mention notified, the relationship false)."""
    ids_, tokens = people
    host = f"127.0.0.1:{peer.site.port}"
    for who, typed in (("alice", host), ("bob", "127.0.0.1"), ("carol", f"0x7f.1:{peer.site.port}")):
        response = client.post("/api/v1/domain_blocks", headers=tokens[who], data={"domain": typed})
        assert response.status_code == 200, response.text
        assert client.get("/api/v1/domain_blocks", headers=tokens[who]).json() == ["127.0.0.1"]
    mentioning = [ALICE, "http://localhost:8000/users/bob", "http://localhost:8000/users/carol",
                  "http://localhost:8000/users/dave"]
    note = peer.note("<p>hello all</p>", cc=mentioning, tag=[
        {"type": "Mention", "href": uri, "name": f"@{uri.rsplit('/', 1)[1]}@localhost:8000"}
        for uri in mentioning])
    deliver(client, drain, peer, peer.activity("Create", note))
    remote = remote_id(peer)
    for who in ("alice", "bob", "carol"):
        assert relationship(client, tokens[who], remote)["domain_blocking"] is True, who
        assert notifications(ids_[who]) == [], who
    # dave blocks nothing: mentioned, notified
    assert relationship(client, tokens["dave"], remote)["domain_blocking"] is False
    assert notifications(ids_["dave"]) == [("mention", remote)]
    deliver(client, drain, peer, peer.activity("Follow", ALICE))  # refused: a Reject, no follow
    assert relationship(client, tokens["alice"], remote)["followed_by"] is False
    assert [body["type"] for _, _, body in peer.site.posts] == ["Reject"]
    for bad in ("127.0.0.1:99999", "a..b:8443", "peer.example\\@evil.example"):
        response = client.post("/api/v1/domain_blocks", headers=tokens["dave"], data={"domain": bad})
        assert response.status_code == 422, bad


def test_a_mute_duration_past_any_date_is_refused(client, people):
    """Found by `make fuzz` on filters' expires_in: seconds beyond year 9999 overflowed (500)."""
    ids_, tokens = people
    response = client.post(f"/api/v1/accounts/{ids_['bob']}/mute", headers=tokens["alice"],
                           data={"duration": str(10 ** 30)})
    assert response.status_code == 422
    assert response.json()["error"] == "Validation failed: Duration is invalid"
    relationship = client.get("/api/v1/accounts/relationships", headers=tokens["alice"],
                              params={"id[]": ids_["bob"]}).json()[0]
    assert relationship["muting"] is False  # nothing half-written
