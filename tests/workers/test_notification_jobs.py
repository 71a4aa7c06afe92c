"""The notification jobs given twice (SQS delivers at least once) have their effect once:
update and admin.sign_up notifications, filtered mentions and their request, an accepted
request's merge, a dismissed request's cleanup, and a sweep."""

from __future__ import annotations

from stratus.repo import notifications as notifications_repo

from tests.rig import (
    auth,
    deliver_twice,
    dispatch_only,
    kinds,
    make_app,
    make_user,
    notes,
    post,
    requests,
    set_policy,
    user_token,
)


def twice(runtime, drain, queue="EffectsFunction:async") -> int:
    dispatch_only(runtime)
    delivered = deliver_twice(runtime, queue)
    drain()
    return delivered


def test_update_twice(client, people, runtime, drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="draft")
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"])
    drain()
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "final"})
    assert twice(runtime, drain) == 1
    assert kinds(notes(client, tokens["bob"])) == ["update"]


def test_admin_sign_up_twice(client, people, runtime, drain):
    drain()
    admin_id = make_user("root", role="Admin")
    drain()
    make_user("newcomer")
    assert twice(runtime, drain) == 2  # the sign-up notification and the actor's key pair
    admin = auth(user_token(make_app(client), admin_id))
    assert kinds(notes(client, admin)) == ["admin.sign_up"]


def test_filtered_mention_twice(client, people, runtime, drain):
    ids_, tokens = people
    set_policy(client, tokens["alice"], for_not_following="filter")
    drain()
    post(client, tokens["bob"], status="@alice hi")
    assert twice(runtime, drain) == 2  # the mention, and bob's directory entry (last_status_at)
    twice(runtime, drain, "CountersQueue")  # the request's count, given twice too
    [request] = requests(client, tokens["alice"])
    assert request["notifications_count"] == "1"
    assert len(notes(client, tokens["alice"], "?include_filtered=true")) == 1


def test_accepting_twice_merges_once(client, people, runtime, drain):
    ids_, tokens = people
    set_policy(client, tokens["alice"], for_not_following="filter")
    post(client, tokens["bob"], status="@alice one")
    post(client, tokens["bob"], status="@alice two")
    drain()
    [request] = requests(client, tokens["alice"])
    client.post(f"/api/v1/notifications/requests/{request['id']}/accept", headers=tokens["alice"])
    assert twice(runtime, drain) == 1
    assert client.get("/api/v1/notifications/requests/merged",
                      headers=tokens["alice"]).json() == {"merged": True}
    assert int(notifications_repo.get_policy(ids_["alice"])["pending_merges"]) == 0
    assert len(notes(client, tokens["alice"])) == 2


def test_dismissing_twice(client, people, runtime, drain):
    _, tokens = people
    set_policy(client, tokens["alice"], for_not_following="filter")
    post(client, tokens["bob"], status="@alice one")
    drain()
    [request] = requests(client, tokens["alice"])
    client.post(f"/api/v1/notifications/requests/{request['id']}/dismiss",
                headers=tokens["alice"])
    assert twice(runtime, drain) == 1
    assert notes(client, tokens["alice"], "?include_filtered=true") == []


def test_a_sweep_twice(client, people, runtime, drain, monkeypatch):
    from stratus.api.notifications import listing as service

    _, tokens = people
    for name in ("bob", "carol", "dave"):
        post(client, tokens[name], status="@alice hi")
    drain()
    monkeypatch.setattr(service, "INLINE_REMOVALS", 1)
    client.post("/api/v1/notifications/clear", headers=tokens["alice"])
    assert twice(runtime, drain) == 1
    assert notes(client, tokens["alice"]) == []
