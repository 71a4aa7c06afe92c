"""Activity builders (stratus/federation/activities.py): Mastodon's shapes and ids, which peers
use to recognise an activity (and its Undo) as the same one."""

from __future__ import annotations

PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
ALICE = "https://stratus.test/users/alice"
BOB = "https://a.example/users/bob"
NOTE = "https://a.example/users/bob/statuses/1"


def test_likes_boosts_and_their_undo(runtime):
    from stratus.federation import activities

    like = activities.like("42", ALICE, NOTE)
    assert like == {"id": f"{ALICE}#likes/42", "type": "Like", "actor": ALICE, "object": NOTE}
    assert activities.undo_like("42", ALICE, NOTE) == {
        "id": f"{ALICE}#likes/42/undo", "type": "Undo", "actor": ALICE, "object": like}
    boost = activities.announce(f"{ALICE}/statuses/9/activity", ALICE,
                                "2026-11-22T10:00:00.123Z", NOTE, "public", BOB)
    assert boost == {"id": f"{ALICE}/statuses/9/activity", "type": "Announce", "actor": ALICE,
                     "published": "2026-11-22T10:00:00Z", "to": [PUBLIC],
                     "cc": [BOB, f"{ALICE}/followers"], "object": NOTE}
    undo = activities.undo_announce(boost, "9")
    assert undo == {"id": f"{ALICE}#announces/9/undo", "type": "Undo", "actor": ALICE,
                    "to": [PUBLIC], "object": boost}


def test_actor_deletion_reports_and_votes(runtime):
    from stratus.convert import activitypub as ap
    from stratus.federation import activities

    assert activities.delete_actor(ALICE) == {"id": f"{ALICE}#delete", "type": "Delete",
                                              "actor": ALICE, "to": [PUBLIC], "object": ALICE}
    flag = activities.flag("https://stratus.test/reports/5", "spam", BOB, [NOTE])
    assert flag == {"id": "https://stratus.test/reports/5", "type": "Flag",
                    "actor": ap.instance_actor_url(), "content": "spam", "object": [BOB, NOTE]}
    vote = activities.vote("77", ALICE, "Yes", NOTE, BOB)
    assert vote["type"] == "Create" and vote["to"] == [BOB]
    assert vote["object"] == {"id": f"{ALICE}#votes/77", "type": "Note", "name": "Yes",
                              "attributedTo": ALICE, "to": [BOB], "inReplyTo": NOTE}
