"""The interop harness proven on its own (no Stratus federation needed): two Fedify peers
federate with each other over loopback, `stratus_live` runs the background pipeline, and
`two_stacks` gives two separate dev servers."""

from __future__ import annotations

import httpx
import pytest

from tests.interop.harness import FedifyPeer, free_port, peer_missing, wait_for
from tests.rig import mastodon_py_users


@pytest.fixture
def two_peers(tmp_path):
    reason = peer_missing()
    if reason:
        pytest.skip(reason)
    peers = []
    try:
        for name in ("alice", "bob"):
            peers.append(FedifyPeer.start(free_port(), tmp_path / f"{name}.log", name))
        yield peers
    finally:
        for peer in peers:
            peer.stop()


def test_two_fedify_peers_follow_post_reply_like_and_unfollow(two_peers):
    alice, bob = two_peers
    follow = alice.ctl("follow", target=bob.actor)
    bob.received("Follow", lambda e: e["id"] == follow["id"])
    alice.received("Accept", lambda e: e["object"] == follow["id"], "of alice's Follow")
    assert alice.following() == {bob.actor: "accepted"}
    assert bob.followers() == [alice.actor]

    # The actor and its collections, as our side fetches them.
    actor = httpx.get(bob.actor, headers={"Accept": "application/activity+json"}).json()
    assert actor["type"] == "Person" and actor["inbox"] == f"{bob.actor}/inbox"
    assert actor["publicKey"]["publicKeyPem"].startswith("-----BEGIN PUBLIC KEY-----")

    note = bob.ctl("post", content="<p>hello from bob</p>")["object"]
    create = alice.received("Create", lambda e: e["object"] == note, "of bob's note")
    assert create["activity"]["object"]["content"] == "<p>hello from bob</p>"
    fetched = httpx.get(note, headers={"Accept": "application/activity+json"}).json()
    assert fetched["type"] == "Note" and fetched["attributedTo"] == bob.actor

    reply = alice.ctl("post", content="<p>hi bob</p>", inReplyTo=note)["object"]
    got = bob.received("Create", lambda e: e["object"] == reply, "of alice's reply")
    assert got["activity"]["object"]["inReplyTo"] == note
    like = alice.ctl("like", object=note)
    bob.received("Like", lambda e: e["id"] == like["id"] and e["object"] == note)
    bob.ctl("update-note", object=note, content="<p>edited</p>")
    update = alice.received("Update", lambda e: e["object"] == note)
    assert update["activity"]["object"]["content"] == "<p>edited</p>"
    bob.ctl("update-profile", name="Bobby")
    alice.received("Update", lambda e: e["object"] == bob.actor, "of bob's profile")
    assert httpx.get(bob.actor, headers={"Accept": "application/activity+json"}).json()[
        "name"] == "Bobby"
    bob.ctl("delete", object=note)
    alice.received("Delete", lambda e: e["object"] == note)
    assert httpx.get(note, headers={"Accept": "application/activity+json"}).status_code == 404

    alice.ctl("unfollow", target=bob.actor)
    bob.received("Undo", lambda e: e["object"] == follow["id"])
    assert bob.followers() == []


def test_stratus_live_delivers_without_drain(stratus_live):
    """The pump thread runs the pipeline: a post reaches a follower's home with no drain()."""
    poster, reader = mastodon_py_users(stratus_live.base_url, "poster", "reader")
    reader.account_follow(poster.me().id)
    status = poster.status_post("pumped through the pipeline")
    wait_for(lambda: any(s.id == status.id for s in reader.timeline_home()),
             "the post in the follower's home timeline")
