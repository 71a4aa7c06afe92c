"""Our outbound signatures (stratus/federation/http.py, draft-cavage) checked by a real, strict
verifier: Fedify accepts an activity our user signed, fetching the key from our actor document
over HTTP, and refuses one signed by someone other than its actor. Needs only what main has
(signing and actor documents), not the inbox or delivery."""

from __future__ import annotations

import json

AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public"


def _create(actor: str, text: str) -> bytes:
    note = f"{actor}/statuses/1"
    return json.dumps({
        "@context": "https://www.w3.org/ns/activitystreams", "id": f"{note}/activity",
        "type": "Create", "actor": actor, "to": [AS_PUBLIC],
        "object": {"id": note, "type": "Note", "attributedTo": actor, "to": [AS_PUBLIC],
                   "content": f"<p>{text}</p>"}}).encode()


def test_fedify_verifies_our_signed_post_and_refuses_a_foreign_signer(stratus_live, fedify_peer):
    from stratus.federation import http
    from tests.rig import make_user

    alice, mallory = make_user("alice"), make_user("mallory")
    actor = f"{stratus_live.base_url}/users/alice"
    inbox = f"{fedify_peer.actor}/inbox"

    forged = http.post_activity(inbox, _create(actor, "not from alice"), username="mallory",
                                account_id=mallory)
    assert forged.status == 401, forged.body
    signed = http.post_activity(inbox, _create(actor, "signed by Stratus"), username="alice",
                                account_id=alice)
    assert signed.status == 202, signed.body
    [entry] = [e for e in fedify_peer.log() if e["type"] == "Create"]
    assert entry["actor"] == actor
    assert entry["activity"]["object"]["content"] == "<p>signed by Stratus</p>"
