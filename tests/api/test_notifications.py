"""Notifications (v1): the list with its filters and pages, one notification, dismissing and
clearing, unread counts against the notifications marker, markers themselves, and the
notification types that come from existing features (update, admin.sign_up)."""

from __future__ import annotations

import pytest
from stratus.api.notifications import listing as notifications_service
from stratus.core import clock, ids
from stratus.repo import effects

from tests.rig import (
    auth,
    favourite,
    follow_edge,
    kinds,
    make_app,
    make_user,
    notes,
    post,
    user_token,
)


@pytest.fixture
def busy_alice(client, people, drain):
    """alice has a mention (bob), a favourite (carol) and a boost (dave), oldest first."""
    ids_, tokens = people
    status = post(client, tokens["alice"], status="hello world")
    post(client, tokens["bob"], status="hi @alice")
    drain()
    favourite(client, tokens["carol"], status["id"])
    drain()
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["dave"])
    drain()
    return status


def test_mention_favourite_and_reblog_are_listed_newest_first(client, people, busy_alice,
                                                              entity):
    ids_, tokens = people
    listed = notes(client, tokens["alice"])
    for note in listed:
        entity("Notification", note)
    assert [(n["type"], n["account"]["id"]) for n in listed] == [
        ("reblog", ids_["dave"]), ("favourite", ids_["carol"]), ("mention", ids_["bob"])]
    assert listed[0]["status"]["id"] == busy_alice["id"]
    assert listed[1]["status"]["id"] == busy_alice["id"]
    assert listed[2]["status"]["content"].startswith("<p>hi ")
    # Favourites and boosts are grouped by status (Mastodon's group keys); a mention is not.
    assert listed[0]["group_key"].startswith(f"reblog-{busy_alice['id']}-")
    assert listed[1]["group_key"].startswith(f"favourite-{busy_alice['id']}-")
    assert listed[2]["group_key"] == f"ungrouped-{listed[2]['id']}"
    assert "filtered" not in listed[0]
    assert notes(client, tokens["bob"]) == []


def test_types_exclude_types_and_account_filters(client, people, busy_alice):
    ids_, tokens = people
    alice = tokens["alice"]
    assert kinds(notes(client, alice, "?types[]=mention")) == ["mention"]
    assert kinds(notes(client, alice, "?types[]=mention&types[]=reblog")) == ["reblog", "mention"]
    assert kinds(notes(client, alice, "?exclude_types[]=mention")) == ["reblog", "favourite"]
    assert kinds(notes(client, alice, "?types[]=favourite&exclude_types[]=favourite")) == []
    assert notes(client, alice, "?types[]=no_such_type") == []
    assert kinds(notes(client, alice, f"?account_id={ids_['carol']}")) == ["favourite"]
    # An account that does not exist (or is not an id) is an empty list, not an error.
    assert notes(client, alice, "?account_id=12345") == []
    assert notes(client, alice, "?account_id=foo") == []


def test_pages_and_link_headers(client, people, busy_alice):
    _, tokens = people
    alice = tokens["alice"]
    everything = notes(client, alice)
    response = client.get("/api/v1/notifications?limit=2&types[]=mention&types[]=reblog"
                          "&types[]=favourite", headers=alice)
    first = response.json()
    assert [n["id"] for n in first] == [n["id"] for n in everything[:2]]
    link = response.headers["link"]
    assert f"max_id={everything[1]['id']}" in link and 'rel="next"' in link
    assert f"min_id={everything[0]['id']}" in link and 'rel="prev"' in link
    assert "types%5B%5D=mention" in link  # the filters are kept
    rest = notes(client, alice, f"?max_id={everything[1]['id']}")
    assert [n["id"] for n in rest] == [everything[2]["id"]]
    newer = notes(client, alice, f"?min_id={everything[2]['id']}&limit=1")
    assert [n["id"] for n in newer] == [everything[1]["id"]]
    since = notes(client, alice, f"?since_id={everything[2]['id']}&limit=1")
    assert [n["id"] for n in since] == [everything[0]["id"]]
    assert len(notes(client, alice, "?limit=500")) == 3  # clamped to 80, not an error


def test_a_notification_about_a_status_the_viewer_may_not_see_is_left_out(client, people,
                                                                          drain):
    ids_, tokens = people
    follow_edge(ids_["carol"], ids_["bob"])
    private = post(client, tokens["bob"], status="followers only", visibility="private")
    hidden = post(client, tokens["alice"], status="mine")
    # A notification (as a worker would write it) about bob's private status: alice does not
    # follow bob, so it is not shown, and the page still fills from what comes after it.
    effects.notify(ids_["alice"], "poll", ids_["bob"], private["id"],
                   {"id": ids.new_id(), "status_id": private["id"],
                    "created_at": clock.iso(clock.now())})
    favourite(client, tokens["carol"], hidden["id"])
    drain()
    effects.notify(ids_["alice"], "poll", ids_["bob"], "x" + private["id"],
                   {"id": ids.new_id(), "status_id": private["id"],
                    "created_at": clock.iso(clock.now())})
    listed = notes(client, tokens["alice"], "?limit=1")
    assert kinds(listed) == ["favourite"]
    hidden_id = effects.notifications(ids_["alice"])[0]["id"]
    assert client.get(f"/api/v1/notifications/{hidden_id}",
                      headers=tokens["alice"]).status_code == 404
    follow_edge(ids_["alice"], ids_["bob"])
    assert kinds(notes(client, tokens["alice"])) == ["poll", "favourite", "poll"]


def test_show_and_dismiss_are_the_owners_only(client, people, busy_alice, entity):
    _, tokens = people
    listed = notes(client, tokens["alice"])
    one = client.get(f"/api/v1/notifications/{listed[1]['id']}", headers=tokens["alice"])
    assert one.status_code == 200
    entity("Notification", one.json())
    assert one.json() == listed[1]
    for path in (f"/api/v1/notifications/{listed[1]['id']}", "/api/v1/notifications/123",
                 "/api/v1/notifications/nope"):
        assert client.get(path, headers=tokens["bob"]).status_code == 404
    assert client.post(f"/api/v1/notifications/{listed[1]['id']}/dismiss",
                       headers=tokens["bob"]).status_code == 404
    dismissed = client.post(f"/api/v1/notifications/{listed[1]['id']}/dismiss",
                            headers=tokens["alice"])
    assert dismissed.status_code == 200 and dismissed.json() == {}
    assert [n["id"] for n in notes(client, tokens["alice"])] == [listed[0]["id"], listed[2]["id"]]
    assert client.get(f"/api/v1/notifications/{listed[1]['id']}",
                      headers=tokens["alice"]).status_code == 404


def test_clear_removes_everything(client, people, busy_alice):
    _, tokens = people
    cleared = client.post("/api/v1/notifications/clear", headers=tokens["alice"])
    assert cleared.status_code == 200 and cleared.json() == {}
    assert notes(client, tokens["alice"]) == []


def test_a_clear_too_big_for_one_request_is_finished_by_the_worker(client, people, drain,
                                                                   monkeypatch):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="popular")
    for name in ("bob", "carol", "dave"):
        favourite(client, tokens[name], status["id"])
    post(client, tokens["bob"], status="@alice one")
    post(client, tokens["carol"], status="@alice two")
    drain()
    assert len(notes(client, tokens["alice"])) == 5
    monkeypatch.setattr(notifications_service, "INLINE_REMOVALS", 2)
    client.post("/api/v1/notifications/clear", headers=tokens["alice"])
    assert len(notes(client, tokens["alice"])) == 3  # the newest two went at once
    post(client, tokens["dave"], status="@alice after the clear")
    drain()
    assert [n["account"]["id"] for n in notes(client, tokens["alice"])] == [ids_["dave"]]


def test_scopes(client, people):
    ids_, _ = people
    app = make_app(client)
    statuses_only = auth(user_token(app, ids_["alice"], scopes=("read:statuses",)))
    assert client.get("/api/v1/notifications", headers=statuses_only).status_code == 403
    reader = auth(user_token(app, ids_["alice"], scopes=("read:notifications",)))
    assert client.get("/api/v1/notifications", headers=reader).status_code == 200
    assert client.post("/api/v1/notifications/clear", headers=reader).status_code == 403
    assert client.get("/api/v1/notifications").status_code == 401


# --- unread counts and markers --------------------------------------------------------------------
def test_unread_count_follows_the_notifications_marker(client, people, busy_alice):
    _, tokens = people
    alice = tokens["alice"]

    def unread(query=""):
        response = client.get("/api/v1/notifications/unread_count" + query, headers=alice)
        assert response.status_code == 200
        return response.json()["count"]

    listed = notes(client, alice)
    assert unread() == 3
    assert unread("?limit=2") == 2
    assert unread("?exclude_types[]=mention") == 2
    assert unread("?types[]=favourite") == 1
    saved = client.post("/api/v1/markers", headers=alice,
                        json={"notifications": {"last_read_id": listed[1]["id"]}})
    assert saved.status_code == 200
    assert unread() == 1
    client.post("/api/v1/markers", headers=alice,
                data={"notifications[last_read_id]": listed[0]["id"]})
    assert unread() == 0


def test_markers(client, people, entity):
    _, tokens = people
    alice = tokens["alice"]
    assert client.get("/api/v1/markers?timeline[]=home", headers=alice).json() == {}
    first = client.post("/api/v1/markers", headers=alice,
                        json={"home": {"last_read_id": "103"},
                              "notifications": {"last_read_id": "7"}})
    assert first.status_code == 200
    body = first.json()
    entity("Marker", body["home"])
    assert body["home"]["last_read_id"] == "103" and body["home"]["version"] == 0
    assert body["notifications"]["version"] == 0
    moved = client.post("/api/v1/markers", headers=alice, data={"home[last_read_id]": "104"})
    assert moved.json() == {"home": {**moved.json()["home"], "last_read_id": "104", "version": 1}}
    same = client.post("/api/v1/markers", headers=alice, data={"home[last_read_id]": "104"})
    assert same.json()["home"]["version"] == 1  # nothing changed, nothing saved
    both = client.get("/api/v1/markers?timeline[]=home&timeline[]=notifications",
                      headers=alice).json()
    assert both["home"]["last_read_id"] == "104" and both["notifications"]["last_read_id"] == "7"
    assert list(client.get("/api/v1/markers?timeline[]=notifications",
                           headers=alice).json()) == ["notifications"]
    assert client.get("/api/v1/markers?timeline[]=home", headers=tokens["bob"]).json() == {}
    blank = client.post("/api/v1/markers", headers=alice, json={"home": {"last_read_id": ""}})
    assert blank.status_code == 422 and "Last read" in blank.json()["error"]
    assert client.post("/api/v1/markers", headers=alice, json={}).json() == {}


def test_a_marker_saved_concurrently_is_a_conflict(client, people, monkeypatch):
    from stratus.api.notifications import markers

    _, tokens = people
    alice = tokens["alice"]
    client.post("/api/v1/markers", headers=alice, data={"home[last_read_id]": "1"})
    stale = markers.repo.get_markers
    read_early = {}

    def before_the_other_save(account_id, timelines):
        read_early.update(stale(account_id, timelines))
        # another client saves between our read and our write
        markers.repo.save_markers(account_id, [("home", "2", 0)], "2026-11-22T00:00:00.000Z")
        return read_early

    monkeypatch.setattr(markers.repo, "get_markers", before_the_other_save)
    response = client.post("/api/v1/markers", headers=alice, data={"home[last_read_id]": "3"})
    assert response.status_code == 409
    assert response.json() == {"error": "Conflict during update, please try again"}
    monkeypatch.setattr(markers.repo, "get_markers", stale)
    assert client.get("/api/v1/markers?timeline[]=home",
                      headers=alice).json()["home"]["last_read_id"] == "2"


def test_markers_scopes(client, people):
    ids_, _ = people
    app = make_app(client)
    notifications_only = auth(user_token(app, ids_["alice"], scopes=("read:notifications",)))
    assert client.get("/api/v1/markers?timeline[]=home",
                      headers=notifications_only).status_code == 403


# --- types that come from existing features ------------------------------------------------------
def test_an_edit_notifies_those_who_boosted_it_once_per_edit(client, people, drain, entity):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="first draft")
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["alice"])  # self
    favourite(client, tokens["carol"], status["id"])
    drain()
    for text in ("second draft", "final"):
        edited = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
                            data={"status": text})
        assert edited.status_code == 200
        drain()
    updates = notes(client, tokens["bob"], "?types[]=update")
    for note in updates:
        entity("Notification", note)
    assert [(n["account"]["id"], n["status"]["content"]) for n in updates] == [
        (ids_["alice"], "<p>final</p>"), (ids_["alice"], "<p>final</p>")]
    # Mastodon notifies boosts of an edit, not likes; nor the author of their own boost.
    assert notes(client, tokens["carol"], "?types[]=update") == []
    assert notes(client, tokens["alice"], "?types[]=update") == []


def test_edits_of_a_much_boosted_status_notify_in_pages(client, people, drain, monkeypatch):
    from stratus.workers import effects as effects_service

    ids_, tokens = people
    status = post(client, tokens["alice"], status="boost me")
    for name in ("bob", "carol", "dave"):
        client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens[name])
    drain()
    monkeypatch.setattr(effects_service, "CASCADE_PAGE", 2)
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "edited"})
    drain()
    for name in ("bob", "carol", "dave"):
        assert kinds(notes(client, tokens[name])) == ["update"]


def test_staff_who_may_approve_hear_of_new_users(client, people, drain, entity):
    ids_, tokens = people
    drain()  # the four people signed up before there was any staff
    app = make_app(client)
    admin_id = make_user("root", role="Admin")
    drain()
    moderator_id = make_user("mod", role="Moderator")
    drain()
    admin = auth(user_token(app, admin_id))
    moderator = auth(user_token(app, moderator_id))
    assert [n["account"]["id"] for n in notes(client, admin)] == [moderator_id]
    assert notes(client, moderator) == []
    client.post("/api/v1/notifications/clear", headers=admin)
    newcomer = make_user("newcomer")
    pending = make_user("pending", approved=False)
    drain()
    for staff in (admin, moderator):
        signed_up = notes(client, staff)
        assert [(n["type"], n["account"]["id"]) for n in signed_up] == \
            [("admin.sign_up", newcomer)]
        entity("Notification", signed_up[0])
        assert "status" not in signed_up[0]
    assert notes(client, tokens["alice"], "?types[]=admin.sign_up") == []
    # An account waiting for approval is announced when it is approved (Mastodon: when the
    # user becomes usable).
    staff_token = auth(user_token(app, admin_id, scopes=("admin:write",)))
    approved = client.post(f"/api/v1/admin/accounts/{pending}/approve", headers=staff_token)
    assert approved.status_code == 200, approved.text
    drain()
    assert [n["account"]["id"] for n in notes(client, moderator)] == [pending, newcomer]


def test_role_changes_move_users_in_and_out_of_the_staff_index(client, people, drain):
    from stratus.api.accounts import operator
    from stratus.model.roles import Permission
    from stratus.read import roles as roles_read

    ids_, _ = people
    assert roles_read.accounts_who_can(Permission.MANAGE_USERS) == []
    operator.operator_modify("carol", role="Moderator")
    assert roles_read.accounts_who_can(Permission.MANAGE_USERS) == [ids_["carol"]]
    assert roles_read.accounts_who_can(Permission.MANAGE_SETTINGS) == []
    operator.operator_modify("carol", role="user")
    assert roles_read.accounts_who_can(Permission.MANAGE_USERS) == []


def test_a_boost_made_after_the_edit_is_not_told_of_it(client, people, drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="draft")
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"])
    drain()
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "final"})
    # carol boosts before the edit's job runs: she saw the edited status, nothing to tell.
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["carol"])
    drain()
    assert kinds(notes(client, tokens["bob"])) == ["update"]
    assert notes(client, tokens["carol"]) == []
