"""Announcements: staff API (create, update, publish/unpublish, schedule, delete, audit log),
the user API (list, dismiss, reactions) and the counts the stream keeps."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from stratus.core import clock
from stratus.repo import audit

from tests.rig import auth, make_app, make_user, user_token

ADMIN = "/api/v1/admin/announcements"


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write admin:read admin:write")


@pytest.fixture
def staff(app):
    owner = make_user("boss", role="Owner")
    return auth(user_token(app, owner, scopes=("admin:read", "admin:write")))


@pytest.fixture
def users(app):
    return {name: auth(user_token(app, make_user(name), scopes=("read", "write")))
            for name in ("ann", "ben", "cat")}


def announce(client, staff, **fields):
    response = client.post(ADMIN, headers=staff, data={"text": "Hello", **fields})
    assert response.status_code == 200, response.text
    return response.json()


def listing(client, headers, **params):
    response = client.get("/api/v1/announcements", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_staff_create_is_published_and_users_see_the_entity(client, staff, users, people,
                                                             entity):
    ids_, _ = people
    created = announce(client, staff,
                       text="Hi @alice, see #Rules and :blobcat: https://example.org/x")
    assert created["published"] is True and created["published_at"]
    assert created["scheduled_at"] is None and created["text"].startswith("Hi @alice")
    shown = listing(client, users["ann"])
    assert len(shown) == 1
    one = shown[0]
    assert set(one) == {"id", "content", "starts_at", "ends_at", "all_day", "published_at",
                        "updated_at", "read", "mentions", "statuses", "tags", "emojis",
                        "reactions"}
    entity("Announcement", one)
    assert one["read"] is False and one["all_day"] is False and one["reactions"] == []
    assert one["mentions"] == [{"id": ids_["alice"], "username": "alice",
                                "url": "http://localhost:8000/@alice", "acct": "alice"}]
    assert [t["name"] for t in one["tags"]] == ["rules"]
    assert 'class="u-url mention"' in one["content"] and 'rel="tag"' in one["content"]
    assert one["content"].startswith("<p>Hi ")


def test_validation_and_permission(client, staff, users, app):
    assert client.post(ADMIN, headers=staff, data={"text": ""}).status_code == 422
    half = client.post(ADMIN, headers=staff,
                       data={"text": "x", "starts_at": "2030-01-01T00:00:00Z"})
    assert half.status_code == 422 and "Ends at" in half.json()["error"]
    moderator = auth(user_token(app, make_user("mod", role="Moderator"),
                                scopes=("admin:read", "admin:write")))
    assert client.get(ADMIN, headers=moderator).status_code == 403  # no MANAGE_ANNOUNCEMENTS
    assert client.post(ADMIN, headers=moderator, data={"text": "x"}).status_code == 403
    assert client.get(ADMIN + "/123", headers=staff).status_code == 404
    assert client.get(ADMIN + "/abc", headers=staff).status_code == 404


def test_unpublish_publish_update_delete_with_audit(client, staff, users):
    created = announce(client, staff, starts_at="2030-01-01T00:00:00Z",
                       ends_at="2030-01-02T00:00:00Z", all_day="true")
    aid = created["id"]
    assert created["all_day"] is True and created["starts_at"] == "2030-01-01T00:00:00.000Z"
    hidden = client.put(f"{ADMIN}/{aid}", headers=staff, data={"published": "false"})
    assert hidden.status_code == 200 and hidden.json()["published"] is False
    assert listing(client, users["ann"]) == []
    assert client.post(f"/api/v1/announcements/{aid}/dismiss",
                       headers=users["ann"]).status_code == 404
    shown = client.put(f"{ADMIN}/{aid}", headers=staff,
                       data={"published": "true", "text": "Changed"}).json()
    assert shown["published"] is True and shown["content"] == "<p>Changed</p>"
    assert [a["content"] for a in listing(client, users["ann"])] == ["<p>Changed</p>"]
    assert [a["id"] for a in client.get(ADMIN, headers=staff).json()] == [aid]
    assert client.delete(f"{ADMIN}/{aid}", headers=staff).json() == {}
    assert listing(client, users["ann"]) == []
    assert client.get(f"{ADMIN}/{aid}", headers=staff).status_code == 404
    actions = sorted(e["action"] for e in audit.by_target("Announcement", aid))
    assert actions == ["create", "destroy", "publish", "unpublish", "update", "update"]


def test_dismiss_and_with_dismissed(client, staff, users):
    first, second = announce(client, staff, text="one"), announce(client, staff, text="two")
    assert client.post(f"/api/v1/announcements/{first['id']}/dismiss",
                       headers=users["ann"]).json() == {}
    # dismissing again changes nothing
    assert client.post(f"/api/v1/announcements/{first['id']}/dismiss",
                       headers=users["ann"]).status_code == 200
    assert [a["id"] for a in listing(client, users["ann"])] == [second["id"]]
    everything = listing(client, users["ann"], with_dismissed="true")
    assert [(a["id"], a["read"]) for a in everything] == [(first["id"], True),
                                                         (second["id"], False)]
    assert [a["read"] for a in listing(client, users["ben"])] == [False, False]


def test_reactions_counted_per_name_with_me(client, staff, users, drain):
    aid = announce(client, staff)["id"]
    path = f"/api/v1/announcements/{aid}/reactions"
    assert client.put(f"{path}/👍", headers=users["ann"]).json() == {}
    # before the counters worker ran, the reactor sees their own reaction
    assert listing(client, users["ann"])[0]["reactions"] == [
        {"name": "👍", "count": 1, "me": True}]
    assert listing(client, users["ben"])[0]["reactions"] == []
    client.put(f"{path}/👍", headers=users["ben"])
    client.put(f"{path}/🎉", headers=users["cat"])
    duplicate = client.put(f"{path}/👍", headers=users["ann"])
    assert duplicate.status_code == 422 and duplicate.json() == {"error": "Duplicate record"}
    drain()
    assert listing(client, users["cat"])[0]["reactions"] == [
        {"name": "👍", "count": 2, "me": False}, {"name": "🎉", "count": 1, "me": True}]
    assert client.delete(f"{path}/👍", headers=users["ann"]).json() == {}
    assert client.delete(f"{path}/👍", headers=users["ann"]).status_code == 404
    drain()
    assert listing(client, users["ann"])[0]["reactions"] == [
        {"name": "👍", "count": 1, "me": False}, {"name": "🎉", "count": 1, "me": False}]


def test_unknown_emoji_and_the_limit_of_names(client, staff, users, drain):
    aid = announce(client, staff)["id"]
    path = f"/api/v1/announcements/{aid}/reactions"
    unknown = client.put(f"{path}/notanemoji", headers=users["ann"])
    assert unknown.status_code == 422
    assert unknown.json() == {"error": "Validation failed: Name is not a recognized emoji"}
    assert client.put("/api/v1/announcements/999/reactions/👍",
                      headers=users["ann"]).status_code == 404
    for name in ["😀", "😁", "😂", "🤣", "😃", "😄", "😅", "😆"]:
        assert client.put(f"{path}/{name}", headers=users["ann"]).status_code == 200
    drain()
    ninth = client.put(f"{path}/😉", headers=users["ben"])
    assert ninth.status_code == 422
    assert ninth.json() == {"error": "Validation failed: Limit of different reactions reached"}
    # an existing name is still fine
    assert client.put(f"{path}/😀", headers=users["ben"]).status_code == 200


def test_custom_emoji_reaction_has_urls(client, staff, users, drain):
    from stratus.repo import instance

    instance.put_emoji({"shortcode": "blobcat", "image_key": "emoji/blobcat.png",
                        "static_key": "emoji/blobcat_static.png", "content_type": "image/png",
                        "size": 10, "visible_in_picker": True})
    aid = announce(client, staff)["id"]
    assert client.put(f"/api/v1/announcements/{aid}/reactions/blobcat",
                      headers=users["ann"]).status_code == 200
    drain()
    reaction = listing(client, users["ann"])[0]["reactions"][0]
    assert reaction["name"] == "blobcat" and reaction["count"] == 1 and reaction["me"] is True
    assert reaction["url"].endswith("emoji/blobcat.png")
    assert reaction["static_url"].endswith("emoji/blobcat_static.png")


def test_concurrent_reactions_lose_no_count(client, staff, app, drain):
    aid = announce(client, staff)["id"]
    tokens = [auth(user_token(app, make_user(f"fan{n}"), scopes=("write",)))
              for n in range(12)]

    def react(headers):
        return client.put(f"/api/v1/announcements/{aid}/reactions/❤️", headers=headers)

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert [r.status_code for r in pool.map(react, tokens)] == [200] * 12
    drain()
    drain()  # a redelivered batch counts nothing twice
    viewer = auth(user_token(app, make_user("viewer"), scopes=("read",)))
    assert listing(client, viewer)[0]["reactions"] == [{"name": "❤️", "count": 12, "me": False}]


def test_scheduled_announcement_publishes_once(client, staff, users, runtime, drain):
    when = clock.iso(clock.now() + timedelta(hours=1))
    created = announce(client, staff, scheduled_at=when)
    assert created["published"] is False and created["scheduled_at"] == when
    assert listing(client, users["ann"]) == []
    from stratus.repo.client import client as aws
    from stratus.workers import timers

    name = f"announcement-{created['id']}"
    schedule = aws("scheduler").get_schedule(Name=name)
    aws("scheduler").update_schedule(Name=name, ScheduleExpression="at(2020-01-01T00:00:00)",
                                     FlexibleTimeWindow={"Mode": "OFF"},
                                     Target=schedule["Target"], ActionAfterCompletion="DELETE")
    assert runtime.pipeline.pump_one_off() == 1
    drain()
    shown = listing(client, users["ann"])
    assert [a["id"] for a in shown] == [created["id"]] and shown[0]["published_at"]
    # the same timer job again (a redelivery) changes nothing
    assert timers.publish_announcement(created["id"], when) is False
    assert client.get(f"{ADMIN}/{created['id']}", headers=staff).json()["scheduled_at"] is None


def test_a_past_scheduled_at_publishes_at_once(client, staff, users):
    created = announce(client, staff, scheduled_at=clock.iso(clock.now() - timedelta(hours=1)))
    assert created["published"] is True
    assert len(listing(client, users["ann"])) == 1


def test_stratusctl_announcements(client, users, monkeypatch, capsys):
    import json

    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    assert cli.main(["announcements", "create", "--text", "From the operator"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["published"] is True
    assert [a["content"] for a in listing(client, users["ann"])] == ["<p>From the operator</p>"]
    assert cli.main(["announcements", "update", created["id"], "--published", "false"]) == 0
    assert json.loads(capsys.readouterr().out)["published"] is False
    assert listing(client, users["ann"]) == []
    assert cli.main(["announcements", "list"]) == 0
    assert [a["id"] for a in json.loads(capsys.readouterr().out)] == [created["id"]]
    assert cli.main(["announcements", "create", "--text", ""]) == 1
    assert "Text can't be blank" in capsys.readouterr().err
    assert cli.main(["announcements", "delete", created["id"]]) == 0
    assert cli.main(["announcements", "delete", created["id"]]) == 1
