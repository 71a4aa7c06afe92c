"""The notification policy (Mastodon 4.3: accept, filter or drop per rule) applied where
notifications are created, and notification requests: filtered mentions wait per sender until
accepted (they join the lists, the sender is never filtered again) or dismissed (they go)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from stratus.core import clock
from stratus.repo import base, keys

from tests.rig import (
    auth,
    favourite,
    follow_edge,
    kinds,
    make_app,
    make_user,
    notes,
    post,
    requests,
    set_policy,
    user_token,
)


def followed_since(follower_id, followed_id, days_ago):
    follow_edge(follower_id, followed_id,
                created_at=clock.iso(clock.now() - timedelta(days=days_ago)))


def make_old(account_id, days=60):
    base.update(keys.account_profile(account_id), "SET created_at = :c",
                vals={":c": clock.iso(clock.now() - timedelta(days=days))})


def test_the_policy_and_its_defaults(client, people, entity):
    _, tokens = people
    policy = client.get("/api/v2/notifications/policy", headers=tokens["alice"])
    assert policy.status_code == 200
    entity("NotificationPolicy", policy.json())
    assert policy.json() == {"for_not_following": "accept", "for_not_followers": "accept",
                             "for_new_accounts": "accept", "for_private_mentions": "filter",
                             "for_limited_accounts": "filter",
                             "summary": {"pending_requests_count": 0,
                                         "pending_notifications_count": 0}}
    changed = set_policy(client, tokens["alice"], for_not_following="drop",
                         for_new_accounts="filter")
    assert changed["for_not_following"] == "drop" and changed["for_new_accounts"] == "filter"
    assert changed["for_private_mentions"] == "filter"
    json_body = client.patch("/api/v2/notifications/policy", headers=tokens["alice"],
                             json={"for_not_following": "accept"})
    assert json_body.json()["for_not_following"] == "accept"
    bad = client.patch("/api/v2/notifications/policy", headers=tokens["alice"],
                       data={"for_not_following": "maybe"})
    assert bad.status_code == 422 and "For not following" in bad.json()["error"]
    assert client.get("/api/v2/notifications/policy",
                      headers=tokens["bob"]).json()["for_new_accounts"] == "accept"
    app = make_app(client)
    reader = auth(user_token(app, people[0]["alice"], scopes=("read:notifications",)))
    assert client.patch("/api/v2/notifications/policy", headers=reader,
                        data={"for_not_following": "drop"}).status_code == 403


def test_filtered_mentions_wait_in_a_request_until_accepted(client, people, drain, entity):
    ids_, tokens = people
    alice = tokens["alice"]
    set_policy(client, alice, for_not_following="filter")
    first = post(client, tokens["bob"], status="@alice buy my stuff")
    drain()
    second = post(client, tokens["bob"], status="@alice really, buy it")
    mine = post(client, alice, status="mine")
    favourite(client, tokens["bob"], mine["id"])  # filtered too, but requests count mentions
    drain()
    assert notes(client, alice) == []
    assert client.get("/api/v2/notifications", headers=alice).json()["notification_groups"] == []
    assert client.get("/api/v1/notifications/unread_count", headers=alice).json()["count"] == 0
    hidden = notes(client, alice, "?include_filtered=true")
    assert kinds(hidden) == ["favourite", "mention", "mention"]
    assert all(n["filtered"] is True for n in hidden)
    for note in hidden:
        entity("Notification", note)
    assert kinds(notes(client, alice, f"?account_id={ids_['bob']}")) == \
        ["favourite", "mention", "mention"]
    [request] = requests(client, alice)
    entity("NotificationRequest", request)
    assert request["account"]["id"] == ids_["bob"] and request["notifications_count"] == "2"
    assert request["last_status"]["id"] == second["id"]
    assert client.get(f"/api/v1/notifications/requests/{request['id']}",
                      headers=alice).json() == request
    assert client.get(f"/api/v1/notifications/requests/{request['id']}",
                      headers=tokens["carol"]).status_code == 404
    policy = client.get("/api/v2/notifications/policy", headers=alice).json()
    assert policy["summary"] == {"pending_requests_count": 1, "pending_notifications_count": 2}

    accepted = client.post(f"/api/v1/notifications/requests/{request['id']}/accept",
                           headers=alice)
    assert accepted.status_code == 200 and accepted.json() == {}
    assert client.get("/api/v1/notifications/requests/merged",
                      headers=alice).json() == {"merged": False}
    drain()
    assert client.get("/api/v1/notifications/requests/merged",
                      headers=alice).json() == {"merged": True}
    assert [n["status"]["id"] for n in notes(client, alice)] == \
        [mine["id"], second["id"], first["id"]]
    assert "filtered" not in notes(client, alice)[0]
    assert requests(client, alice) == []
    assert client.get(f"/api/v1/notifications/requests/{request['id']}",
                      headers=alice).status_code == 404
    # Accepted once, never filtered again.
    post(client, tokens["bob"], status="@alice thanks")
    drain()
    assert kinds(notes(client, alice))[0] == "mention" and len(notes(client, alice)) == 4
    assert len(client.get("/api/v2/notifications",
                          headers=alice).json()["notification_groups"]) == 4


def test_a_dismissed_request_takes_its_notifications_with_it(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    set_policy(client, alice, for_not_following="filter")
    post(client, tokens["bob"], status="@alice spam")
    post(client, tokens["carol"], status="@alice hello")
    post(client, tokens["dave"], status="@alice hi")
    drain()
    listed = requests(client, alice)
    assert [r["account"]["id"] for r in listed] == [ids_["dave"], ids_["carol"], ids_["bob"]]
    by_sender = {r["account"]["id"]: r["id"] for r in listed}
    dismissed = client.post(f"/api/v1/notifications/requests/{by_sender[ids_['bob']]}/dismiss",
                            headers=alice)
    assert dismissed.status_code == 200
    drain()
    assert kinds(notes(client, alice, f"?account_id={ids_['bob']}")) == []
    assert len(notes(client, alice, "?include_filtered=true")) == 2
    # Bulk: accept one, dismiss another (unknown ids are ignored).
    assert client.post("/api/v1/notifications/requests/accept", headers=alice,
                       data={"id[]": [by_sender[ids_["carol"]], "999"]}).json() == {}
    assert client.post("/api/v1/notifications/requests/dismiss", headers=alice,
                       json={"id": [by_sender[ids_["dave"]]]}).json() == {}
    drain()
    assert [n["account"]["id"] for n in notes(client, alice, "?include_filtered=true")] == \
        [ids_["carol"]]
    assert requests(client, alice) == []
    assert client.get("/api/v2/notifications/policy", headers=alice).json()["summary"] == \
        {"pending_requests_count": 0, "pending_notifications_count": 0}


def test_request_pages(client, people, drain):
    ids_, tokens = people
    set_policy(client, tokens["alice"], for_not_following="filter")
    for name in ("bob", "carol", "dave"):
        post(client, tokens[name], status="@alice hey")
    drain()
    response = client.get("/api/v1/notifications/requests?limit=2", headers=tokens["alice"])
    first = response.json()
    assert [r["account"]["id"] for r in first] == [ids_["dave"], ids_["carol"]]
    assert f"max_id={first[-1]['id']}" in response.headers["link"]
    rest = requests(client, tokens["alice"], f"?max_id={first[-1]['id']}")
    assert [r["account"]["id"] for r in rest] == [ids_["bob"]]
    newer = requests(client, tokens["alice"], f"?min_id={rest[0]['id']}&limit=1")
    assert [r["account"]["id"] for r in newer] == [ids_["carol"]]


def test_drop_creates_nothing(client, people, drain):
    ids_, tokens = people
    set_policy(client, tokens["alice"], for_not_following="drop")
    post(client, tokens["bob"], status="@alice hello")
    mine = post(client, tokens["alice"], status="mine")
    favourite(client, tokens["carol"], mine["id"])
    follow_edge(ids_["alice"], ids_["dave"])
    post(client, tokens["dave"], status="@alice hi, you follow me")
    drain()
    assert [n["account"]["id"] for n in notes(client, tokens["alice"],
                                              "?include_filtered=true")] == [ids_["dave"]]
    assert requests(client, tokens["alice"]) == []


def test_private_mentions_are_filtered_unless_answering_or_followed(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    post(client, tokens["bob"], status="@alice psst", visibility="direct")
    drain()
    assert notes(client, alice) == []
    assert [r["account"]["id"] for r in requests(client, alice)] == [ids_["bob"]]
    # alice writes privately to carol; carol's private answer is let through.
    asked = post(client, alice, status="@carol secret?", visibility="direct")
    post(client, tokens["carol"], status="@alice yes", visibility="direct",
         in_reply_to_id=asked["id"])
    # dave is followed by alice: his private mentions are let through.
    follow_edge(ids_["alice"], ids_["dave"])
    post(client, tokens["dave"], status="@alice hi", visibility="direct")
    # A public mention is no private mention.
    post(client, tokens["bob"], status="@alice in public")
    drain()
    assert [n["account"]["id"] for n in notes(client, alice)] == \
        [ids_["bob"], ids_["dave"], ids_["carol"]]
    set_policy(client, alice, for_private_mentions="accept")
    post(client, tokens["bob"], status="@alice psst again", visibility="direct")
    drain()
    assert notes(client, alice)[0]["account"]["id"] == ids_["bob"]


def test_not_followers_counts_only_followers_of_three_days(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    set_policy(client, alice, for_not_followers="filter")
    followed_since(ids_["bob"], ids_["alice"], 1)
    followed_since(ids_["carol"], ids_["alice"], 10)
    followed_since(ids_["dave"], ids_["alice"], 60)  # an old follower
    for name in ("bob", "carol", "dave"):
        post(client, tokens[name], status="@alice hello")
    drain()
    mentions = notes(client, alice, "?types[]=mention")
    assert [n["account"]["id"] for n in mentions] == [ids_["dave"], ids_["carol"]]
    assert [r["account"]["id"] for r in requests(client, alice)] == [ids_["bob"]]


def test_new_accounts_are_filtered_unless_followed(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    set_policy(client, alice, for_new_accounts="filter")
    make_old(ids_["carol"])
    follow_edge(ids_["alice"], ids_["dave"])
    for name in ("bob", "carol", "dave"):
        post(client, tokens[name], status="@alice hello")
    drain()
    assert [n["account"]["id"] for n in notes(client, alice)] == [ids_["dave"], ids_["carol"]]


def test_limited_accounts_are_filtered_unless_followed(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    for name in ("bob", "dave"):
        base.update(keys.account_profile(ids_[name]), "SET silenced_at = :t",
                    vals={":t": clock.iso(clock.now())})
    follow_edge(ids_["alice"], ids_["dave"])
    for name in ("bob", "dave", "carol"):
        post(client, tokens[name], status="@alice hello")
    drain()
    assert [n["account"]["id"] for n in notes(client, alice)] == [ids_["carol"], ids_["dave"]]
    set_policy(client, alice, for_limited_accounts="accept")
    post(client, tokens["bob"], status="@alice again")
    drain()
    assert notes(client, alice)[0]["account"]["id"] == ids_["bob"]


def test_staff_may_write_privately_past_the_filters(client, people, drain):
    ids_, tokens = people
    drain()
    app = make_app(client)
    moderator = auth(user_token(app, make_user("mod", role="Moderator")))
    set_policy(client, tokens["alice"], for_not_following="filter")
    post(client, moderator, status="@alice about your report", visibility="direct")
    drain()
    assert kinds(notes(client, tokens["alice"])) == ["mention"]


def test_policy_leaves_other_types_alone(client, people, drain):
    ids_, tokens = people
    set_policy(client, tokens["bob"], for_not_following="drop", for_new_accounts="drop")
    status = post(client, tokens["alice"], status="boost me")
    client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"])
    drain()
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "edited"})
    drain()
    assert kinds(notes(client, tokens["bob"])) == ["update"]


@pytest.mark.parametrize("kind", ["favourite", "reblog"])
def test_a_muted_conversation_is_silent(client, people, drain, kind):
    _, tokens = people
    status = post(client, tokens["alice"], status="leave me be")
    client.post(f"/api/v1/statuses/{status['id']}/mute", headers=tokens["alice"])
    client.post(f"/api/v1/statuses/{status['id']}/{kind}", headers=tokens["bob"])
    reply = post(client, tokens["carol"], status="@alice but", in_reply_to_id=status["id"])
    drain()
    assert notes(client, tokens["alice"], "?include_filtered=true") == []
    client.post(f"/api/v1/statuses/{status['id']}/unmute", headers=tokens["alice"])
    post(client, tokens["carol"], status="@alice now?", in_reply_to_id=reply["id"])
    drain()
    assert kinds(notes(client, tokens["alice"])) == ["mention"]
