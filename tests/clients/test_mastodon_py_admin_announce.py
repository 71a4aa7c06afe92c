"""Mastodon.py against the local stack: a user's announcements (list, dismiss, reactions) and a
staff member's dashboard numbers (admin_measures, admin_dimensions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mastodon import Mastodon

from tests.rig import make_user, mastodon_py_users


def staff_client(base_url: str) -> Mastodon:
    scopes = ["read", "write", "admin:read", "admin:write"]
    make_user("boss", "boss@example.org", "boss password long", role="Owner")
    client_id, secret = Mastodon.create_app("staff tool", api_base_url=base_url, scopes=scopes)
    api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base_url)
    api.log_in("boss@example.org", "boss password long", scopes=scopes, allow_http=True)
    return api


def test_announcements_and_dashboard_through_mastodon_py(live_server):
    base_url = live_server.base_url
    staff = staff_client(base_url)
    (user,) = mastodon_py_users(base_url, "reader")
    created = staff._Mastodon__api_request("POST", "/api/v1/admin/announcements",
                                           {"text": "Welcome, see #rules"})
    live_server.pipeline.drain()

    (shown,) = user.announcements()
    assert shown.id == created["id"] and shown.read is False
    assert [t["name"] for t in shown.tags] == ["rules"]
    user.announcement_reaction_create(shown, "👍")
    live_server.pipeline.drain()
    (shown,) = user.announcements()
    assert [(r.name, r.count, r.me) for r in shown.reactions] == [("👍", 1, True)]
    user.announcement_reaction_delete(shown, "👍")
    live_server.pipeline.drain()
    assert user.announcements()[0].reactions == []
    user.announcement_dismiss(shown)
    assert user.announcements() == []

    user.status_post("hello", language="en")
    live_server.pipeline.drain()
    now = datetime.now(UTC)
    measures = {m.key: m for m in staff.admin_measures(now - timedelta(days=6), now,
                                                       new_users=True, active_users=True,
                                                       interactions=True)}
    assert measures["new_users"].total == "2" and len(measures["new_users"].data) == 7
    assert int(measures["active_users"].total) >= 2
    dimensions = {d.key: d for d in staff.admin_dimensions(now - timedelta(days=6), now,
                                                           languages=True, servers=True)}
    assert [(d.key, int(d.value)) for d in dimensions["languages"].data] == [("en", 1)]
    assert dimensions["servers"].data == []
