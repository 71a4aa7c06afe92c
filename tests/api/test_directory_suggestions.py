"""The profile directory (orders, discoverability, moderation, offset) and follow suggestions
(featured by staff, popular, the exclusions and dismissals)."""

from __future__ import annotations

from stratus.read import settings as settings_service
from stratus.repo import base, keys

from tests.rig import follow, post


def discoverable(client, headers, value=True):
    response = client.patch("/api/v1/accounts/update_credentials", headers=headers,
                            data={"discoverable": "true" if value else "false"})
    assert response.status_code == 200, response.text


def moderate(account_id, attribute):
    """What issue 11's account actions set on the profile (suspend, silence)."""
    base.update(keys.account_profile(account_id), f"SET {attribute} = :t",
                vals={":t": "2026-01-01T00:00:00.000Z"})


def directory(client, headers=None, **params):
    response = client.get("/api/v1/directory", headers=headers or {}, params=params)
    assert response.status_code == 200, response.text
    return [a["username"] for a in response.json()]


def test_directory_orders_by_activity_and_creation(client, people, drain, entity):
    _, tokens = people
    for name in ("alice", "bob", "carol"):
        discoverable(client, tokens[name])
    drain()
    # Nobody posted: active order puts them all last, newest account first among equals.
    post(client, tokens["bob"], status="bob first")
    post(client, tokens["alice"], status="alice later")
    drain()
    assert directory(client) == ["alice", "bob", "carol"]
    assert directory(client, order="new") == ["carol", "bob", "alice"]
    assert directory(client, order="new", local="true", offset=1, limit=1) == ["bob"]
    post(client, tokens["bob"], status="bob again")
    drain()
    assert directory(client)[:2] == ["bob", "alice"]
    response = client.get("/api/v1/directory")
    for account in response.json():
        entity("Account", account)
    assert response.headers["cache-control"].startswith("max-age=15, public")


def test_only_discoverable_unmoderated_accounts_are_listed(client, people, drain):
    ids_, tokens = people
    for name in ("alice", "bob", "carol", "dave"):
        discoverable(client, tokens[name])
    discoverable(client, tokens["dave"], False)
    drain()
    assert sorted(directory(client)) == ["alice", "bob", "carol"]
    moderate(ids_["bob"], "suspended_at")
    moderate(ids_["carol"], "silenced_at")
    drain()
    assert directory(client) == ["alice"]
    # The entries went with the stream: the index itself no longer has them.
    from stratus.repo import directory as directory_repo

    assert set(directory_repo.listing("new", ["LOCAL"], 10)) == {ids_["alice"]}


def test_a_viewer_does_not_see_accounts_it_blocks_or_mutes(client, people, drain):
    ids_, tokens = people
    for name in ("alice", "bob", "carol", "dave"):
        discoverable(client, tokens[name])
    client.post(f"/api/v1/accounts/{ids_['bob']}/block", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['carol']}/mute", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/block", headers=tokens["dave"])
    drain()
    assert directory(client, tokens["alice"], order="new") == ["alice"]
    assert directory(client, order="new") == ["dave", "carol", "bob", "alice"]


def test_directory_can_be_turned_off(client, people):
    settings_service.set_value("profile_directory", False)
    assert client.get("/api/v1/directory").status_code == 404


def test_suggestions_featured_then_popular_minus_exclusions(client, people, drain, entity):
    ids_, tokens = people
    for name in ("alice", "bob", "carol", "dave"):
        discoverable(client, tokens[name])
        post(client, tokens[name], status=f"{name} is active")
    # carol is the most followed, then bob; dave is featured by staff.
    follow(client, tokens["alice"], ids_["carol"])
    follow(client, tokens["bob"], ids_["carol"])
    follow(client, tokens["dave"], ids_["carol"])
    follow(client, tokens["carol"], ids_["bob"])
    settings_service.set_value("bootstrap_timeline_accounts", "@dave, nobody")
    drain()
    response = client.get("/api/v2/suggestions", headers=tokens["alice"])
    assert response.status_code == 200, response.text
    body = response.json()
    for suggestion in body:
        entity("Suggestion", suggestion)
    # alice follows carol; never herself.
    assert [(s["account"]["username"], s["sources"], s["source"]) for s in body] == [
        ("dave", ["featured"], "staff"), ("bob", ["most_followed"], "global")]
    v1 = client.get("/api/v1/suggestions", headers=tokens["alice"])
    assert [a["username"] for a in v1.json()] == ["dave", "bob"]
    assert [s["account"]["username"] for s in client.get(
        "/api/v2/suggestions", headers=tokens["alice"], params={"limit": 1}).json()] == ["dave"]
    # Dismissed, blocked and muted accounts go.
    gone = client.delete(f"/api/v1/suggestions/{ids_['dave']}", headers=tokens["alice"])
    assert (gone.status_code, gone.json()) == (200, {})
    assert names(client, tokens["alice"]) == ["bob"]
    client.post(f"/api/v1/accounts/{ids_['bob']}/mute", headers=tokens["alice"])
    assert names(client, tokens["alice"]) == []
    # bob follows carol already, and dave (featured) blocks him: nothing for bob, and dave is
    # not offered bob either; carol follows bob and gets dave.
    client.post(f"/api/v1/accounts/{ids_['bob']}/block", headers=tokens["dave"])
    drain()
    assert names(client, tokens["bob"]) == []
    assert names(client, tokens["dave"]) == []
    assert names(client, tokens["carol"]) == ["dave"]
    assert client.delete("/api/v1/suggestions/123", headers=tokens["alice"]).status_code == 404


def names(client, headers):
    response = client.get("/api/v2/suggestions", headers=headers)
    assert response.status_code == 200, response.text
    return [s["account"]["username"] for s in response.json()]


def test_requested_and_undiscoverable_accounts_are_not_suggested(client, people, drain):
    ids_, tokens = people
    for name in ("bob", "carol"):
        discoverable(client, tokens[name])
        post(client, tokens[name], status="active")
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["bob"],
                 data={"locked": "true"})
    follow(client, tokens["alice"], ids_["bob"])  # a pending request
    settings_service.set_value("bootstrap_timeline_accounts", "bob,carol,dave")
    drain()
    assert names(client, tokens["alice"]) == ["carol"]  # dave is not discoverable
    assert client.get("/api/v2/suggestions").status_code == 401
