"""Our statuses' `replies` collections (federation/replies.py), as Mastodon 4.5 serves them so
that other servers can backfill a thread: the first page inline in the Note (the author's own
replies), pages of the author's replies, then of other accounts', public and unlisted only."""

from __future__ import annotations

from tests.rig import post

AP = {"Accept": "application/activity+json"}
BASE = "http://localhost:8000"


def reply(client, headers, parent, text, visibility="public"):
    return post(client, headers, status=text, visibility=visibility, in_reply_to_id=parent["id"])


def thread(client, people, drain):
    """alice's root, her public, unlisted and private replies to it, bob's reply, and carol's
    reply to bob's (not a reply to the root)."""
    _, auth = people
    root = post(client, auth["alice"], status="root", visibility="public")
    own = [reply(client, auth["alice"], root, "one"),
           reply(client, auth["alice"], root, "two", "unlisted")]
    reply(client, auth["alice"], root, "three", "private")
    other = reply(client, auth["bob"], root, "bob here")
    reply(client, auth["carol"], other, "carol to bob")
    drain()
    return root, own, other


def uri(status):
    return f"{BASE}/users/{status['account']['username']}/statuses/{status['id']}"


def test_the_note_shows_the_authors_first_replies_inline(client, people, drain):
    root, own, _ = thread(client, people, drain)
    note = client.get(f"/users/alice/statuses/{root['id']}", headers=AP).json()
    collection = f"{uri(root)}/replies"
    assert note["replies"] == {
        "id": collection, "type": "Collection",
        "first": {"type": "CollectionPage",
                  "next": f"{collection}?min_id={own[-1]['id']}&page=true",
                  "partOf": collection, "items": [uri(s) for s in own]}}


def test_a_note_without_own_replies_points_at_the_other_accounts_replies(client, people, drain):
    _, auth = people
    lonely = post(client, auth["alice"], status="nobody answers", visibility="public")
    drain()
    note = client.get(f"/users/alice/statuses/{lonely['id']}", headers=AP).json()
    collection = f"{uri(lonely)}/replies"
    assert note["replies"]["first"] == {
        "type": "CollectionPage", "next": f"{collection}?only_other_accounts=true&page=true",
        "partOf": collection, "items": []}


def test_the_collection_pages_own_replies_then_the_others(client, people, drain):
    root, own, other = thread(client, people, drain)
    collection = f"{uri(root)}/replies"
    top = client.get(f"/users/alice/statuses/{root['id']}/replies", headers=AP)
    assert top.status_code == 200
    assert top.headers["cache-control"] == "max-age=0, public"
    document = top.json()
    assert document["@context"] == "https://www.w3.org/ns/activitystreams"
    assert {k: document[k] for k in ("id", "type")} == {"id": collection, "type": "Collection"}
    assert document["first"] == {
        "id": f"{collection}?page=true", "type": "CollectionPage",
        "next": f"{collection}?only_other_accounts=true&page=true", "partOf": collection,
        "items": [uri(s) for s in own]}
    page = client.get(f"/users/alice/statuses/{root['id']}/replies",
                      params={"page": "true", "only_other_accounts": "true"}, headers=AP).json()
    # carol's reply answers bob, not the root: it is in bob's reply's collection
    assert page == {"@context": "https://www.w3.org/ns/activitystreams",
                    "id": f"{collection}?only_other_accounts=true&page=true",
                    "type": "CollectionPage", "partOf": collection, "items": [uri(other)]}
    after = client.get(f"/users/alice/statuses/{root['id']}/replies",
                       params={"page": "true", "min_id": own[0]["id"]}, headers=AP).json()
    assert after["items"] == [uri(own[1])]


def test_replies_of_suspended_accounts_are_left_out(client, people, drain):
    from stratus.core import clock
    from stratus.repo import moderation

    ids_, _ = people
    root, _, other = thread(client, people, drain)
    moderation.suspend(ids_["bob"], at=clock.iso(clock.now()), origin="local")
    page = client.get(f"/users/alice/statuses/{root['id']}/replies",
                      params={"page": "true", "only_other_accounts": "true"}, headers=AP).json()
    assert uri(other) not in page["items"] and page["items"] == []


def test_a_private_status_has_no_collection_for_strangers(client, people, drain):
    _, auth = people
    hidden = post(client, auth["alice"], status="followers only", visibility="private")
    drain()
    answer = client.get(f"/users/alice/statuses/{hidden['id']}/replies", headers=AP)
    assert answer.status_code == 404
    missing = client.get("/users/alice/statuses/123456/replies", headers=AP)
    assert missing.status_code == 404


def test_the_create_a_new_status_is_delivered_in_says_it_has_no_replies_yet(client, people,
                                                                             monkeypatch):
    """A status just posted has no replies: its Create carries the empty first page without
    reading the thread (federation/audience.py)."""
    from stratus.federation import audience
    from stratus.jobs import messages
    from stratus.repo import statuses as statuses_repo

    ids_, auth = people
    status = post(client, auth["alice"], status="fresh", visibility="public")
    monkeypatch.setattr(statuses_repo, "thread_entries_after",
                        lambda *a: (_ for _ in ()).throw(AssertionError("thread read")))
    plan = audience.plan(messages.Federate(kind="create", account_id=ids_["alice"],
                                           item={"id": status["id"], "account_id": ids_["alice"],
                                                 "local": True}))
    note = plan.activity["object"]
    collection = f"{uri(status)}/replies"
    assert note["replies"]["first"]["items"] == []
    assert note["replies"]["first"]["next"] == f"{collection}?only_other_accounts=true&page=true"
