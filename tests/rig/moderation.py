"""Moderation: `purge_world`, an account with followers, statuses, favourites and list
memberships to suspend and purge."""

from __future__ import annotations

import pytest

from tests.rig.accounts import auth, follow_edge, make_app, make_user, user_token

PURGE_SCOPES = ("read", "write", "follow", "admin:read", "admin:write")


@pytest.fixture
def purge_world(client, drain):
    """target (26 statuses, a favourite, followed by fan, following other, on fan's list), fan,
    other and an Admin: (ids, {name: auth headers}, target's status ids, other's status id)."""
    app = make_app(client, scopes="read write follow admin:read admin:write")
    admin = make_user("boss", role="Admin")
    ids_ = {n: make_user(n) for n in ("target", "fan", "other")}
    h = {n: auth(user_token(app, a, scopes=PURGE_SCOPES))
         for n, a in {**ids_, "admin": admin}.items()}
    follow_edge(ids_["fan"], ids_["target"])
    follow_edge(ids_["target"], ids_["other"])
    statuses = []
    for i in range(26):  # more than one step's batch (25)
        response = client.post("/api/v1/statuses", headers=h["target"],
                               data={"status": f"post {i}"})
        statuses.append(response.json()["id"])
    other_post = client.post("/api/v1/statuses", headers=h["other"],
                             data={"status": "hi @target"}).json()["id"]
    client.post(f"/api/v1/statuses/{other_post}/favourite", headers=h["target"])
    lst = client.post("/api/v1/lists", headers=h["fan"], data={"title": "friends"}).json()
    client.post(f"/api/v1/lists/{lst['id']}/accounts", headers=h["fan"],
                data={"account_ids[]": ids_["target"]})
    drain()
    return ids_, h, statuses, other_post
