"""Lists: CRUD, members (followed accounts only), list timelines fed by fan-out with the
replies policy, exclusive lists keeping their members out of home, unfollows and deletes."""

from __future__ import annotations

from stratus.repo import base, keys

from tests.rig import follow, home, post


def make_list(client, headers, **fields) -> dict:
    response = client.post("/api/v1/lists", headers=headers, data={"title": "friends", **fields})
    assert response.status_code == 200, response.text
    return response.json()


def timeline(client, headers, list_id) -> list[str]:
    response = client.get(f"/api/v1/timelines/list/{list_id}", headers=headers)
    assert response.status_code == 200, response.text
    return [s["id"] for s in response.json()]


def test_list_crud(client, people, entity):
    ids_, tokens = people
    created = make_list(client, tokens["alice"], replies_policy="followed", exclusive="true")
    entity("List", created)
    assert (created["title"], created["replies_policy"], created["exclusive"]) == \
        ("friends", "followed", True)
    default = make_list(client, tokens["alice"], title="others")
    assert default["replies_policy"] == "list" and default["exclusive"] is False
    assert [lst["id"] for lst in client.get("/api/v1/lists", headers=tokens["alice"]).json()] == \
        [created["id"], default["id"]]
    updated = client.put(f"/api/v1/lists/{created['id']}", headers=tokens["alice"],
                         data={"title": "close friends", "exclusive": "false"}).json()
    assert (updated["title"], updated["replies_policy"], updated["exclusive"]) == \
        ("close friends", "followed", False)
    blank = client.post("/api/v1/lists", headers=tokens["alice"], data={"title": " "})
    assert blank.status_code == 422 and blank.json()["details"]["title"][0]["error"] == "ERR_BLANK"
    bad = client.post("/api/v1/lists", headers=tokens["alice"],
                      data={"title": "x", "replies_policy": "everyone"})
    assert bad.status_code == 422
    # Someone else's list does not exist for you.
    assert client.get(f"/api/v1/lists/{created['id']}", headers=tokens["bob"]).status_code == 404
    assert client.delete(f"/api/v1/lists/{created['id']}", headers=tokens["bob"]).status_code == 404
    assert client.delete(f"/api/v1/lists/{created['id']}",
                         headers=tokens["alice"]).json() == {}
    assert client.get(f"/api/v1/lists/{created['id']}",
                      headers=tokens["alice"]).status_code == 404


def test_members_must_be_followed(client, people, drain, entity):
    ids_, tokens = people
    listed = make_list(client, tokens["alice"])
    path = f"/api/v1/lists/{listed['id']}/accounts"
    assert client.post(path, headers=tokens["alice"],
                       data={"account_ids[]": [ids_["bob"]]}).status_code == 404
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["carol"])
    assert client.post(path, headers=tokens["alice"],
                       data={"account_ids[]": [ids_["bob"], ids_["carol"]]}).json() == {}
    again = client.post(path, headers=tokens["alice"], data={"account_ids[]": [ids_["bob"]]})
    assert again.status_code == 422
    members = client.get(path, headers=tokens["alice"])
    for account in members.json():
        entity("Account", account)
    assert {a["id"] for a in members.json()} == {ids_["bob"], ids_["carol"]}
    everyone = client.get(path, headers=tokens["alice"], params={"limit": 0})
    assert len(everyone.json()) == 2 and "link" not in everyone.headers
    first = client.get(path, headers=tokens["alice"], params={"limit": 1})
    assert len(first.json()) == 1 and 'rel="next"' in first.headers["link"]
    mine = client.get(f"/api/v1/accounts/{ids_['bob']}/lists", headers=tokens["alice"]).json()
    assert [lst["id"] for lst in mine] == [listed["id"]]
    assert client.get(f"/api/v1/accounts/{ids_['bob']}/lists", headers=tokens["carol"]).json() == []
    client.request("DELETE", path, headers=tokens["alice"], data={"account_ids[]": [ids_["carol"]]})
    assert [a["id"] for a in client.get(path, headers=tokens["alice"]).json()] == [ids_["bob"]]
    # Unfollowing takes the account out of the follower's lists (Mastodon).
    client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["alice"])
    drain()
    assert client.get(path, headers=tokens["alice"]).json() == []


def test_list_timelines_and_replies_policies(client, active, drain):
    ids_, tokens = active
    for name in ("bob", "carol", "dave"):
        follow(client, tokens["alice"], ids_[name])
    drain()
    by_policy = {policy: make_list(client, tokens["alice"], title=policy, replies_policy=policy)
                 for policy in ("list", "followed", "none")}
    for listed in by_policy.values():
        client.post(f"/api/v1/lists/{listed['id']}/accounts", headers=tokens["alice"],
                    data={"account_ids[]": [ids_["bob"], ids_["carol"]]})
    drain()
    root_dave = post(client, tokens["dave"], status="dave")
    root_carol = post(client, tokens["carol"], status="carol")
    drain()
    plain = post(client, tokens["bob"], status="bob says")
    to_carol = post(client, tokens["bob"], status="@carol yes", in_reply_to_id=root_carol["id"])
    to_dave = post(client, tokens["bob"], status="@dave yes", in_reply_to_id=root_dave["id"])
    drain()
    seen = {policy: timeline(client, tokens["alice"], listed["id"])
            for policy, listed in by_policy.items()}
    assert plain["id"] in seen["list"] and root_carol["id"] in seen["list"]
    assert root_dave["id"] not in seen["list"]  # dave is not a member
    assert to_carol["id"] in seen["list"] and to_dave["id"] not in seen["list"]
    assert to_carol["id"] in seen["followed"] and to_dave["id"] in seen["followed"]
    assert to_carol["id"] not in seen["none"] and to_dave["id"] not in seen["none"]
    assert client.get(f"/api/v1/timelines/list/{by_policy['list']['id']}",
                      headers=tokens["bob"]).status_code == 404


def test_exclusive_lists_keep_their_members_out_of_home(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["carol"])
    drain()
    exclusive = make_list(client, tokens["alice"], title="work", exclusive="true")
    client.post(f"/api/v1/lists/{exclusive['id']}/accounts", headers=tokens["alice"],
                data={"account_ids[]": [ids_["bob"]]})
    drain()
    bobs = post(client, tokens["bob"], status="work talk")
    carols = post(client, tokens["carol"], status="home talk")
    drain()
    assert bobs["id"] in timeline(client, tokens["alice"], exclusive["id"])
    feed = home(client, tokens["alice"])
    assert carols["id"] in feed and bobs["id"] not in feed


def test_new_members_bring_their_recent_posts_and_leavers_take_theirs(client, active,  # noqa
                                                                      drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    earlier = post(client, tokens["bob"], status="before the list")
    drain()
    listed = make_list(client, tokens["alice"])
    path = f"/api/v1/lists/{listed['id']}/accounts"
    client.post(path, headers=tokens["alice"], data={"account_ids[]": [ids_["bob"]]})
    drain()
    assert timeline(client, tokens["alice"], listed["id"]) == [earlier["id"]]
    client.request("DELETE", path, headers=tokens["alice"], data={"account_ids[]": [ids_["bob"]]})
    drain()
    assert timeline(client, tokens["alice"], listed["id"]) == []


def test_deleting_a_list_removes_its_members_and_timeline(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    listed = make_list(client, tokens["alice"])
    client.post(f"/api/v1/lists/{listed['id']}/accounts", headers=tokens["alice"],
                data={"account_ids[]": [ids_["bob"]]})
    drain()
    post(client, tokens["bob"], status="for the list")
    drain()
    client.delete(f"/api/v1/lists/{listed['id']}", headers=tokens["alice"])
    drain()
    assert list(base.query(keys.list_members_pk(listed["id"]))) == []
    feed_table = client.app.stack.table_names["FeedTable"]
    assert list(base.query(keys.list_feed(listed["id"]), table_name=feed_table)) == []
