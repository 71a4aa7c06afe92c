"""Grouped notifications (v2, Mastodon 4.3): groups by status and hour bucket, ordering by the
latest member, sample accounts, deduplicated accounts and statuses, pages, single groups, their
accounts, dismissal, `grouped_types[]`, `expand_accounts` and unread counts."""

from __future__ import annotations

from stratus.core import clock, ids
from stratus.repo import effects as effects_repo
from stratus.repo import notifications as notifications_repo
from stratus.workers import effects

from tests.rig import favourite, notes, post


def grouped(client, headers, query="", status=200):
    response = client.get("/api/v2/notifications" + query, headers=headers)
    assert response.status_code == status, response.text
    return response.json()


def summary(body):
    return [(g["type"], g["notifications_count"], g["sample_account_ids"])
            for g in body["notification_groups"]]


def test_likes_of_one_status_are_one_group(client, people, drain, entity):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    other = post(client, tokens["alice"], status="me too")
    for name in ("bob", "carol", "dave"):
        favourite(client, tokens[name], liked["id"])
    favourite(client, tokens["bob"], other["id"])
    post(client, tokens["carol"], status="hey @alice")
    drain()
    body = grouped(client, tokens["alice"])
    entity("GroupedNotificationsResults", body)
    for group in body["notification_groups"]:
        entity("NotificationGroup", group)
    assert summary(body) == [
        ("mention", 1, [ids_["carol"]]),
        ("favourite", 1, [ids_["bob"]]),
        ("favourite", 3, [ids_["dave"], ids_["carol"], ids_["bob"]]),
    ]
    mention, other_group, liked_group = body["notification_groups"]
    assert liked_group["status_id"] == liked["id"] and other_group["status_id"] == other["id"]
    assert liked_group["group_key"].startswith(f"favourite-{liked['id']}-")
    assert mention["group_key"].startswith("ungrouped-")
    # Accounts and statuses come once each, whatever number of groups name them.
    assert sorted(a["id"] for a in body["accounts"]) == sorted([ids_["bob"], ids_["carol"],
                                                               ids_["dave"]])
    assert sorted(s["id"] for s in body["statuses"]) == sorted(
        [liked["id"], other["id"], mention["status_id"]])
    v1 = notes(client, tokens["alice"])
    assert liked_group["most_recent_notification_id"] == int(v1[2]["id"])
    assert liked_group["page_max_id"] == v1[2]["id"]
    assert mention["latest_page_notification_at"] == v1[0]["created_at"]
    assert "partial_accounts" not in body


def test_a_new_member_moves_its_group_to_the_top(client, people, drain):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    favourite(client, tokens["bob"], liked["id"])
    drain()
    post(client, tokens["carol"], status="hey @alice")
    drain()
    assert [g["type"] for g in grouped(client, tokens["alice"])["notification_groups"]] == \
        ["mention", "favourite"]
    favourite(client, tokens["dave"], liked["id"])
    drain()
    assert summary(grouped(client, tokens["alice"]))[0] == \
        ("favourite", 2, [ids_["dave"], ids_["bob"]])


def test_pages_of_groups(client, people, drain):
    ids_, tokens = people
    statuses = [post(client, tokens["alice"], status=f"status {n}") for n in range(3)]
    for status in statuses:
        favourite(client, tokens["bob"], status["id"])
        favourite(client, tokens["carol"], status["id"])
        drain()
    response = client.get("/api/v2/notifications?limit=2", headers=tokens["alice"])
    first = response.json()["notification_groups"]
    assert [g["status_id"] for g in first] == [statuses[2]["id"], statuses[1]["id"]]
    assert all(g["notifications_count"] == 2 for g in first)
    link = response.headers["link"]
    next_max = first[-1]["page_max_id"]
    assert f"max_id={next_max}" in link and f"min_id={first[0]['page_max_id']}" in link
    # The last group's page_min_id is where the next page starts (clients use either).
    assert first[-1]["page_min_id"] == next_max
    rest = grouped(client, tokens["alice"], f"?limit=2&max_id={next_max}")
    assert [g["status_id"] for g in rest["notification_groups"]] == [statuses[0]["id"]]
    newer = grouped(client, tokens["alice"], f"?limit=1&min_id={next_max}")
    assert [g["status_id"] for g in newer["notification_groups"]] == [statuses[2]["id"]]


def test_grouped_types_and_type_filters(client, people, drain):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    favourite(client, tokens["bob"], liked["id"])
    favourite(client, tokens["carol"], liked["id"])
    client.post(f"/api/v1/statuses/{liked['id']}/reblog", headers=tokens["dave"])
    post(client, tokens["dave"], status="hey @alice")
    drain()
    alice = tokens["alice"]
    # Mastodon web's request: favourites, boosts and follows grouped.
    assert summary(grouped(client, alice, "?grouped_types[]=favourite&grouped_types[]=reblog"
                                          "&grouped_types[]=follow")) == [
        ("mention", 1, [ids_["dave"]]), ("reblog", 1, [ids_["dave"]]),
        ("favourite", 2, [ids_["carol"], ids_["bob"]])]
    # Favourites left out of grouped_types come one by one.
    ungrouped = grouped(client, alice, "?grouped_types[]=reblog")
    assert summary(ungrouped) == [
        ("mention", 1, [ids_["dave"]]), ("reblog", 1, [ids_["dave"]]),
        ("favourite", 1, [ids_["carol"]]), ("favourite", 1, [ids_["bob"]])]
    assert all(g["group_key"].startswith("ungrouped-")
               for g in ungrouped["notification_groups"] if g["type"] == "favourite")
    assert summary(grouped(client, alice, "?types[]=favourite")) == [
        ("favourite", 2, [ids_["carol"], ids_["bob"]])]
    assert summary(grouped(client, alice, "?types[]=mention")) == [("mention", 1, [ids_["dave"]])]
    assert [g["type"] for g in grouped(client, alice,
                                       "?exclude_types[]=favourite")["notification_groups"]] \
        == ["mention", "reblog"]
    assert summary(grouped(client, alice, f"?account_id={ids_['carol']}")) == [
        ("favourite", 1, [ids_["carol"]])]
    assert grouped(client, alice, "?account_id=nobody")["notification_groups"] == []


def test_partial_avatars(client, people, drain, entity):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    for name in ("bob", "carol"):
        favourite(client, tokens[name], liked["id"])
    post(client, tokens["dave"], status="hey @alice")
    drain()
    body = grouped(client, tokens["alice"], "?expand_accounts=partial_avatars")
    entity("GroupedNotificationsResults", body)
    # The first sample of each group is a full account, the others partial ones.
    assert sorted(a["id"] for a in body["accounts"]) == sorted([ids_["dave"], ids_["carol"]])
    assert [a["id"] for a in body["partial_accounts"]] == [ids_["bob"]]
    for partial in body["partial_accounts"]:
        entity("PartialAccountWithAvatar", partial)
        assert set(partial) == {"id", "acct", "locked", "bot", "url", "avatar", "avatar_static"}
    bad = client.get("/api/v2/notifications?expand_accounts=all", headers=tokens["alice"])
    assert bad.status_code == 400 and "expand_accounts" in bad.json()["error"]


def test_one_group_its_accounts_and_dismissing_it(client, people, drain, entity):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    for name in ("bob", "carol", "dave"):
        favourite(client, tokens[name], liked["id"])
    post(client, tokens["bob"], status="hey @alice")
    drain()
    alice = tokens["alice"]
    mention, likes = grouped(client, alice)["notification_groups"]
    one = client.get(f"/api/v2/notifications/{likes['group_key']}", headers=alice)
    assert one.status_code == 200
    entity("GroupedNotificationsResults", one.json())
    [group] = one.json()["notification_groups"]
    assert group["notifications_count"] == 3 and "page_min_id" not in group
    assert [s["id"] for s in one.json()["statuses"]] == [liked["id"]]
    single = client.get(f"/api/v2/notifications/{mention['group_key']}", headers=alice).json()
    assert single["notification_groups"][0]["type"] == "mention"
    for key in (likes["group_key"], mention["group_key"], "favourite-1-1", "ungrouped-5"):
        assert client.get(f"/api/v2/notifications/{key}",
                          headers=tokens["carol"]).status_code == 404
    accounts = client.get(f"/api/v2/notifications/{likes['group_key']}/accounts", headers=alice)
    assert [a["id"] for a in accounts.json()] == [ids_["dave"], ids_["carol"], ids_["bob"]]
    page = client.get(f"/api/v2/notifications/{likes['group_key']}/accounts?limit=2",
                      headers=alice)
    assert [a["id"] for a in page.json()] == [ids_["dave"], ids_["carol"]]
    assert 'rel="next"' in page.headers["link"]
    assert client.get(f"/api/v2/notifications/{mention['group_key']}/accounts",
                      headers=alice).json() == []
    dismissed = client.post(f"/api/v2/notifications/{likes['group_key']}/dismiss",
                            headers=alice)
    assert dismissed.status_code == 200 and dismissed.json() == {}
    assert [n["type"] for n in notes(client, alice)] == ["mention"]
    client.post(f"/api/v2/notifications/{mention['group_key']}/dismiss", headers=alice)
    assert notes(client, alice) == []
    drain()  # the emptied group's head goes with its last member
    assert grouped(client, alice)["notification_groups"] == []
    assert notifications_repo.get_group(ids_["alice"], likes["group_key"]) is None


def test_a_large_group_is_dismissed_by_the_worker(client, people, drain, monkeypatch):
    from stratus.api.notifications import listing as service

    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    for name in ("bob", "carol", "dave"):
        favourite(client, tokens[name], liked["id"])
    drain()
    [likes] = grouped(client, tokens["alice"])["notification_groups"]
    monkeypatch.setattr(service, "INLINE_REMOVALS", 1)
    client.post(f"/api/v2/notifications/{likes['group_key']}/dismiss", headers=tokens["alice"])
    assert len(notes(client, tokens["alice"])) == 2
    drain()
    assert notes(client, tokens["alice"]) == []
    assert grouped(client, tokens["alice"])["notification_groups"] == []


def test_undoing_likes_shrinks_and_then_removes_the_group(client, people, drain):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    for name in ("bob", "carol"):
        favourite(client, tokens[name], liked["id"])
    drain()
    client.post(f"/api/v1/statuses/{liked['id']}/unfavourite", headers=tokens["carol"])
    drain()
    assert summary(grouped(client, tokens["alice"])) == [("favourite", 1, [ids_["bob"]])]
    client.post(f"/api/v1/statuses/{liked['id']}/unfavourite", headers=tokens["bob"])
    drain()
    assert grouped(client, tokens["alice"])["notification_groups"] == []
    favourite(client, tokens["dave"], liked["id"])
    drain()
    assert summary(grouped(client, tokens["alice"])) == [("favourite", 1, [ids_["dave"]])]


def test_deleting_the_status_removes_its_groups(client, people, drain):
    _, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    favourite(client, tokens["bob"], liked["id"])
    client.post(f"/api/v1/statuses/{liked['id']}/reblog", headers=tokens["carol"])
    drain()
    assert len(grouped(client, tokens["alice"])["notification_groups"]) == 2
    client.delete(f"/api/v1/statuses/{liked['id']}", headers=tokens["alice"])
    drain()
    assert grouped(client, tokens["alice"])["notification_groups"] == []


def test_follows_are_one_group(client, people, drain):
    ids_, tokens = people
    # Follows come with the social graph; its notifications go through the same one place.
    for name in ("bob", "carol"):
        assert effects._notify([ids_["alice"]], "follow", ids_[name], ids_[name], None) == 1
    drain()
    assert summary(grouped(client, tokens["alice"])) == [
        ("follow", 2, [ids_["carol"], ids_["bob"]])]
    [group] = grouped(client, tokens["alice"])["notification_groups"]
    assert group["group_key"].startswith("follow-") and "status_id" not in group
    assert [n["type"] for n in notes(client, tokens["alice"])] == ["follow", "follow"]


def test_unread_count_counts_groups(client, people, drain):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    for name in ("bob", "carol", "dave"):
        favourite(client, tokens[name], liked["id"])
    post(client, tokens["bob"], status="hey @alice")
    drain()
    alice = tokens["alice"]

    def unread(query=""):
        response = client.get("/api/v2/notifications/unread_count" + query, headers=alice)
        assert response.status_code == 200, response.text
        return response.json()["count"]

    assert unread() == 2
    assert client.get("/api/v1/notifications/unread_count", headers=alice).json()["count"] == 4
    assert unread("?grouped_types[]=reblog") == 4
    assert unread("?types[]=favourite") == 1
    assert unread("?limit=1") == 1
    newest = notes(client, alice)[0]
    client.post("/api/v1/markers", headers=alice,
                json={"notifications": {"last_read_id": newest["id"]}})
    assert unread() == 0
    favourite(client, tokens["bob"], post(client, alice, status="again")["id"])
    drain()
    assert unread() == 1


def test_groups_span_at_most_twelve_hours(client, people, drain, monkeypatch):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    start = clock.now()
    for hours, name in ((0, "bob"), (11, "carol"), (13, "dave")):
        monkeypatch.setattr(clock, "now", lambda h=hours: start + __import__(
            "datetime").timedelta(hours=h))
        favourite(client, tokens[name], liked["id"])
        drain()
    monkeypatch.undo()
    groups = grouped(client, tokens["alice"])["notification_groups"]
    assert [(g["notifications_count"], g["sample_account_ids"]) for g in groups] == [
        (1, [ids_["dave"]]), (2, [ids_["carol"], ids_["bob"]])]
    bucket = int(start.timestamp()) // 3600
    assert groups[1]["group_key"] == f"favourite-{liked['id']}-{bucket}"
    assert groups[0]["group_key"] == f"favourite-{liked['id']}-{bucket + 13}"


def test_a_notification_seen_twice_by_the_counters_counts_once(client, people, drain, runtime):
    from tests.rig import deliver_twice, dispatch_only

    ids_, tokens = people
    drain()
    liked = post(client, tokens["alice"], status="like me")
    for name in ("bob", "carol"):
        favourite(client, tokens[name], liked["id"])
    dispatch_only(runtime)
    runtime.pipeline.drain()  # effects write the notifications; their counts are queued
    [likes] = grouped(client, tokens["alice"])["notification_groups"]
    assert likes["notifications_count"] == 2
    effects_repo.notify(ids_["alice"], "favourite", ids_["dave"], liked["id"],
                        {"id": ids.new_id(), "status_id": liked["id"],
                         "created_at": clock.iso(clock.now())},
                        group_key=likes["group_key"])
    dispatch_only(runtime)
    assert deliver_twice(runtime, "CountersQueue") == 1
    drain()
    assert summary(grouped(client, tokens["alice"])) == [
        ("favourite", 3, [ids_["dave"], ids_["carol"], ids_["bob"]])]



def test_the_sample_is_the_eight_newest_members(client, people, drain):
    from tests.rig import auth, make_app, make_user, user_token

    _, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    app = make_app(client)
    fans = [make_user(f"fan{n}") for n in range(10)]
    for fan in fans:
        favourite(client, auth(user_token(app, fan)), liked["id"])
    drain()
    [group] = grouped(client, tokens["alice"])["notification_groups"]
    assert group["notifications_count"] == 10
    assert group["sample_account_ids"] == list(reversed(fans))[:8]
    everyone = client.get(f"/api/v2/notifications/{group['group_key']}/accounts",
                          headers=tokens["alice"]).json()
    assert [a["id"] for a in everyone] == list(reversed(fans))


def test_an_undone_newest_like_moves_its_group_back(client, people, drain):
    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    favourite(client, tokens["bob"], liked["id"])
    drain()
    post(client, tokens["dave"], status="hey @alice")
    drain()
    favourite(client, tokens["carol"], liked["id"])
    drain()
    assert summary(grouped(client, tokens["alice"])) == [
        ("favourite", 2, [ids_["carol"], ids_["bob"]]), ("mention", 1, [ids_["dave"]])]
    client.post(f"/api/v1/statuses/{liked['id']}/unfavourite", headers=tokens["carol"])
    drain()
    groups = grouped(client, tokens["alice"])["notification_groups"]
    assert summary({"notification_groups": groups}) == [
        ("mention", 1, [ids_["dave"]]), ("favourite", 1, [ids_["bob"]])]
    bobs = notes(client, tokens["alice"], "?types[]=favourite")[0]
    assert groups[1]["most_recent_notification_id"] == int(bobs["id"])


def test_heads_settled_concurrently_lose_no_member(client, people, drain, monkeypatch):
    from stratus.workers import notification_groups

    ids_, tokens = people
    liked = post(client, tokens["alice"], status="like me")
    favourite(client, tokens["bob"], liked["id"])
    drain()
    write = notifications_repo.write_group
    raced = []

    def another_worker_first(account_id, group_key, sample, version):
        if not raced:  # another worker rewrites the head between our read and our write
            raced.append(True)
            head = notifications_repo.group_for_update(account_id, group_key)
            write(account_id, group_key, head["samples"], head.get("sample_version"))
        return write(account_id, group_key, sample, version)

    monkeypatch.setattr(notification_groups.repo, "write_group", another_worker_first)
    favourite(client, tokens["carol"], liked["id"])
    drain()
    assert raced
    assert summary(grouped(client, tokens["alice"])) == [
        ("favourite", 2, [ids_["carol"], ids_["bob"]])]
