"""Favourites, boosts, bookmarks, pins, conversation mutes, and their lists and counters."""

from __future__ import annotations

from stratus.repo import effects
from stratus.repo import statuses as statuses_repo

from tests.rig import follow, post


def test_favourite_is_idempotent_and_counted(client, people, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="like me")
    for _ in range(2):
        response = client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
        assert response.status_code == 200
        assert response.json()["favourited"] is True and response.json()["favourites_count"] == 1
    by = client.get(f"/api/v1/statuses/{status['id']}/favourited_by")
    assert [a["id"] for a in by.json()] == [ids_["bob"]]
    drain()
    drain()  # a second run finds nothing new
    notes = effects.notifications(ids_["alice"])
    assert [(n["notification_type"], n["from_account_id"]) for n in notes] == \
        [("favourite", ids_["bob"])]
    undone = client.post(f"/api/v1/statuses/{status['id']}/unfavourite", headers=tokens["bob"])
    assert undone.json()["favourited"] is False and undone.json()["favourites_count"] == 0
    drain()
    again = client.post(f"/api/v1/statuses/{status['id']}/unfavourite", headers=tokens["bob"])
    assert again.status_code == 200 and again.json()["favourites_count"] == 0
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 0
    # Undoing the like took its notification back (Mastodon: the notification goes with it).
    assert effects.notifications(ids_["alice"]) == []


def test_unfavourite_works_after_losing_access(client, people):
    ids_, tokens = people
    follow(client, tokens["bob"], ids_["alice"])
    status = post(client, tokens["alice"], status="followers only", visibility="private")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{status['id']}/bookmark", headers=tokens["bob"])
    assert client.post(f"/api/v1/accounts/{ids_['alice']}/unfollow",
                       headers=tokens["bob"]).json()["following"] is False  # bob loses access
    assert client.get(f"/api/v1/statuses/{status['id']}", headers=tokens["bob"]).status_code == 404
    assert client.post(f"/api/v1/statuses/{status['id']}/unfavourite",
                       headers=tokens["bob"]).status_code == 200
    assert client.post(f"/api/v1/statuses/{status['id']}/unbookmark",
                       headers=tokens["bob"]).status_code == 200
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 0
    # Without an existing favourite, an invisible status is 404.
    assert client.post(f"/api/v1/statuses/{status['id']}/unfavourite",
                       headers=tokens["carol"]).status_code == 404
    assert client.post(f"/api/v1/statuses/{status['id']}/favourite",
                       headers=tokens["carol"]).status_code == 404


def test_reblog(client, people, drain, entity):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="boost me")
    response = client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"],
                           data={"visibility": "unlisted"})
    assert response.status_code == 200
    boost = response.json()
    entity("Status", boost)
    assert boost["reblog"]["id"] == status["id"] and boost["visibility"] == "unlisted"
    assert boost["reblogged"] is True and boost["reblog"]["reblogs_count"] == 1
    again = client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"])
    assert again.json()["id"] == boost["id"]
    assert [a["id"] for a in client.get(f"/api/v1/statuses/{status['id']}/reblogged_by").json()] \
        == [ids_["bob"]]
    listed = client.get(f"/api/v1/accounts/{ids_['bob']}/statuses").json()
    assert [s["id"] for s in listed] == [boost["id"]]
    assert client.get(f"/api/v1/accounts/{ids_['bob']}/statuses?exclude_reblogs=true").json() == []
    drain()
    assert [n["notification_type"] for n in effects.notifications(ids_["alice"])] == ["reblog"]
    undone = client.post(f"/api/v1/statuses/{status['id']}/unreblog", headers=tokens["bob"])
    assert undone.json()["id"] == status["id"] and undone.json()["reblogged"] is False
    assert undone.json()["reblogs_count"] == 0
    assert client.get(f"/api/v1/statuses/{boost['id']}").status_code == 404


def test_cannot_boost_private_or_direct(client, people):
    ids_, tokens = people
    follow(client, tokens["bob"], ids_["alice"])
    private = post(client, tokens["alice"], status="private", visibility="private")
    response = client.post(f"/api/v1/statuses/{private['id']}/reblog", headers=tokens["bob"])
    assert response.status_code == 403
    own = client.post(f"/api/v1/statuses/{private['id']}/reblog", headers=tokens["alice"])
    assert own.status_code == 200


def test_bookmarks_list_with_links(client, people, entity):
    _, tokens = people
    statuses = [post(client, tokens["alice"], status=f"s{i}") for i in range(3)]
    for status in statuses:
        client.post(f"/api/v1/statuses/{status['id']}/bookmark", headers=tokens["bob"])
    first = client.get("/api/v1/bookmarks?limit=2", headers=tokens["bob"])
    assert [s["id"] for s in first.json()] == [statuses[2]["id"], statuses[1]["id"]]
    assert all(s["bookmarked"] for s in first.json())
    link = first.headers["link"]
    assert 'rel="next"' in link and 'rel="prev"' in link
    nxt = link.split(",")[0].split(";")[0].strip("<> ").removeprefix("http://localhost:8000")
    second = client.get(nxt, headers=tokens["bob"]).json()
    assert [s["id"] for s in second] == [statuses[0]["id"]]
    favs = client.get("/api/v1/favourites", headers=tokens["bob"])
    assert favs.status_code == 200 and favs.json() == []
    assert client.get("/api/v1/bookmarks", headers=tokens["alice"]).json() == []


def test_pins(client, people):
    ids_, tokens = people
    follow(client, tokens["bob"], ids_["alice"])
    private = post(client, tokens["alice"], status="private pin", visibility="private")
    pinned = client.post(f"/api/v1/statuses/{private['id']}/pin", headers=tokens["alice"])
    assert pinned.status_code == 200 and pinned.json()["pinned"] is True
    duplicate = client.post(f"/api/v1/statuses/{private['id']}/pin", headers=tokens["alice"])
    assert duplicate.status_code == 422 and duplicate.json() == {"error": "Duplicate record"}
    direct = post(client, tokens["alice"], status="dm @bob", visibility="direct")
    response = client.post(f"/api/v1/statuses/{direct['id']}/pin", headers=tokens["alice"])
    assert response.status_code == 422 and "only visible to mentioned users" in response.json()["error"]
    others = post(client, tokens["bob"], status="bob's")
    response = client.post(f"/api/v1/statuses/{others['id']}/pin", headers=tokens["alice"])
    assert response.status_code == 422 and "Someone else's" in response.json()["error"]
    for i in range(4):
        extra = post(client, tokens["alice"], status=f"pin {i}")
        assert client.post(f"/api/v1/statuses/{extra['id']}/pin",
                           headers=tokens["alice"]).status_code == 200
    sixth = post(client, tokens["alice"], status="one too many")
    response = client.post(f"/api/v1/statuses/{sixth['id']}/pin", headers=tokens["alice"])
    assert response.status_code == 422 and "maximum number" in response.json()["error"]
    listed = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses?pinned=true",
                        headers=tokens["bob"]).json()
    assert len(listed) == 5 and listed[-1]["id"] == private["id"]
    anonymous = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses?pinned=true").json()
    assert len(anonymous) == 4  # the private pin is not for strangers
    client.post(f"/api/v1/statuses/{private['id']}/unpin", headers=tokens["alice"])
    assert client.post(f"/api/v1/statuses/{sixth['id']}/pin", headers=tokens["alice"]).status_code == 200
    unpinned_twice = client.post(f"/api/v1/statuses/{private['id']}/unpin", headers=tokens["alice"])
    assert unpinned_twice.status_code == 200 and unpinned_twice.json()["pinned"] is False


def test_conversation_mute(client, people):
    _, tokens = people
    root = post(client, tokens["alice"], status="thread")
    reply = post(client, tokens["bob"], status="reply", in_reply_to_id=root["id"])
    muted = client.post(f"/api/v1/statuses/{reply['id']}/mute", headers=tokens["alice"])
    assert muted.json()["muted"] is True
    assert client.get(f"/api/v1/statuses/{root['id']}", headers=tokens["alice"]).json()["muted"] is True
    unmuted = client.post(f"/api/v1/statuses/{root['id']}/unmute", headers=tokens["alice"])
    assert unmuted.json()["muted"] is False


def test_mention_notifications_once(client, people, drain, runtime):
    ids_, tokens = people
    post(client, tokens["alice"], status="hey @bob and @carol and @alice")
    drain()
    assert [n["notification_type"] for n in effects.notifications(ids_["bob"])] == ["mention"]
    assert [n["notification_type"] for n in effects.notifications(ids_["carol"])] == ["mention"]
    assert effects.notifications(ids_["alice"]) == []
    # Duplicate SQS delivery of the same job creates nothing new.
    from stratus.jobs.messages import StatusCreated
    from stratus.workers import effects as effects_service

    job = StatusCreated(event_id="dup", status_id="1", account_id=ids_["alice"],
                        mention_ids=[ids_["bob"]])
    assert effects_service.handle(job) == 1
    assert effects_service.handle(job) == 0
