"""Conversations: direct statuses grouped per user by thread and participants, kept from the
stream (new, edited, deleted statuses), listed by last status, marked read or unread, removed;
recipients who block or mute the author get none, as in Mastodon."""

from __future__ import annotations

import json

from stratus.repo.queues import send

from tests.rig import auth, dispatch_only, make_app, make_user, post, queued, user_token

NOT_FOUND = {"error": "Record not found"}


def conversations(client, headers, **params):
    response = client.get("/api/v1/conversations", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def dm(client, headers, text, **data):
    return post(client, headers, status=text, visibility="direct", **data)


def summary(conversation) -> tuple:
    """(other participants' usernames, last status id, unread)."""
    return ([a["username"] for a in conversation["accounts"]],
            conversation["last_status"]["id"] if conversation["last_status"] else None,
            conversation["unread"])


def test_a_direct_status_starts_a_conversation_for_everyone_in_it(client, people, drain,
                                                                   entity):
    _, tokens = people
    status = dm(client, tokens["alice"], "@bob @carol psst")
    drain()
    [mine] = conversations(client, tokens["alice"])
    entity("Conversation", mine)
    assert summary(mine) == (["bob", "carol"], status["id"], False)
    [bobs] = conversations(client, tokens["bob"])
    entity("Conversation", bobs)
    assert summary(bobs) == (["alice", "carol"], status["id"], True)
    assert summary(conversations(client, tokens["carol"])[0]) == (["alice", "bob"], status["id"],
                                                                  True)
    assert conversations(client, tokens["dave"]) == []
    # A public status makes none; a direct status to nobody is a note to oneself.
    post(client, tokens["alice"], status="@dave public")
    note = dm(client, tokens["dave"], "just me")
    drain()
    assert conversations(client, tokens["dave"])[0]["accounts"][0]["username"] == "dave"
    assert conversations(client, tokens["dave"])[0]["last_status"]["id"] == note["id"]


def test_replies_join_the_conversation_of_their_thread_and_participants(client, people, drain):
    _, tokens = people
    first = dm(client, tokens["alice"], "@bob @carol psst")
    drain()
    bobs_id = conversations(client, tokens["bob"])[0]["id"]
    reply = dm(client, tokens["bob"], "@alice @carol what", in_reply_to_id=first["id"])
    drain()
    [alices] = conversations(client, tokens["alice"])
    assert summary(alices) == (["bob", "carol"], reply["id"], True)
    [bobs] = conversations(client, tokens["bob"])
    assert bobs["id"] == bobs_id and summary(bobs) == (["alice", "carol"], reply["id"], False)
    # Answering only alice is another conversation (other participants), newest first.
    aside = dm(client, tokens["bob"], "@alice between us", in_reply_to_id=first["id"])
    drain()
    assert [summary(c) for c in conversations(client, tokens["alice"])] == [
        (["bob"], aside["id"], True), (["bob", "carol"], reply["id"], True)]
    # So is a new thread with the same people.
    dm(client, tokens["alice"], "@bob @carol again")
    drain()
    assert len(conversations(client, tokens["carol"])) == 2


def test_read_unread_and_remove(client, people, drain, entity):
    _, tokens = people
    status = dm(client, tokens["alice"], "@bob psst")
    drain()
    [conversation] = conversations(client, tokens["bob"])
    read = client.post(f"/api/v1/conversations/{conversation['id']}/read", headers=tokens["bob"])
    assert read.status_code == 200
    entity("Conversation", read.json())
    assert summary(read.json()) == (["alice"], status["id"], False)
    assert conversations(client, tokens["bob"])[0]["unread"] is False
    unread = client.post(f"/api/v1/conversations/{conversation['id']}/unread",
                         headers=tokens["bob"])
    assert unread.status_code == 200 and unread.json()["unread"] is True
    # Someone else's conversation, or no conversation, is not found.
    for method, path in (("POST", "read"), ("POST", "unread"), ("DELETE", "")):
        url = f"/api/v1/conversations/{conversation['id']}/{path}".rstrip("/")
        response = client.request(method, url, headers=tokens["carol"])
        assert (response.status_code, response.json()) == (404, NOT_FOUND)
        response = client.request(method, url.replace(conversation["id"], "abc"),
                                  headers=tokens["bob"])
        assert (response.status_code, response.json()) == (404, NOT_FOUND)
    removed = client.delete(f"/api/v1/conversations/{conversation['id']}", headers=tokens["bob"])
    assert (removed.status_code, removed.json()) == (200, {})
    assert conversations(client, tokens["bob"]) == []
    assert len(conversations(client, tokens["alice"])) == 1  # hers stays
    gone = client.delete(f"/api/v1/conversations/{conversation['id']}", headers=tokens["bob"])
    assert gone.status_code == 404
    # A later status of the thread brings it back, with only that status.
    reply = dm(client, tokens["alice"], "@bob still there?", in_reply_to_id=status["id"])
    drain()
    assert summary(conversations(client, tokens["bob"])[0]) == (["alice"], reply["id"], True)


def test_deleted_statuses_leave_their_conversations(client, people, drain):
    _, tokens = people
    first = dm(client, tokens["alice"], "@bob one")
    second = dm(client, tokens["bob"], "@alice two", in_reply_to_id=first["id"])
    drain()
    client.delete(f"/api/v1/statuses/{second['id']}", headers=tokens["bob"])
    drain()
    assert summary(conversations(client, tokens["alice"])[0]) == (["bob"], first["id"], True)
    # Unread stays as it was: bob wrote the status that went (Mastodon's remove_status).
    assert summary(conversations(client, tokens["bob"])[0]) == (["alice"], first["id"], False)
    client.delete(f"/api/v1/statuses/{first['id']}", headers=tokens["alice"])
    drain()
    assert conversations(client, tokens["alice"]) == []
    assert conversations(client, tokens["bob"]) == []


def test_conversations_page_by_last_status(client, people, drain):
    _, tokens = people
    threads = [dm(client, tokens["alice"], f"@bob thread {n}") for n in range(3)]
    drain()
    response = client.get("/api/v1/conversations", headers=tokens["bob"], params={"limit": 2})
    assert [c["last_status"]["id"] for c in response.json()] == [threads[2]["id"],
                                                                 threads[1]["id"]]
    links = response.headers["link"]
    assert f"max_id={threads[1]['id']}" in links and f"min_id={threads[2]['id']}" in links
    assert [c["last_status"]["id"] for c in conversations(
        client, tokens["bob"], max_id=threads[1]["id"])] == [threads[0]["id"]]
    assert [c["last_status"]["id"] for c in conversations(
        client, tokens["bob"], min_id=threads[0]["id"], limit=1)] == [threads[1]["id"]]
    assert [c["last_status"]["id"] for c in conversations(
        client, tokens["bob"], since_id=threads[0]["id"])] == [threads[2]["id"],
                                                               threads[1]["id"]]
    # A reply moves its conversation to the top; the trailing-slash path Mastodon.py uses.
    reply = dm(client, tokens["alice"], "@bob back to the first", in_reply_to_id=threads[0]["id"])
    drain()
    slashed = client.get("/api/v1/conversations/", headers=tokens["bob"])
    assert [c["last_status"]["id"] for c in slashed.json()] == [
        reply["id"], threads[2]["id"], threads[1]["id"]]


def test_an_edit_that_mentions_someone_new_brings_them_in(client, people, drain):
    _, tokens = people
    status = dm(client, tokens["alice"], "@bob psst")
    drain()
    edited = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
                        data={"status": "@bob @carol psst"})
    assert edited.status_code == 200
    drain()
    assert summary(conversations(client, tokens["carol"])[0]) == (["alice", "bob"], status["id"],
                                                                  True)
    assert len(conversations(client, tokens["bob"])) == 1
    assert len(conversations(client, tokens["alice"])) == 1


def test_recipients_who_block_or_mute_get_no_conversation(client, people, drain):
    ids_, tokens = people
    client.post(f"/api/v1/accounts/{ids_['alice']}/block", headers=tokens["bob"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/mute", headers=tokens["carol"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/mute", headers=tokens["dave"],
                data={"notifications": "false"})  # a mute that keeps notifications
    status = dm(client, tokens["alice"], "@bob @carol @dave hello?")
    drain()
    assert conversations(client, tokens["bob"]) == []
    assert conversations(client, tokens["carol"]) == []
    assert summary(conversations(client, tokens["dave"])[0])[1] == status["id"]
    assert summary(conversations(client, tokens["alice"])[0])[1] == status["id"]


def test_blocking_someone_else_in_it_or_muting_the_thread_keeps_it_out(client, people, drain):
    ids_, tokens = people
    client.post(f"/api/v1/accounts/{ids_['carol']}/block", headers=tokens["dave"])
    dm(client, tokens["alice"], "@carol @dave both of you")  # dave blocks carol: filtered
    first = dm(client, tokens["alice"], "@bob one")
    drain()
    assert conversations(client, tokens["dave"]) == []
    assert len(conversations(client, tokens["carol"])) == 1
    muted = client.post(f"/api/v1/statuses/{first['id']}/mute", headers=tokens["bob"])
    assert muted.status_code == 200
    dm(client, tokens["alice"], "@bob two", in_reply_to_id=first["id"])
    drain()
    assert summary(conversations(client, tokens["bob"])[0])[1] == first["id"]


def test_a_conversation_is_kept_once_when_its_job_comes_again(client, people, runtime, drain):
    _, tokens = people
    status = dm(client, tokens["alice"], "@bob psst")
    dispatch_only(runtime)
    jobs = [json.loads(j) for j in queued(runtime, "EffectsFunction:async")
            if "direct_status_posted" in j]
    assert len(jobs) == 1
    send("effects", [jobs[0], jobs[0]])
    drain()
    [conversation] = conversations(client, tokens["bob"])
    client.post(f"/api/v1/conversations/{conversation['id']}/read", headers=tokens["bob"])
    send("effects", [jobs[0]])  # a late redelivery does not make it unread again
    drain()
    [again] = conversations(client, tokens["bob"])
    assert again["id"] == conversation["id"]
    assert summary(again) == (["alice"], status["id"], False)
    assert len(conversations(client, tokens["alice"])) == 1


def test_a_staff_members_message_gets_through_a_block(client, people, drain):
    ids_, tokens = people
    moderator = make_user("mod", role="Moderator")
    headers = auth(user_token(make_app(client), moderator))
    client.post(f"/api/v1/accounts/{moderator}/block", headers=tokens["bob"])
    status = dm(client, headers, "@bob about your report")
    drain()
    assert summary(conversations(client, tokens["bob"])[0]) == (["mod"], status["id"], True)
    assert [m["id"] for m in status["mentions"]] == [ids_["bob"]]
