"""What follows a deletion or an undo through the outbox: nothing that pointed at a deleted
status survives it, counters follow, and undone actions take their notifications back."""

from __future__ import annotations

from stratus.repo import base, keys
from stratus.repo import effects as effects_repo
from stratus.repo import statuses as statuses_repo

from tests.rig import post


def notification_types(account_id: str) -> list[str]:
    return sorted(n["notification_type"] for n in effects_repo.notifications(account_id))


def test_deleting_a_status_removes_everything_that_points_at_it(client, people, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="doomed @carol #gone",
                  **{"poll[options][]": ["yes", "no"], "poll[expires_in]": "3600"})
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "doomed, edited @carol #gone"})
    client.post(f"/api/v1/polls/{status['poll']['id']}/votes", headers=tokens["dave"],
                data={"choices[]": "0"})
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{status['id']}/bookmark", headers=tokens["bob"])
    boost = client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["carol"]).json()
    drain()
    assert notification_types(ids_["alice"]) == ["favourite", "reblog"]
    assert notification_types(ids_["carol"]) == ["mention"]
    carol = client.get("/api/v1/accounts/verify_credentials", headers=tokens["carol"]).json()
    assert carol["statuses_count"] == 1  # the boost

    assert client.delete(f"/api/v1/statuses/{status['id']}",
                         headers=tokens["alice"]).status_code == 200
    drain()
    # Others' likes, bookmarks and boosts of it are gone; the boost with its counters.
    for key in (keys.favourite(ids_["bob"], status["id"]), keys.bookmark(ids_["bob"], status["id"]),
                keys.reblog_edge(ids_["carol"], status["id"])):
        assert base.get(key) is None
    assert statuses_repo.get(boost["id"]) is None
    assert client.get(f"/api/v1/statuses/{boost['id']}").status_code == 404
    carol = client.get("/api/v1/accounts/verify_credentials", headers=tokens["carol"]).json()
    assert carol["statuses_count"] == 0
    assert client.get("/api/v1/favourites", headers=tokens["bob"]).json() == []
    assert client.get("/api/v1/bookmarks", headers=tokens["bob"]).json() == []
    # Notifications about it, its edit history and its poll's votes are gone too.
    assert effects_repo.notifications(ids_["alice"]) == []
    assert effects_repo.notifications(ids_["carol"]) == []
    assert list(base.query(keys.status_pk(status["id"]))) == []
    assert list(base.query(keys.poll_pk(status["poll"]["id"]))) == []
    assert statuses_repo.tag_status_ids("gone", keys.pad(0), keys.MAX_SK) == []
    alice = client.get("/api/v1/accounts/verify_credentials", headers=tokens["alice"]).json()
    assert alice["statuses_count"] == 0
    assert client.get("/nodeinfo/2.0").json()["usage"]["localPosts"] == 0


def test_a_cascade_too_big_for_one_job_continues_in_another(client, people, drain, monkeypatch):
    from stratus.workers import effects

    monkeypatch.setattr(effects, "CASCADE_PAGE", 2)
    monkeypatch.setattr(effects, "CASCADE_PAGES", 2)
    ids_, tokens = people
    status = post(client, tokens["alice"], status="liked a lot")
    for name in ("bob", "carol", "dave"):
        client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens[name])
        client.post(f"/api/v1/statuses/{status['id']}/bookmark", headers=tokens[name])
    drain()
    client.delete(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"])
    drain()
    for name in ("bob", "carol", "dave"):
        assert base.get(keys.favourite(ids_[name], status["id"])) is None
        assert base.get(keys.bookmark(ids_[name], status["id"])) is None
    assert effects_repo.notifications(ids_["alice"]) == []


def test_undoing_a_like_or_a_boost_takes_its_notification_back(client, people, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="fickle fans")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["carol"])
    drain()
    assert notification_types(ids_["alice"]) == ["favourite", "reblog"]
    client.post(f"/api/v1/statuses/{status['id']}/unfavourite", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{status['id']}/unreblog", headers=tokens["carol"])
    drain()
    assert effects_repo.notifications(ids_["alice"]) == []
    fresh = client.get(f"/api/v1/statuses/{status['id']}").json()
    assert fresh["favourites_count"] == 0 and fresh["reblogs_count"] == 0
    # Liking again notifies again.
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    drain()
    assert notification_types(ids_["alice"]) == ["favourite"]


def test_own_actions_show_in_the_counts_and_are_never_counted_twice(client, people, drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="count me")
    liked = client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    assert liked.json()["favourites_count"] == 1
    boosted = client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"])
    assert boosted.json()["reblog"]["reblogs_count"] == 1
    # Counted in the request: others see them at once too.
    assert client.get(f"/api/v1/statuses/{status['id']}").json()["favourites_count"] == 1
    drain()
    mine = client.get(f"/api/v1/statuses/{status['id']}", headers=tokens["bob"]).json()
    assert (mine["favourites_count"], mine["reblogs_count"]) == (1, 1)  # not counted twice
    unliked = client.post(f"/api/v1/statuses/{status['id']}/unfavourite", headers=tokens["bob"])
    assert unliked.json()["favourites_count"] == 0
    unboosted = client.post(f"/api/v1/statuses/{status['id']}/unreblog", headers=tokens["bob"])
    assert unboosted.json()["reblogs_count"] == 0
    drain()
    fresh = client.get(f"/api/v1/statuses/{status['id']}").json()
    assert (fresh["favourites_count"], fresh["reblogs_count"]) == (0, 0)


def test_a_like_of_a_deleted_status_revives_nothing(client, people, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="short-lived")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    client.delete(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"])
    drain()
    assert base.get(keys.status_stats(status["id"])) is None
    assert base.get(keys.favourite(ids_["bob"], status["id"])) is None
