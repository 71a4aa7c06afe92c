"""Timelines: home fed by fan-out on write with Mastodon's rules, public timelines over hour
buckets, hashtag timelines (who is fed, and feeds rebuilt for returning users:
test_home_activity.py)."""

from __future__ import annotations

from stratus.core import ids
from stratus.repo import base, keys, status_writes, transaction
from stratus.repo import statuses as statuses_repo

from tests.rig import follow, home, post


def test_home_has_own_posts_and_followed_accounts_posts(client, active, drain, entity):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    mine = post(client, tokens["alice"], status="mine")
    theirs = post(client, tokens["bob"], status="bob's")
    stranger = post(client, tokens["carol"], status="carol's")
    drain()
    response = client.get("/api/v1/timelines/home", headers=tokens["alice"])
    for status in response.json():
        entity("Status", status)
    assert [s["id"] for s in response.json()] == [theirs["id"], mine["id"]]
    assert stranger["id"] not in home(client, tokens["alice"])
    assert home(client, tokens["bob"]) == [theirs["id"]]


def test_replies_reach_home_only_between_people_one_follows(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    carol_post = post(client, tokens["carol"], status="carol")
    alice_post = post(client, tokens["alice"], status="alice")
    to_stranger = post(client, tokens["bob"], status="@carol hi", in_reply_to_id=carol_post["id"])
    to_alice = post(client, tokens["bob"], status="@alice hi", in_reply_to_id=alice_post["id"])
    own_thread = post(client, tokens["bob"], status="more", in_reply_to_id=to_alice["id"])
    drain()
    feed = home(client, tokens["alice"])
    assert to_alice["id"] in feed and to_stranger["id"] not in feed
    assert own_thread["id"] in feed  # bob answering himself is a self-reply
    follow(client, tokens["alice"], ids_["carol"])
    drain()
    later = post(client, tokens["bob"], status="@carol again", in_reply_to_id=carol_post["id"])
    drain()
    assert later["id"] in home(client, tokens["alice"])  # she follows carol now


def test_boosts_reach_home_once_and_not_when_boosts_are_hidden(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["dave"])
    follow(client, tokens["alice"], ids_["carol"], reblogs="false")
    drain()
    original = post(client, tokens["carol"], status="boost me")
    drain()
    assert original["id"] in home(client, tokens["alice"])
    by_bob = client.post(f"/api/v1/statuses/{original['id']}/reblog", headers=tokens["bob"]).json()
    drain()
    assert by_bob["id"] not in home(client, tokens["alice"])  # she has the original already
    other = post(client, tokens["bob"], status="not followed by alice's follows")  # noqa: F841
    elsewhere = post(client, tokens["dave"], status="dave")
    drain()
    boost1 = client.post(f"/api/v1/statuses/{elsewhere['id']}/reblog",
                         headers=tokens["bob"]).json()
    drain()
    boost2 = client.post(f"/api/v1/statuses/{elsewhere['id']}/reblog",
                         headers=tokens["carol"]).json()
    drain()
    feed = home(client, tokens["alice"])
    assert boost1["id"] not in feed and boost2["id"] not in feed  # original is there
    from tests.rig import auth, make_app, make_user, user_token

    erin = auth(user_token(make_app(client), make_user("erin")))
    outside = post(client, erin, status="by someone alice does not follow")
    drain()
    by_carol = client.post(f"/api/v1/statuses/{outside['id']}/reblog",
                           headers=tokens["carol"]).json()
    drain()
    assert by_carol["id"] not in home(client, tokens["alice"])  # reblogs=false for carol
    by_dave = client.post(f"/api/v1/statuses/{outside['id']}/reblog",
                          headers=tokens["dave"]).json()
    drain()
    assert by_dave["id"] in home(client, tokens["alice"])


def test_a_boost_of_a_status_not_in_home_arrives_once(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    follow(client, tokens["alice"], ids_["dave"])
    drain()
    outside = post(client, tokens["carol"], status="outside alice's circle")
    drain()
    first = client.post(f"/api/v1/statuses/{outside['id']}/reblog", headers=tokens["bob"]).json()
    drain()
    second = client.post(f"/api/v1/statuses/{outside['id']}/reblog",
                         headers=tokens["dave"]).json()
    drain()
    feed = home(client, tokens["alice"])
    assert first["id"] in feed and second["id"] not in feed


def test_muted_blocked_and_unfollowed_accounts_leave_home(client, active, drain):
    ids_, tokens = active
    for name in ("bob", "carol", "dave"):
        follow(client, tokens["alice"], ids_[name])
    drain()
    posts = {name: post(client, tokens[name], status=f"{name} speaks")["id"]
             for name in ("bob", "carol", "dave")}
    drain()
    assert set(posts.values()) <= set(home(client, tokens["alice"]))
    client.post(f"/api/v1/accounts/{ids_['bob']}/mute", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['carol']}/block", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['dave']}/unfollow", headers=tokens["alice"])
    drain()
    assert not set(posts.values()) & set(home(client, tokens["alice"]))
    # And new posts of theirs stay out.
    later = post(client, tokens["bob"], status="muted still")
    drain()
    assert later["id"] not in home(client, tokens["alice"])


def test_a_mute_or_block_also_takes_statuses_mentioning_the_account(client, active, drain):
    # FeedManager#clear_from_home: from, boosting, or mentioning the muted or blocked account.
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    about_carol = post(client, tokens["bob"], status="@carol look")
    about_dave = post(client, tokens["bob"], status="@dave look")
    plain = post(client, tokens["bob"], status="nobody mentioned")
    own = post(client, tokens["alice"], status="@dave mine")
    drain()
    boost = client.post(f"/api/v1/statuses/{about_dave['id']}/reblog",
                        headers=tokens["alice"]).json()
    drain()
    assert home(client, tokens["alice"]) == [own["id"], plain["id"], about_dave["id"],
                                             about_carol["id"]]
    client.post(f"/api/v1/accounts/{ids_['carol']}/mute", headers=tokens["alice"])
    drain()
    assert home(client, tokens["alice"]) == [own["id"], plain["id"], about_dave["id"]]
    client.post(f"/api/v1/accounts/{ids_['dave']}/block", headers=tokens["alice"])
    drain()
    assert home(client, tokens["alice"]) == [plain["id"]]  # her own mention of dave too
    assert boost["id"] not in home(client, tokens["alice"])


def test_an_unfollow_leaves_others_boosts_of_the_account(client, active, drain):
    # FeedManager#unmerge_from_home: only what the unfollowed account posted or boosted.
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["carol"])
    drain()
    original = post(client, tokens["bob"], status="boosted by carol")
    drain()
    boost = client.post(f"/api/v1/statuses/{original['id']}/reblog",
                        headers=tokens["carol"]).json()
    own_boost_of = post(client, tokens["dave"], status="boosted by bob")
    drain()
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    bobs_boost = client.post(f"/api/v1/statuses/{own_boost_of['id']}/reblog",
                             headers=tokens["bob"]).json()
    drain()
    assert {boost["id"], bobs_boost["id"]} <= set(home(client, tokens["alice"]))
    client.post(f"/api/v1/accounts/{ids_['bob']}/unfollow", headers=tokens["alice"])
    drain()
    feed = home(client, tokens["alice"])
    assert boost["id"] in feed  # carol's boost; alice still follows carol
    assert bobs_boost["id"] not in feed and original["id"] not in feed


def test_deleted_statuses_leave_every_home(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    doomed = post(client, tokens["bob"], status="doomed")
    drain()
    assert doomed["id"] in home(client, tokens["alice"])
    client.delete(f"/api/v1/statuses/{doomed['id']}", headers=tokens["bob"])
    drain()
    assert doomed["id"] not in home(client, tokens["alice"])
    feed = keys.home_feed(ids_["alice"])
    assert base.get(keys.feed_entry(feed, doomed["id"]),
                    table_name=client.app.stack.table_names["FeedTable"]) is None


def test_a_new_follow_merges_recent_statuses_into_home(client, active, drain):
    ids_, tokens = active
    earlier = [post(client, tokens["bob"], status=f"before {i}")["id"] for i in range(3)]
    drain()
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    assert set(earlier) <= set(home(client, tokens["alice"]))


def test_language_filter_of_a_follow(client, active, drain):
    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"], **{"languages[]": ["de"]})
    drain()
    english = post(client, tokens["bob"], status="hello", language="en")
    german = post(client, tokens["bob"], status="hallo", language="de")
    drain()
    feed = home(client, tokens["alice"])
    assert german["id"] in feed and english["id"] not in feed


def test_a_follow_with_notify_tells_about_new_posts(client, active, drain):
    from stratus.repo import effects as effects_repo

    ids_, tokens = active
    follow(client, tokens["alice"], ids_["bob"], notify="true")
    drain()
    new = post(client, tokens["bob"], status="news")
    drain()
    status_notes = [n for n in effects_repo.notifications(ids_["alice"])
                    if n["notification_type"] == "status"]
    assert [n["status_id"] for n in status_notes] == [new["id"]]


def test_home_pagination_and_the_feed_cap(client, active, drain, monkeypatch):
    from stratus.workers import fanout

    monkeypatch.setattr(fanout, "FEED_SIZE", 5)
    monkeypatch.setattr(fanout, "TRIM_ONE_IN", 1)
    ids_, tokens = active
    posted = [post(client, tokens["alice"], status=f"n{i}")["id"] for i in range(8)]
    drain()
    first = client.get("/api/v1/timelines/home", headers=tokens["alice"],
                       params={"limit": 3})
    assert [s["id"] for s in first.json()] == posted[::-1][:3]
    assert f"max_id={posted[5]}" in first.headers["link"]
    rest = home(client, tokens["alice"], max_id=posted[5])
    assert rest == [posted[4], posted[3]]  # the feed keeps the newest 5


def test_fan_out_to_many_followers_runs_in_batches_without_duplicates(client, people, runtime,
                                                                     drain, monkeypatch):
    """A post to many followers: FanOut pages of followers, Deliver batches, each redelivered
    once more without duplicate entries or notifications."""
    from stratus.workers import fanout

    from tests.rig import auth, make_app, make_user, user_token

    monkeypatch.setattr(fanout, "FOLLOWERS_PAGE", 10)
    monkeypatch.setattr(fanout, "BATCH", 4)
    ids_, tokens = people
    app = make_app(client)
    fans = []
    for i in range(23):
        fan = make_user(f"reader{i}")
        headers = auth(user_token(app, fan))
        client.get("/api/v1/timelines/home", headers=headers)
        follow(client, headers, ids_["alice"], notify="true")
        fans.append((fan, headers))
    drain()
    import sys

    worker = sys.modules["stratus_fn_FanoutFunction"] if "stratus_fn_FanoutFunction" in \
        sys.modules else None
    if worker is None:
        runtime.stack.handler("FanoutFunction")
        worker = sys.modules["stratus_fn_FanoutFunction"]
    from stratus.jobs import messages as jobs

    sizes: list[int] = []
    pages: list[str | None] = []
    monkeypatch.setitem(worker.HANDLERS, jobs.Deliver,
                        lambda job: sizes.append(len(job.receivers)) or fanout.deliver(job))
    monkeypatch.setitem(worker.HANDLERS, jobs.FanOut,
                        lambda job: pages.append(job.after) or fanout.fan_out(job))
    status = post(client, tokens["alice"], status="to all my readers")
    drain()
    # 23 followers and the author, 10 followers a page, 4 receivers a batch; the pages after
    # the first are parts of the rest's follow-id range, run in parallel (workers/fanout.SPLIT;
    # tests/workers/test_fanout_parallel.py).
    assert pages[0] is None and len(pages) > 3
    assert sum(sizes) == 24 and max(sizes) == 4
    table = runtime.stack.table_names["FeedTable"]
    for fan, _ in fans:
        assert base.get(keys.feed_entry(keys.home_feed(fan), status["id"]),
                        table_name=table) is not None
    # The whole fan-out once more (a crash and redelivery): nothing doubles.
    from stratus.repo import effects as effects_repo
    from stratus.repo.queues import send

    send("fanout",
         [jobs.FanOut(status=fanout.fields_of(statuses_repo.get(status["id"]))).to_dict()])
    drain()
    for fan, _ in fans:
        notes = [n for n in effects_repo.notifications(fan) if n["notification_type"] == "status"]
        assert len(notes) == 1


def _public_status_hours_ago(account_id: str, base_ms: int, hours_ago: int,
                             local: bool = True) -> str:
    """A public status minted `hours_ago` before `base_ms` (its hour's bucket), written as
    posting writes it; its id."""
    status_id = ids.new_id(base_ms - hours_ago * 3600 * 1000)
    item = {"id": status_id, "account_id": account_id, "visibility": "public",
            "thread_id": status_id, "local": local, "text": "old", "content": "<p>old</p>",
            "uri": f"http://localhost:8000/users/bob/statuses/{status_id}",
            "created_at": "2026-11-20T10:00:00.000Z", "mention_ids": [], "tags": [],
            "media_ids": []}
    transaction.write(status_writes.create_ops(item))
    return status_id


def test_public_timeline_walks_hours_newest_first(client, people, drain, entity):
    ids_, tokens = people
    base_ms = ids.timestamp_ms(ids.new_id())
    old_ids = []
    for hours_ago in (30, 5, 2):  # quiet hours in between
        old_ids.append(_public_status_hours_ago(ids_["bob"], base_ms, hours_ago))
    new = post(client, tokens["alice"], status="now")
    private = post(client, tokens["alice"], status="not public", visibility="private")
    unlisted = post(client, tokens["alice"], status="quiet", visibility="unlisted")
    drain()
    everything = client.get("/api/v1/timelines/public")
    assert everything.status_code == 200
    for status in everything.json():
        entity("Status", status)
    listed = [s["id"] for s in everything.json()]
    assert listed == [new["id"], *reversed(old_ids)]
    assert private["id"] not in listed and unlisted["id"] not in listed
    page = client.get("/api/v1/timelines/public", params={"limit": 2})
    assert [s["id"] for s in page.json()] == [new["id"], old_ids[2]]
    nxt = client.get("/api/v1/timelines/public", params={"limit": 2, "max_id": old_ids[2]})
    assert [s["id"] for s in nxt.json()] == [old_ids[1], old_ids[0]]
    newer = client.get("/api/v1/timelines/public", params={"limit": 2, "min_id": old_ids[0]})
    assert [s["id"] for s in newer.json()] == [old_ids[2], old_ids[1]]
    assert [s["id"] for s in client.get("/api/v1/timelines/public",
                                        params={"local": "true", "limit": 1}).json()] == \
        [new["id"]]
    assert client.get("/api/v1/timelines/public", params={"remote": "true"}).json() == []


def test_public_timeline_hides_blocked_and_muted_accounts(client, people, drain):
    ids_, tokens = people
    bob_post = post(client, tokens["bob"], status="bob public")
    carol_post = post(client, tokens["carol"], status="carol public")
    drain()
    client.post(f"/api/v1/accounts/{ids_['bob']}/block", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['carol']}/mute", headers=tokens["alice"])
    seen = {s["id"] for s in client.get("/api/v1/timelines/public",
                                        headers=tokens["alice"]).json()}
    assert bob_post["id"] not in seen and carol_post["id"] not in seen
    anonymous = {s["id"] for s in client.get("/api/v1/timelines/public").json()}
    assert {bob_post["id"], carol_post["id"]} <= anonymous


def test_hashtag_timelines(client, people, drain, entity):
    _, tokens = people
    cats = post(client, tokens["alice"], status="#cats")
    both = post(client, tokens["bob"], status="#cats and #dogs")
    dogs = post(client, tokens["carol"], status="#Dogs")
    hidden = post(client, tokens["dave"], status="#cats secret", visibility="private")
    drain()
    response = client.get("/api/v1/timelines/tag/cats")
    for status in response.json():
        entity("Status", status)
    assert [s["id"] for s in response.json()] == [both["id"], cats["id"]]
    assert hidden["id"] not in [s["id"] for s in response.json()]

    def tag(name, **params):
        return [s["id"] for s in client.get(f"/api/v1/timelines/tag/{name}",
                                            params=params).json()]

    assert tag("cats", **{"any[]": ["dogs"]}) == [dogs["id"], both["id"], cats["id"]]
    assert tag("cats", **{"all[]": ["dogs"]}) == [both["id"]]
    assert tag("cats", **{"none[]": ["dogs"]}) == [cats["id"]]
    assert tag("cats", local="true") == [both["id"], cats["id"]]
    assert tag("cats", remote="true") == []
    assert tag("cats", only_media="true") == []
    assert tag("nothing") == [] and tag("²") == []


def test_followed_hashtags_bring_public_posts_home(client, active, drain):
    ids_, tokens = active
    assert client.post("/api/v1/tags/clouds/follow", headers=tokens["alice"]).status_code == 200
    tagged = post(client, tokens["bob"], status="look #clouds")
    quiet = post(client, tokens["bob"], status="unlisted #clouds", visibility="unlisted")
    other = post(client, tokens["bob"], status="#rain")
    drain()
    feed = home(client, tokens["alice"])
    assert tagged["id"] in feed  # she does not follow bob: the hashtag brings it
    assert quiet["id"] not in feed and other["id"] not in feed
    client.post(f"/api/v1/accounts/{ids_['alice']}/block", headers=tokens["carol"])
    client.post(f"/api/v1/accounts/{ids_['dave']}/mute", headers=tokens["alice"])
    drain()
    from_blocker = post(client, tokens["carol"], status="#clouds from carol")
    from_muted = post(client, tokens["dave"], status="#clouds from dave")
    drain()
    feed = home(client, tokens["alice"])
    assert from_blocker["id"] not in feed and from_muted["id"] not in feed
    client.post("/api/v1/tags/clouds/unfollow", headers=tokens["alice"])
    drain()
    later = post(client, tokens["bob"], status="more #clouds")
    drain()
    assert later["id"] not in home(client, tokens["alice"])


def test_public_timeline_goes_on_past_its_hour_listing(client, people, drain, monkeypatch):
    """The hours a public page walks are listed a few at a time (one Query each), local and
    remote ones merged nearest first: a page that needs more hours than one listing holds
    goes on after its last hour, in order, and a `min_id` page walks the other way."""
    from stratus.api.timelines import timelines

    monkeypatch.setattr(timelines, "HOURS_LISTED", 2)
    monkeypatch.setattr(timelines, "HOURS_AT_ONCE", 1)
    ids_, _ = people
    base_ms = ids.timestamp_ms(ids.new_id())
    made = []
    for n, hours_ago in enumerate((40, 33, 21, 12, 9, 4, 3)):
        local = n % 2 == 0
        made.append((_public_status_hours_ago(ids_["bob"], base_ms, hours_ago, local), local))
    drain()
    newest_first = [s for s, _ in reversed(made)]
    listed = [s["id"] for s in client.get("/api/v1/timelines/public").json()]
    assert listed == newest_first
    local_only = [s["id"] for s in client.get("/api/v1/timelines/public",
                                              params={"local": "true"}).json()]
    assert local_only == [s for s, local in reversed(made) if local]
    page = client.get("/api/v1/timelines/public", params={"limit": 3, "max_id": made[5][0]})
    assert [s["id"] for s in page.json()] == newest_first[2:5]
    oldest = client.get("/api/v1/timelines/public", params={"limit": 3, "min_id": made[0][0]})
    assert [s["id"] for s in oldest.json()] == list(reversed([s for s, _ in made[1:4]]))
