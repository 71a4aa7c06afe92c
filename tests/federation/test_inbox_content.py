"""The inbox, continued: what a remote account's activities do to what local users read —
follows of remote accounts accepted and rejected, posts in the home timeline, direct
messages, edits, deletes, profile updates, the actor's deletion, boosts of remote statuses,
and a Move of followers."""

from __future__ import annotations

import json

from tests.rig import ALICE, deliver, notes, relationship, remote_id
from tests.rig.peers import PUBLIC, Peer


def follow_remote(client, drain, peer: Peer, headers) -> str:
    """alice (her home feed active) follows the peer's actor through the API; the Follow
    reaches its inbox."""
    client.get("/api/v1/timelines/home", headers=headers)  # 206: the feed is being built
    deliver(client, drain, peer, peer.activity("Like", "http://localhost:8000/nothing"))
    bob = remote_id(peer)
    response = client.post(f"/api/v1/accounts/{bob}/follow", headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["requested"] is True
    drain()
    return bob


def sent_follow(peer_site) -> dict:
    follows = peer_site.received("Follow")
    assert len(follows) == 1
    return follows[0]


def home(client, headers) -> list[dict]:
    response = client.get("/api/v1/timelines/home", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_follow_is_answered_with_an_accept(client, drain, peer, peer_site, alice):
    follow = peer.activity("Follow", ALICE)
    deliver(client, drain, peer, follow)
    accepts = peer_site.received("Accept")
    assert len(accepts) == 1
    assert accepts[0]["actor"] == ALICE and accepts[0]["object"]["id"] == follow["id"]


def test_accept_of_our_follow_by_id_makes_us_follow(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = follow_remote(client, drain, peer, headers)
    follow = sent_follow(peer_site)
    assert follow["actor"] == ALICE and follow["object"] == peer.uri
    deliver(client, drain, peer, peer.activity("Accept", follow["id"]))
    seen = relationship(client, headers, bob)
    assert (seen["following"], seen["requested"]) == (True, False)


def test_accept_with_the_follow_embedded(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = follow_remote(client, drain, peer, headers)
    deliver(client, drain, peer, peer.activity("Accept", sent_follow(peer_site)))
    assert relationship(client, headers, bob)["following"] is True


def test_reject_of_our_follow_drops_the_request(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = follow_remote(client, drain, peer, headers)
    deliver(client, drain, peer, peer.activity("Reject", sent_follow(peer_site)))
    seen = relationship(client, headers, bob)
    assert (seen["following"], seen["requested"]) == (False, False)


def _following(client, drain, peer, peer_site, headers) -> str:
    bob = follow_remote(client, drain, peer, headers)
    deliver(client, drain, peer, peer.activity("Accept", sent_follow(peer_site)))
    return bob


def test_a_followed_accounts_post_reaches_home(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = _following(client, drain, peer, peer_site, headers)
    note = peer.note("<p>Hello from afar</p>")
    deliver(client, drain, peer, peer.activity("Create", note, to=[PUBLIC], cc=[peer.followers]))
    timeline = home(client, headers)
    assert [(s["account"]["id"], s["content"], s["uri"]) for s in timeline] == [
        (bob, "<p>Hello from afar</p>", note["id"])]


def test_a_direct_message_is_a_mention_and_a_conversation(
        client, drain, peer, peer_site, alice):
    """From an account alice follows (Mastodon filters private mentions from strangers)."""
    headers = alice[1]
    _following(client, drain, peer, peer_site, headers)
    note = peer.note('<p><span class="h-card"><a href="http://localhost:8000/@alice">@alice'
                     '</a></span> just for you</p>', to=[ALICE], cc=[],
                     tag=[{"type": "Mention", "href": ALICE, "name": "@alice@localhost:8000"}])
    deliver(client, drain, peer, peer.activity("Create", note, to=[ALICE]))
    found = notes(client, headers)
    assert [(n["type"], n["status"]["visibility"]) for n in found] == [("mention", "direct")]
    conversations = client.get("/api/v1/conversations", headers=headers).json()
    assert [c["last_status"]["uri"] for c in conversations] == [note["id"]]


def test_create_of_someone_elses_note_is_dropped(client, drain, peer, peer_site, alice):
    headers = alice[1]
    _following(client, drain, peer, peer_site, headers)
    note = peer.note("<p>forged</p>", attributedTo=peer_site.url("/users/carol"))
    deliver(client, drain, peer, peer.activity("Create", note))
    assert home(client, headers) == []


def test_update_of_a_note_is_an_edit_and_delete_removes_it(
        client, drain, peer, peer_site, alice):
    headers = alice[1]
    _following(client, drain, peer, peer_site, headers)
    note = peer.note("<p>first</p>")
    deliver(client, drain, peer, peer.activity("Create", note))
    edited = {**note, "content": "<p>second</p>", "updated": "2026-01-02T00:00:00Z"}
    deliver(client, drain, peer, peer.activity("Update", edited))
    [status] = home(client, headers)
    assert status["content"] == "<p>second</p>" and status["edited_at"] is not None
    deliver(client, drain, peer, peer.activity("Delete", {"id": note["id"], "type": "Tombstone"}))
    assert home(client, headers) == []
    response = client.get(f"/api/v1/statuses/{status['id']}", headers=headers)
    assert response.status_code == 404


def test_update_of_the_actor_changes_the_profile(client, drain, peer, alice):
    headers = alice[1]
    deliver(client, drain, peer, peer.activity("Like", "http://localhost:8000/nothing"))
    bob = remote_id(peer)
    changed = {**peer.document, "name": "Robert"}
    deliver(client, drain, peer, peer.activity("Update", changed))
    account = client.get(f"/api/v1/accounts/{bob}", headers=headers).json()
    assert account["display_name"] == "Robert"


def test_update_of_another_actor_is_dropped(client, drain, peer, peer_site, alice):
    headers = alice[1]
    carol = Peer(peer_site, "carol", name="Carol")
    deliver(client, drain, carol, carol.activity("Like", "http://localhost:8000/nothing"))
    deliver(client, drain, peer, peer.activity("Update", {**carol.document, "name": "Hacked"}))
    account = client.get(f"/api/v1/accounts/{remote_id(carol)}", headers=headers).json()
    assert account["display_name"] == "Carol"


def test_delete_of_the_actor_suspends_it(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = _following(client, drain, peer, peer_site, headers)
    deliver(client, drain, peer, peer.activity("Delete", peer.uri, to=[PUBLIC]))
    response = client.get(f"/api/v1/accounts/{bob}", headers=headers)
    assert response.status_code == 200
    assert response.json().get("suspended") is True


def test_announce_of_a_remote_status_reaches_home(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = _following(client, drain, peer, peer_site, headers)
    carol = Peer(peer_site, "carol")
    note = carol.note("<p>carol's post</p>")
    peer_site.serve(f"/users/carol/notes/{note['id'].rsplit('/', 1)[1]}", json.dumps(note),
               "application/activity+json")
    deliver(client, drain, peer, peer.activity("Announce", note["id"], to=[PUBLIC],
                                               cc=[peer.followers]))
    [boost] = home(client, headers)
    assert boost["account"]["id"] == bob
    assert boost["reblog"]["uri"] == note["id"]
    assert boost["reblog"]["content"] == "<p>carol's post</p>"


def test_move_takes_local_followers_to_the_new_account(
        client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = _following(client, drain, peer, peer_site, headers)
    new = Peer(peer_site, "newbob", alsoKnownAs=[peer.uri])
    deliver(client, drain, peer, peer.activity("Move", peer.uri, target=new.uri))
    newbob = remote_id(new)
    assert relationship(client, headers, bob)["following"] is False
    assert relationship(client, headers, newbob)["requested"] is True
    assert [f["object"] for f in peer_site.received("Follow")] == [peer.uri, new.uri]


def test_move_to_an_account_that_does_not_name_the_origin_is_dropped(
        client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = _following(client, drain, peer, peer_site, headers)
    Peer(peer_site, "stranger")
    deliver(client, drain, peer, peer.activity("Move", peer.uri, target=peer_site.url("/users/stranger")))
    assert relationship(client, headers, bob)["following"] is True


def test_undo_of_an_accept_ends_our_follow_quietly(client, drain, peer, peer_site, alice):
    headers = alice[1]
    bob = follow_remote(client, drain, peer, headers)
    accept = peer.activity("Accept", sent_follow(peer_site))
    deliver(client, drain, peer, accept)
    deliver(client, drain, peer, peer.activity("Undo", accept))
    seen = relationship(client, headers, bob)
    assert (seen["following"], seen["requested"]) == (False, False)
    assert peer_site.received("Undo") == []  # nothing sent back


def test_update_of_a_question_changes_the_poll_counts(client, drain, peer, peer_site, alice):
    headers = alice[1]
    _following(client, drain, peer, peer_site, headers)

    def question(yes: int, no: int) -> dict:
        return {"type": "Question", "endTime": "2099-01-01T00:00:00Z", "votersCount": yes + no,
                "oneOf": [{"type": "Note", "name": "yes", "replies": {"totalItems": yes}},
                          {"type": "Note", "name": "no", "replies": {"totalItems": no}}]}

    poll = {**peer.note("<p>yes or no?</p>"), **question(1, 0)}
    deliver(client, drain, peer, peer.activity("Create", poll))
    deliver(client, drain, peer, peer.activity("Update", {**poll, **question(3, 2)}))
    [status] = home(client, headers)
    assert [(o["title"], o["votes_count"]) for o in status["poll"]["options"]] == [
        ("yes", 3), ("no", 2)]
    assert status["poll"]["voters_count"] == 5
    assert status["edited_at"] is None  # counts only: not an edit
