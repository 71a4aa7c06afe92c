"""Hashtags: the Tag entity and its week of history, following and unfollowing tags, the
followed-tags list, and the pages of a tag's followers that home fan-out reads."""

from __future__ import annotations

from datetime import timedelta

from stratus.core import clock
from stratus.repo import tags as tags_repo

from tests.rig import deliver_twice, dispatch_only, post

NOT_FOUND = {"error": "Record not found"}


def tag(client, headers, name):
    response = client.get(f"/api/v1/tags/{name}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def follow_tag(client, headers, name):
    response = client.post(f"/api/v1/tags/{name}/follow", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def followed(client, headers, **params):
    response = client.get("/api/v1/followed_tags", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response


def test_a_tag_nobody_used_has_a_week_of_empty_history(client, people, entity):
    _, tokens = people
    body = tag(client, tokens["alice"], "Caturday")
    entity("Tag", body)
    assert body["name"] == "Caturday"
    assert body["url"] == "http://localhost:8000/tags/caturday"
    assert body["following"] is False
    midnight = clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    assert [h["day"] for h in body["history"]] == [
        str(int((midnight - timedelta(days=d)).timestamp())) for d in range(7)]
    assert {(h["uses"], h["accounts"]) for h in body["history"]} == {("0", "0")}
    # The id is the tag's, whatever the spelling; anonymous readers get no `following`.
    anonymous = client.get("/api/v1/tags/CATURDAY")
    assert anonymous.status_code == 200
    assert anonymous.json()["id"] == body["id"] and "following" not in anonymous.json()
    assert anonymous.headers["cache-control"].startswith("max-age=15, public")


def test_names_that_are_not_hashtags_are_not_found(client, people):
    _, tokens = people
    for name in ("1234", "no-dash", "%23hash"):
        response = client.get(f"/api/v1/tags/{name}", headers=tokens["alice"])
        assert (response.status_code, response.json()) == (404, NOT_FOUND), name
        response = client.post(f"/api/v1/tags/{name}/follow", headers=tokens["alice"])
        assert (response.status_code, response.json()) == (404, NOT_FOUND), name


def test_history_counts_todays_public_originals_and_distinct_accounts(client, people, drain):
    _, tokens = people
    first = post(client, tokens["alice"], status="#Cats one")
    post(client, tokens["alice"], status="#cats two")
    post(client, tokens["bob"], status="#cats and #dogs")
    post(client, tokens["carol"], status="#cats unlisted", visibility="unlisted")
    post(client, tokens["carol"], status="#cats private", visibility="private")
    client.post(f"/api/v1/statuses/{first['id']}/reblog", headers=tokens["dave"])
    drain()
    today = tag(client, tokens["alice"], "cats")["history"][0]
    assert (today["uses"], today["accounts"]) == ("3", "2")
    dogs = tag(client, tokens["alice"], "dogs")["history"]
    assert (dogs[0]["uses"], dogs[0]["accounts"]) == ("1", "1")
    # A deleted status was still used that day (Mastodon's history is history).
    client.delete(f"/api/v1/statuses/{first['id']}", headers=tokens["alice"])
    drain()
    assert tag(client, tokens["alice"], "cats")["history"][0]["uses"] == "3"


def test_history_is_counted_once_when_jobs_are_delivered_twice(client, people, runtime, drain):
    _, tokens = people
    drain()  # the sign-ups' own jobs first
    post(client, tokens["alice"], status="#twice")
    dispatch_only(runtime)
    # the use is noted twice (and the author's directory entry, last_status_at moved)
    assert deliver_twice(runtime, "EffectsFunction:async") == 2
    effects = next(q for q in runtime.pipeline.queues if q.queue == "EffectsFunction:async")
    while runtime.pipeline.pump_queue(effects):
        pass
    dispatch_only(runtime)
    # The status (its uses), the one note of a distinct account and alice's first API use of
    # the day (the admin metrics' active users, announce area), twice each.
    assert deliver_twice(runtime, "CountersQueue") == 3
    drain()
    today = tag(client, tokens["alice"], "twice")["history"][0]
    assert (today["uses"], today["accounts"]) == ("1", "1")


def test_following_a_tag_and_unfollowing_it(client, people, entity):
    _, tokens = people
    response = client.post("/api/v1/tags/Cats/follow", headers=tokens["alice"])
    assert response.status_code == 200
    entity("Tag", response.json())
    assert response.json()["following"] is True
    assert response.headers["x-ratelimit-limit"] == "400"  # counts as a follow (Mastodon)
    assert tag(client, tokens["alice"], "cats")["following"] is True
    assert tag(client, tokens["bob"], "cats")["following"] is False
    assert follow_tag(client, tokens["alice"], "CATS")["following"] is True  # no second edge
    assert [t["name"] for t in followed(client, tokens["alice"]).json()] == ["cats"]
    unfollowed = client.post("/api/v1/tags/cats/unfollow", headers=tokens["alice"])
    assert unfollowed.status_code == 200 and unfollowed.json()["following"] is False
    assert tag(client, tokens["alice"], "cats")["following"] is False
    assert followed(client, tokens["alice"]).json() == []
    again = client.post("/api/v1/tags/cats/unfollow", headers=tokens["alice"])
    assert again.status_code == 200 and again.json()["following"] is False


def test_followed_tags_page_by_follow_id_newest_first(client, people, entity):
    _, tokens = people
    for name in ("one", "two", "three"):
        follow_tag(client, tokens["alice"], name)
    first = followed(client, tokens["alice"], limit=2)
    for body in first.json():
        entity("Tag", body)
        assert body["following"] is True
    assert [t["name"] for t in first.json()] == ["three", "two"]
    links = first.headers["link"]
    assert 'rel="next"' in links and 'rel="prev"' in links
    next_url = links.split(";")[0].strip("<>")
    rest = client.get(next_url, headers=tokens["alice"])
    assert [t["name"] for t in rest.json()] == ["one"]
    prev_url = rest.headers["link"].split(", ")[1].split(";")[0].strip("<>")
    assert [t["name"] for t in client.get(prev_url, headers=tokens["alice"]).json()] == \
        ["three", "two"]
    assert followed(client, tokens["bob"]).json() == []


def test_a_tags_followers_page_for_fan_out(client, people):
    ids_, tokens = people
    for name in ("alice", "bob", "carol"):
        follow_tag(client, tokens[name], "Cats")
    follow_tag(client, tokens["dave"], "dogs")
    page, cursor = tags_repo.tag_followers_page("cats", None, 2)
    assert page == [ids_["alice"], ids_["bob"]] and cursor is not None
    rest, end = tags_repo.tag_followers_page("cats", cursor, 2)
    assert rest == [ids_["carol"]] and end is None
    client.post("/api/v1/tags/cats/unfollow", headers=tokens["bob"])
    assert tags_repo.tag_followers_page("cats", None, 10) == ([ids_["alice"], ids_["carol"]],
                                                              None)
