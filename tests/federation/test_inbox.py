"""The inbox (functions/inbox, federation/inbox): a remote server's signed activities and their
effects, seen through the client API — follows, likes, boosts, blocks, reports, undos — and
what is refused: bad signatures (forged, expired, tampered), another actor's key, blocked and
unlisted domains, unknown inboxes; replays have one effect."""

from __future__ import annotations

import json

import pytest

from tests.rig import (
    ALICE,
    auth,
    deliver,
    make_app,
    make_user,
    notes,
    post,
    relationship,
    remote_id,
    user_token,
)
from tests.rig.peers import Peer


# --- follows --------------------------------------------------------------------------------------
def test_follow_makes_a_follower_with_a_notification(client, drain, peer, alice):
    headers = alice[1]
    deliver(client, drain, peer, peer.activity("Follow", ALICE), "/users/alice/inbox")
    bob = remote_id(peer)
    assert relationship(client, headers, bob)["followed_by"] is True
    found = notes(client, headers)
    assert [(n["type"], n["account"]["id"]) for n in found] == [("follow", bob)]
    assert found[0]["account"]["acct"] == f"bob@127.0.0.1:{peer.site.port}"
    me = client.get("/api/v1/accounts/verify_credentials", headers=headers).json()
    assert me["followers_count"] == 1


def test_follow_of_a_locked_account_is_a_request(client, drain, peer, alice):
    headers = alice[1]
    client.patch("/api/v1/accounts/update_credentials", data={"locked": "true"}, headers=headers)
    deliver(client, drain, peer, peer.activity("Follow", ALICE))
    bob = remote_id(peer)
    assert relationship(client, headers, bob)["requested_by"] is True
    assert relationship(client, headers, bob)["followed_by"] is False
    requests = client.get("/api/v1/follow_requests", headers=headers).json()
    assert [a["id"] for a in requests] == [bob]
    assert [n["type"] for n in notes(client, headers)] == ["follow_request"]


def test_undo_follow_ends_it(client, drain, peer, alice):
    headers = alice[1]
    follow = peer.activity("Follow", ALICE)
    deliver(client, drain, peer, follow)
    deliver(client, drain, peer, peer.activity("Undo", follow))
    assert relationship(client, headers, remote_id(peer))["followed_by"] is False
    me = client.get("/api/v1/accounts/verify_credentials", headers=headers).json()
    assert me["followers_count"] == 0


def test_follow_refused_when_the_user_blocks_the_actor_is_rejected(client, drain, peer, peer_site,
                                                                    alice):
    headers = alice[1]
    deliver(client, drain, peer, peer.activity("Like", "http://localhost:8000/nothing"))
    bob = remote_id(peer)
    assert client.post(f"/api/v1/accounts/{bob}/block", headers=headers).status_code == 200
    follow = peer.activity("Follow", ALICE)
    deliver(client, drain, peer, follow)
    assert relationship(client, headers, bob)["followed_by"] is False
    assert notes(client, headers) == []
    rejects = peer_site.received("Reject")
    assert len(rejects) == 1
    assert rejects[0]["actor"] == ALICE and rejects[0]["object"]["id"] == follow["id"]


def test_follow_refused_when_the_user_blocks_the_domain(client, drain, peer, peer_site, alice):
    headers = alice[1]
    response = client.post("/api/v1/domain_blocks", data={"domain": "127.0.0.1"},
                           headers=headers)
    assert response.status_code == 200, response.text
    deliver(client, drain, peer, peer.activity("Follow", ALICE))
    assert relationship(client, headers, remote_id(peer))["followed_by"] is False
    assert len(peer_site.received("Reject")) == 1


# --- likes and boosts -----------------------------------------------------------------------------
def status_of(client, headers, status_id: str) -> dict:
    response = client.get(f"/api/v1/statuses/{status_id}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_like_counts_and_notifies_and_undo_takes_it_back(client, drain, peer, alice):
    headers = alice[1]
    status = post(client, headers, status="like me")
    drain()
    like = peer.activity("Like", status["uri"])
    deliver(client, drain, peer, like)
    assert status_of(client, headers, status["id"])["favourites_count"] == 1
    found = notes(client, headers)
    assert [(n["type"], n["account"]["id"], n["status"]["id"]) for n in found] == [
        ("favourite", remote_id(peer), status["id"])]
    deliver(client, drain, peer, peer.activity("Undo", like))
    assert status_of(client, headers, status["id"])["favourites_count"] == 0


def test_a_like_with_an_emoji_counts_and_emoji_react_is_dropped(client, drain, peer, alice):
    """Mastodon's Like handler ignores `content` and `_misskey_reaction` (Misskey sends its
    reactions as Likes): the Like is a favourite; an EmojiReact is accepted and dropped."""
    headers = alice[1]
    status = post(client, headers, status="react")
    drain()
    deliver(client, drain, peer, peer.activity("EmojiReact", status["uri"], content="🔥"))
    assert status_of(client, headers, status["id"])["favourites_count"] == 0
    assert notes(client, headers) == []
    deliver(client, drain, peer, peer.activity("Like", status["uri"], content="🔥",
                                               _misskey_reaction="🔥"))
    assert status_of(client, headers, status["id"])["favourites_count"] == 1
    assert [n["type"] for n in notes(client, headers)] == ["favourite"]


def test_announce_is_a_boost_and_undo_removes_it(client, drain, peer, alice):
    headers = alice[1]
    status = post(client, headers, status="boost me")
    drain()
    announce = peer.activity("Announce", status["uri"], to=[documents_public()],
                             cc=[peer.followers])
    deliver(client, drain, peer, announce)
    assert status_of(client, headers, status["id"])["reblogs_count"] == 1
    found = notes(client, headers)
    assert [(n["type"], n["account"]["id"]) for n in found] == [("reblog", remote_id(peer))]
    rebloggers = client.get(f"/api/v1/statuses/{status['id']}/reblogged_by",
                            headers=headers).json()
    assert [a["id"] for a in rebloggers] == [remote_id(peer)]
    deliver(client, drain, peer, peer.activity("Undo", announce["id"]))
    assert status_of(client, headers, status["id"])["reblogs_count"] == 0


def documents_public() -> str:
    from tests.rig.peers import PUBLIC

    return PUBLIC


# --- blocks and reports ---------------------------------------------------------------------------
def test_block_ends_follows_both_ways(client, drain, peer, alice):
    alice_id, headers = alice
    deliver(client, drain, peer, peer.activity("Follow", ALICE))
    bob = remote_id(peer)
    from tests.rig import follow_edge

    follow_edge(alice_id, bob)
    drain()
    block = peer.activity("Block", ALICE)
    deliver(client, drain, peer, block)
    seen = relationship(client, headers, bob)
    assert (seen["following"], seen["followed_by"], seen["blocked_by"]) == (False, False, True)
    deliver(client, drain, peer, peer.activity("Undo", block))
    assert relationship(client, headers, bob)["blocked_by"] is False


def test_flag_becomes_a_report_for_moderators(client, drain, peer, alice):
    alice_id, headers = alice
    status = post(client, headers, status="reported")
    drain()
    mod_id = make_user("mod", role="Moderator")
    mod = auth(user_token(make_app(client, scopes="read write admin:read admin:write"), mod_id,
                          scopes=("read", "admin:read", "admin:write")))
    deliver(client, drain, peer, peer.activity("Flag", [ALICE, status["uri"]],
                                               content="spam from your user"))
    reports = client.get("/api/v1/admin/reports", headers=mod).json()
    assert len(reports) == 1
    report = reports[0]
    assert report["target_account"]["id"] == alice_id
    assert report["account"]["id"] == remote_id(peer)
    assert report["comment"] == "spam from your user"
    assert [s["id"] for s in report["statuses"]] == [status["id"]]
    assert [n["type"] for n in notes(client, mod)] == ["admin.report"]


# --- what is accepted and dropped ---------------------------------------------------------------
@pytest.mark.parametrize("kind", ["Add", "Remove", "Listen", "Read"])
def test_other_types_are_accepted_and_dropped(client, drain, peer, alice, kind):
    headers = alice[1]
    deliver(client, drain, peer, peer.activity(kind, ALICE))
    assert notes(client, headers) == []


def test_an_unknown_user_inbox_is_404(client, peer):
    response = peer.post(client, peer.activity("Follow", ALICE), "/users/nobody/inbox")
    assert response.status_code == 404
    assert response.json() == {"error": "Record not found"}


@pytest.mark.parametrize("body", [b"not json", b"[1]", b'{"type": "Follow"}'])
def test_malformed_activities_are_400(client, peer, body):
    response = peer.post(client, {}, body=body)
    assert response.status_code == 400
    assert "error" in response.json()


def test_delete_of_an_unknown_actor_is_202_without_fetching(client, drain, peer_site, peer):
    gone = Peer(peer_site, "gone")
    peer_site.serve("/users/gone", "{}", "application/activity+json", status=410)
    response = gone.post(client, gone.activity("Delete", gone.uri, to=[documents_public()]))
    assert response.status_code == 202
    assert peer_site.hits("/users/gone") == 0


# --- signatures -----------------------------------------------------------------------------------
def _no_follow(client, headers) -> None:
    assert notes(client, headers) == []


def test_forged_signature_is_401_and_does_nothing(client, drain, peer, alice):
    headers = alice[1]
    from tests.rig.peers import key_pair

    response = peer.post(client, peer.activity("Follow", ALICE), private_key=key_pair(1))
    assert response.status_code == 401
    assert "error" in response.json()
    drain()
    _no_follow(client, headers)


def test_expired_signature_is_401(client, drain, peer, alice):
    headers = alice[1]
    body = json.dumps(peer.activity("Follow", ALICE)).encode()
    response = client.post("/inbox", content=body, headers=peer.expired_headers("/inbox", body))
    assert response.status_code == 401
    assert "error" in response.json()
    drain()
    _no_follow(client, headers)


def test_tampered_body_is_401(client, drain, peer, alice):
    headers = alice[1]
    signed = json.dumps(peer.activity("Follow", ALICE)).encode()
    tampered = signed.replace(b"Follow", b"Block")
    response = client.post("/inbox", content=tampered, headers=peer.headers("/inbox", signed))
    assert response.status_code == 401
    drain()
    _no_follow(client, headers)


def test_another_actors_key_is_401(client, drain, peer_site, peer, alice):
    headers = alice[1]
    mallory = Peer(peer_site, "mallory", key_index=1)
    response = mallory.post(client, peer.activity("Follow", ALICE))  # bob's activity
    assert response.status_code == 401
    assert response.json()["error"]
    drain()
    _no_follow(client, headers)


def test_unsigned_is_401(client, peer):
    response = client.post("/inbox", content=json.dumps(peer.activity("Follow", ALICE)),
                           headers={"Content-Type": "application/activity+json"})
    assert response.status_code == 401


# --- replays ----------------------------------------------------------------------------------------
def test_the_same_activity_twice_has_one_effect(client, drain, peer, alice):
    headers = alice[1]
    status = post(client, headers, status="once")
    drain()
    like = peer.activity("Like", status["uri"])
    deliver(client, drain, peer, like)
    deliver(client, drain, peer, like)
    assert status_of(client, headers, status["id"])["favourites_count"] == 1
    assert len(notes(client, headers)) == 1
    deliver(client, drain, peer, peer.activity("Undo", like))
    deliver(client, drain, peer, like)  # replayed after its Undo: no effect
    assert status_of(client, headers, status["id"])["favourites_count"] == 0


def test_a_redelivered_job_has_one_effect(client, runtime, drain, peer, alice):
    from tests.rig import deliver_twice

    headers = alice[1]
    status = post(client, headers, status="once")
    drain()
    response = peer.post(client, peer.activity("Announce", status["uri"],
                                               to=[documents_public()]))
    assert response.status_code == 202
    assert deliver_twice(runtime, "InboxQueue") == 1
    drain()
    assert status_of(client, headers, status["id"])["reblogs_count"] == 1
    assert len(notes(client, headers)) == 1


# --- domain policy ---------------------------------------------------------------------------------
@pytest.fixture
def staff(client):
    app = make_app(client, scopes="read write admin:read admin:write")
    return auth(user_token(app, make_user("boss", role="Admin"),
                           scopes=("admin:read", "admin:write")))


def test_a_suspended_domain_is_403_before_anything_is_fetched(client, drain, peer_site, peer, alice,
                                                              staff):
    headers = alice[1]
    response = client.post("/api/v1/admin/domain_blocks", headers=staff,
                           json={"domain": "127.0.0.1", "severity": "suspend"})
    assert response.status_code == 200, response.text
    drain()
    response = peer.post(client, peer.activity("Follow", ALICE))
    assert response.status_code == 403
    assert response.json() == {"error": "Instance is not allowed to federate with us"}
    drain()
    assert peer_site.hits("/users/bob") == 0
    _no_follow(client, headers)


def test_limited_federation_takes_only_allowed_domains(client, drain, peer, alice, staff):
    from stratus.read import settings

    headers = alice[1]
    settings.set_value("limited_federation_mode", True)
    assert peer.post(client, peer.activity("Follow", ALICE)).status_code == 403
    response = client.post("/api/v1/admin/domain_allows", headers=staff,
                           json={"domain": "127.0.0.1"})
    assert response.status_code == 200, response.text
    deliver(client, drain, peer, peer.activity("Follow", ALICE))
    assert relationship(client, headers, remote_id(peer))["followed_by"] is True


def test_a_suspended_remote_accounts_activities_are_dropped(client, drain, peer, alice, staff):
    headers = alice[1]
    status = post(client, headers, status="not for them")
    deliver(client, drain, peer, peer.activity("Like", "http://localhost:8000/nothing"))
    response = client.post(f"/api/v1/admin/accounts/{remote_id(peer)}/action", headers=staff,
                           data={"type": "suspend"})
    assert response.status_code == 200, response.text
    drain()
    deliver(client, drain, peer, peer.activity("Like", status["uri"]))
    deliver(client, drain, peer, peer.activity("Follow", ALICE))
    assert status_of(client, headers, status["id"])["favourites_count"] == 0
    assert notes(client, headers) == []


def test_media_of_a_reject_media_domain_are_dropped(client, drain, peer, peer_site, alice, staff):
    headers = alice[1]
    response = client.post("/api/v1/admin/domain_blocks", headers=staff,
                           json={"domain": "127.0.0.1", "severity": "noop",
                                 "reject_media": True})
    assert response.status_code == 200, response.text
    drain()
    note = peer.note("<p>with a picture</p>", attachment=[{
        "type": "Document", "mediaType": "image/png", "url": peer_site.url("/picture.png"),
        "name": "a picture"}])
    deliver(client, drain, peer, peer.activity("Create", note))
    [found] = client.get(f"/api/v1/accounts/{remote_id(peer)}/statuses",
                         headers=headers).json()
    assert found["content"] == "<p>with a picture</p>"
    assert found["media_attachments"] == []


# --- the request itself -----------------------------------------------------------------------------
def test_a_body_over_a_megabyte_is_413(client, peer):
    activity = peer.activity("Create", peer.note("x" * (1024 * 1024)))
    response = peer.post(client, activity)
    assert response.status_code == 413
    assert "error" in response.json()


def test_an_activity_too_large_for_the_queue_is_413(client, peer):
    activity = peer.activity("Create", peer.note("x" * (300 * 1024)))
    response = peer.post(client, activity)
    assert response.status_code == 413


def test_a_base64_encoded_body_is_verified_over_its_bytes(client, drain, peer, alice):
    """API Gateway base64-encodes bodies it does not take for text (here: an unusual
    Content-Type); the digest is checked over the decoded bytes."""
    headers = alice[1]
    body = json.dumps(peer.activity("Follow", ALICE)).encode()
    signed = peer.headers("/inbox", body, content_type="application/octet-stream")
    response = client.post("/inbox", content=body, headers=signed)
    assert response.status_code == 202, response.text
    drain()
    assert relationship(client, headers, remote_id(peer))["followed_by"] is True


def test_an_rfc9421_signature_is_accepted_and_a_tampered_one_is_401(client, drain, peer, alice):
    """Fedify knocks with RFC 9421 first; it must work, and fail with 401 (not 202) when the
    body does not match, so that the peer can fall back to draft-cavage."""
    from stratus.federation import signatures

    headers = alice[1]
    body = json.dumps(peer.activity("Follow", ALICE)).encode()
    signed = signatures.sign_rfc9421("POST", "http://localhost:8000/inbox", key_id=peer.key_id,
                                     private_key=peer.private_key, body=body)
    tampered = client.post("/inbox", content=body.replace(b"Follow", b"Block"), headers=signed)
    assert tampered.status_code == 401
    response = client.post("/inbox", content=body, headers=signed)
    assert response.status_code == 202, response.text
    drain()
    assert relationship(client, headers, remote_id(peer))["followed_by"] is True


def test_a_post_from_a_known_actor_costs_a_few_reads(client, drain, peer, alice):
    """The shared inbox, an actor already stored: the domain policy, the key's account, and the
    message — nothing grows with the activity or the instance."""
    from tests.rig import count_dynamodb_calls

    deliver(client, drain, peer, peer.activity("Like", "http://localhost:8000/nothing"))
    calls, stop = count_dynamodb_calls()
    try:
        response = peer.post(client, peer.activity("Like", "http://localhost:8000/nothing"))
    finally:
        stop()
    assert response.status_code == 202
    # settings (limited federation?), the domain's blocks, the key's URI entry, the account,
    # the host's share of the inbox worker (federation/inbox/quota.py)
    assert calls == ["GetItem", "BatchGetItem", "GetItem", "GetItem", "UpdateItem"], calls
    calls, stop = count_dynamodb_calls()
    try:
        response = peer.post(client, peer.activity("Like", "http://localhost:8000/nothing"),
                             "/users/alice/inbox")
    finally:
        stop()
    assert response.status_code == 202
    assert calls[:2] == ["GetItem", "BatchGetItem"] and len(calls) == 7, calls  # + the owner


def test_the_worker_takes_its_sample_event(runtime, client):
    """events/InboxWorkerFunction.json as Lambda delivers it: a Like by an account that is not
    stored here is dropped, not failed (and a job of another kind is a failure)."""
    from local.lambda_runtime import invoke
    from tests.rig import sample

    event = sample("InboxWorkerFunction")
    assert invoke(runtime.stack, "InboxWorkerFunction", event) == {"batchItemFailures": []}
    event["Records"][0]["body"] = json.dumps({"job": "count", "event": "INSERT",
                                              "item_type": "status"})
    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

    with pytest.raises(BatchProcessingError):
        invoke(runtime.stack, "InboxWorkerFunction", event)
