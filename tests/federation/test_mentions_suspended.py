"""A suspended account is not mentioned (Mastodon's ProcessMentionsService leaves the match as
text when the account is suspended): a post naming a suspended account, local or remote, keeps
the `@handle` as plain text, and stores no mention, so no notification is made and nothing is
delivered to it. Other accounts named in the same post are mentioned as usual."""

from __future__ import annotations

import pytest

from tests import rig


# --- helpers -------------------------------------------------------------------------------------
@pytest.fixture
def users(client):
    """Local users alice (who posts), bob and sam: {name: (account id, auth headers)}."""
    app = rig.make_app(client)
    made = {}
    for name in ("alice", "bob", "sam"):
        account_id = rig.make_user(name)
        made[name] = (account_id, rig.auth(rig.user_token(app, account_id,
                                                          scopes=("read", "write", "follow"))))
    return made





def notifications(account_id: str) -> list[dict]:
    from stratus.repo import base, keys

    return list(base.query(keys.notifications_of(account_id)))


def stored_mentions(status_id: str) -> list[str]:
    from stratus.repo import statuses as statuses_repo

    return list(statuses_repo.get(status_id).get("mention_ids", []))


def received(peer, kind: str) -> list[dict]:
    return [body for _, _, body in peer.posts
            if isinstance(body, dict) and body.get("type") == kind]


# --- local ---------------------------------------------------------------------------------------
def test_a_suspended_local_account_is_not_mentioned(client, drain, staff, users):
    alice_id, alice = users["alice"]
    bob_id, _ = users["bob"]
    sam_id, _ = users["sam"]
    rig.suspend(client, staff, sam_id)
    drain()

    status = rig.post_status(client, alice, "hello @sam and @bob")
    assert [m["id"] for m in status["mentions"]] == [bob_id]
    assert stored_mentions(status["id"]) == [bob_id]
    assert "@sam" in status["content"] and "/@sam" not in status["content"]
    assert "/@bob" in status["content"]  # the active account is linked as ever
    drain()
    assert [n["notification_type"] for n in notifications(bob_id)] == ["mention"]
    assert notifications(sam_id) == []


def test_an_edit_does_not_mention_a_suspended_account(client, drain, staff, users):
    _, alice = users["alice"]
    sam_id, _ = users["sam"]
    status = rig.post_status(client, alice, "hello")
    rig.suspend(client, staff, sam_id)
    drain()
    edited = client.put(f"/api/v1/statuses/{status['id']}", headers=alice,
                        data={"status": "hello @sam"})
    assert edited.status_code == 200, edited.text
    assert edited.json()["mentions"] == [] and "/@sam" not in edited.json()["content"]
    assert stored_mentions(status["id"]) == []
    drain()
    assert notifications(sam_id) == []


# --- remote --------------------------------------------------------------------------------------
@pytest.mark.parametrize("visibility", ["direct", "public"])
def test_a_suspended_remote_account_is_not_mentioned_nor_sent_the_post(
        client, drain, staff, users, hostile, visibility):
    _, alice = users["alice"]
    mallory = rig.peer_account(hostile, "mallory")
    eve = rig.peer_account(hostile, "eve")
    rig.suspend(client, staff, mallory)
    drain()
    hostile.posts.clear()

    status = rig.post_status(client, alice, f"psst @mallory@{hostile.host} @eve@{hostile.host}",
                  visibility)
    assert [m["id"] for m in status["mentions"]] == [eve]
    assert stored_mentions(status["id"]) == [eve]
    assert f"@mallory@{hostile.host}" in status["content"]  # plain text, no link
    assert hostile.url("/@mallory") not in status["content"]
    drain()
    [create] = received(hostile, "Create")  # the shared inbox, for eve
    tagged = {t.get("href") for t in create["object"].get("tag", [])
              if t.get("type") == "Mention"}
    assert tagged == {hostile.url("/users/eve")}
    assert hostile.url("/users/mallory") not in (create["object"].get("to", []) +
                                                 create["object"].get("cc", []))
    assert all(not path.startswith("/users/mallory") for path, _, _ in hostile.posts)
