"""A Delete of a status is its author's alone (docs/security.md, "Federation threats";
Mastodon's ActivityPub::Activity::Delete#delete_status finds the status by its URI and the
activity's actor): another account of the author's own server — a spammer's sock puppet on a
large server, any user of a server with open sign-ups — deletes nothing, by a Tombstone or a
bare URI, and its Delete of a status not yet here does not keep the author's Create out.

Both actors are real (keys, signed POSTs to our shared inbox) on one HostilePeer host."""

from __future__ import annotations

from typing import Any

from tests.rig.peers import PUBLIC


def known(peer) -> str:
    from stratus.federation import remote_accounts

    profile = remote_accounts.resolve(peer.uri)
    assert profile is not None
    return profile["id"]


def note(peer, number: int) -> dict[str, Any]:
    uri = f"{peer.uri}/statuses/{number}"
    return {"id": uri, "type": "Note", "attributedTo": peer.uri,
            "content": f"<p>status {number}</p>", "published": "2026-01-01T00:00:00Z",
            "to": [PUBLIC], "cc": [peer.followers], "url": uri}


def post(client, drain, peer, activity: dict[str, Any]) -> None:
    response = peer.post(client, activity, "/inbox")
    assert response.status_code == 202, response.text
    drain()


def status_of(uri: str) -> str | None:
    from stratus.repo import uris

    found = uris.find(uri)
    return found[1] if found is not None and found[0] == "status" else None


def test_attack_another_account_of_the_authors_server_deletes_a_status(client, drain, hostile):
    """Mallory, on Bob's own server, signs Deletes of Bob's status (as a Tombstone, as a bare
    URI): before the fix the status was gone; now it stays, and Bob's own Delete removes it."""
    bob, mallory = hostile.actor("bob"), hostile.actor("mallory", key_index=1)
    known(bob), known(mallory)
    created = note(bob, 1)
    post(client, drain, bob, bob.activity("Create", created, to=[PUBLIC]))
    status_id = status_of(created["id"])
    assert status_id is not None

    post(client, drain, mallory, mallory.activity(
        "Delete", {"id": created["id"], "type": "Tombstone"}, to=[PUBLIC]))
    post(client, drain, mallory, mallory.activity("Delete", created["id"], to=[PUBLIC]))
    assert status_of(created["id"]) == status_id
    shown = client.get(f"/api/v1/statuses/{status_id}")
    assert shown.status_code == 200 and shown.json()["content"] == "<p>status 1</p>"

    post(client, drain, bob, bob.activity("Delete", {"id": created["id"], "type": "Tombstone"},
                                          to=[PUBLIC]))
    assert status_of(created["id"]) is None
    assert client.get(f"/api/v1/statuses/{status_id}").status_code == 404


def test_a_delete_by_another_account_before_the_create_keeps_nothing_out(client, drain,
                                                                          hostile):
    """A Delete that arrives before its Create is remembered for its actor only (Mastodon's
    `delete_later!` is keyed by the status URI, but only its author's Delete finds anything):
    Mallory's Delete of Bob's next status does not stop Bob's Create; Bob's own early Delete
    does."""
    bob, mallory = hostile.actor("bob"), hostile.actor("mallory", key_index=1)
    known(bob), known(mallory)
    first, second = note(bob, 2), note(bob, 3)
    post(client, drain, mallory, mallory.activity("Delete", first["id"], to=[PUBLIC]))
    post(client, drain, bob, bob.activity("Create", first, to=[PUBLIC]))
    assert status_of(first["id"]) is not None
    post(client, drain, bob, bob.activity("Delete", second["id"], to=[PUBLIC]))
    post(client, drain, bob, bob.activity("Create", second, to=[PUBLIC]))
    assert status_of(second["id"]) is None
