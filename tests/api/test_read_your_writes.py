"""Read your writes: what Mastodon writes in the request (counter caches) the very next request
sees — without the pipeline running (no `drain` before the read). Each test is one row of
issue #21's table: a reply, a like, a boost, a post, a follow, a poll vote; then the stream's
worker runs and changes nothing more."""

from __future__ import annotations

from stratus.repo import statuses as statuses_repo

from tests.rig import account, follow, lock, post


def status(client, status_id: str, headers=None) -> dict:
    response = client.get(f"/api/v1/statuses/{status_id}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_reply_counts_on_its_parent_at_once(client, people, drain):
    ids_, tokens = people
    parent = post(client, tokens["bob"], status="what do you think?")
    reply = post(client, tokens["alice"], status="@bob yes", in_reply_to_id=parent["id"])
    assert status(client, parent["id"])["replies_count"] == 1
    context = client.get(f"/api/v1/statuses/{parent['id']}/context",
                         headers=tokens["alice"]).json()
    assert [s["id"] for s in context["descendants"]] == [reply["id"]]
    # Mastodon counts only public and unlisted replies on the parent
    post(client, tokens["carol"], status="@bob psst", in_reply_to_id=parent["id"],
         visibility="private")
    assert status(client, parent["id"])["replies_count"] == 1
    client.delete(f"/api/v1/statuses/{reply['id']}", headers=tokens["alice"])
    assert status(client, parent["id"])["replies_count"] == 0
    drain()
    assert status(client, parent["id"])["replies_count"] == 0
    assert account(client, ids_["alice"])["statuses_count"] == 0


def test_a_like_counts_for_everyone_at_once(client, people, drain):
    _, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    answer = client.post(f"/api/v1/statuses/{liked['id']}/favourite", headers=tokens["bob"])
    assert answer.json()["favourites_count"] == 1
    assert status(client, liked["id"], tokens["carol"])["favourites_count"] == 1
    assert status(client, liked["id"])["favourites_count"] == 1  # anonymous
    assert statuses_repo.get(liked["id"])["stats"]["favourites_count"] == 1  # stored, not shown
    client.post(f"/api/v1/statuses/{liked['id']}/favourite", headers=tokens["bob"])  # again
    assert status(client, liked["id"], tokens["carol"])["favourites_count"] == 1
    drain()
    assert status(client, liked["id"], tokens["carol"])["favourites_count"] == 1
    gone = client.post(f"/api/v1/statuses/{liked['id']}/unfavourite", headers=tokens["bob"])
    assert gone.json()["favourites_count"] == 0
    assert status(client, liked["id"], tokens["carol"])["favourites_count"] == 0
    drain()
    assert status(client, liked["id"], tokens["carol"])["favourites_count"] == 0


def test_a_boost_counts_on_the_status_and_the_booster_at_once(client, people, drain):
    ids_, tokens = people
    original = post(client, tokens["alice"], status="boost me")
    client.post(f"/api/v1/statuses/{original['id']}/reblog", headers=tokens["bob"])
    assert status(client, original["id"], tokens["carol"])["reblogs_count"] == 1
    assert account(client, ids_["bob"])["statuses_count"] == 1  # a boost is a status of his
    client.post(f"/api/v1/statuses/{original['id']}/unreblog", headers=tokens["bob"])
    assert status(client, original["id"], tokens["carol"])["reblogs_count"] == 0
    assert account(client, ids_["bob"])["statuses_count"] == 0
    drain()
    assert status(client, original["id"], tokens["carol"])["reblogs_count"] == 0
    assert account(client, ids_["bob"])["statuses_count"] == 0


def test_a_post_counts_on_its_author_at_once(client, people, drain):
    ids_, tokens = people
    first = post(client, tokens["alice"], status="hello")
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["alice"]).json()
    assert me["statuses_count"] == 1
    assert me["last_status_at"] == first["created_at"][:10]  # a date, as Mastodon's
    assert account(client, ids_["alice"])["statuses_count"] == 1
    post(client, tokens["alice"], status="@bob secret", visibility="direct")  # counts nowhere
    assert account(client, ids_["alice"])["statuses_count"] == 1
    client.delete(f"/api/v1/statuses/{first['id']}", headers=tokens["alice"])
    assert account(client, ids_["alice"])["statuses_count"] == 0
    drain()
    assert account(client, ids_["alice"])["statuses_count"] == 0


def test_a_follow_counts_on_both_accounts_at_once(client, people, drain):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    assert account(client, ids_["bob"])["followers_count"] == 1
    assert account(client, ids_["alice"])["following_count"] == 1
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 1
    client.post(f"/api/v1/accounts/{ids_['alice']}/remove_from_followers", headers=tokens["bob"])
    assert account(client, ids_["bob"])["followers_count"] == 0
    assert account(client, ids_["alice"])["following_count"] == 0
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 0
    assert account(client, ids_["alice"])["following_count"] == 0


def test_a_follow_request_counts_and_its_answer_moves_the_counts_at_once(client, people, drain):
    ids_, tokens = people
    lock(client, tokens["bob"])
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["carol"], ids_["bob"])

    def pending() -> int:
        me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["bob"]).json()
        return me["source"]["follow_requests_count"]

    assert pending() == 2 and account(client, ids_["bob"])["followers_count"] == 0
    client.post(f"/api/v1/follow_requests/{ids_['alice']}/authorize", headers=tokens["bob"])
    assert pending() == 1
    assert account(client, ids_["bob"])["followers_count"] == 1
    assert account(client, ids_["alice"])["following_count"] == 1
    client.post(f"/api/v1/follow_requests/{ids_['carol']}/reject", headers=tokens["bob"])
    assert pending() == 0
    drain()
    assert pending() == 0 and account(client, ids_["bob"])["followers_count"] == 1


def test_a_poll_vote_counts_at_once(client, people):
    _, tokens = people
    polled = post(client, tokens["alice"], status="tea or coffee?",
                  **{"poll[options][]": ["tea", "coffee"], "poll[expires_in]": "3600"})
    poll_id = polled["poll"]["id"]
    voted = client.post(f"/api/v1/polls/{poll_id}/votes", headers=tokens["bob"],
                        data={"choices[]": ["1"]})
    assert voted.status_code == 200, voted.text
    seen = client.get(f"/api/v1/polls/{poll_id}", headers=tokens["carol"]).json()
    assert seen["votes_count"] == 1 and seen["voters_count"] == 1
    assert [o["votes_count"] for o in seen["options"]] == [0, 1]


def test_a_block_ends_the_follows_and_their_counts_at_once(client, people, drain):
    ids_, tokens = people
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["bob"], ids_["alice"])
    lock(client, tokens["carol"])
    follow(client, tokens["bob"], ids_["carol"])  # a pending request
    client.post(f"/api/v1/accounts/{ids_['bob']}/block", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['bob']}/block", headers=tokens["carol"])
    bob, alice = account(client, ids_["bob"]), account(client, ids_["alice"])
    assert (bob["followers_count"], bob["following_count"]) == (0, 0)
    assert (alice["followers_count"], alice["following_count"]) == (0, 0)
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["carol"]).json()
    assert me["source"]["follow_requests_count"] == 0
    drain()
    bob = account(client, ids_["bob"])
    assert (bob["followers_count"], bob["following_count"]) == (0, 0)
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["carol"]).json()
    assert me["source"]["follow_requests_count"] == 0
