"""Mastodon's counting rules, as the counters worker applies them to inserted/removed items."""

from __future__ import annotations

from stratus.jobs.messages import Count
from stratus.workers.counters import deltas


def count(event: str, item_type: str, **item) -> tuple[dict, dict]:
    return deltas(Count(event_id="e", event=event, item_type=item_type, item=item))


def test_a_public_reply_counts_for_its_author_and_its_parent():
    adds, sets = count("INSERT", "status", id="2", account_id="1", visibility="public",
                       in_reply_to_id="9", local=True, created_at="2026-11-18T10:00:00.000Z")
    assert adds[("account", "1")] == {"statuses_count": 1}
    assert adds[("status", "9")] == {"replies_count": 1}
    assert adds[("instance", None)] == {"local_posts": 1}
    assert adds[("week", "20261116")] == {"statuses": 1}
    # a reply is an interaction on its day (the status id's day)
    assert adds[("metrics_day", "19700101")] == {"interactions": 1}
    assert {t: v for t, v in sets.items() if t[0] != "metrics_day"} == {
        ("account", "1"): {"last_status_at": "2026-11-18T10:00:00.000Z"}}


def test_direct_statuses_count_for_nobody_and_private_replies_not_for_the_parent():
    adds, _ = count("INSERT", "status", id="2", account_id="1", visibility="direct",
                    in_reply_to_id="9")
    assert ("account", "1") not in adds and ("status", "9") not in adds
    adds, _ = count("INSERT", "status", id="2", account_id="1", visibility="private",
                    in_reply_to_id="9")
    assert adds[("account", "1")] == {"statuses_count": 1} and ("status", "9") not in adds


def test_a_boost_counts_for_the_booster_not_as_a_local_post():
    adds, _ = count("INSERT", "status", id="2", account_id="1", visibility="public",
                    reblog_of_id="9", local=True)
    assert adds == {("account", "1"): {"statuses_count": 1}}
    adds, _ = count("INSERT", "reblog", account_id="1", status_id="9",
                    created_at="2026-11-18T10:00:00.000Z")
    assert adds == {("status", "9"): {"reblogs_count": 1},
                    ("metrics_day", "20261118"): {"interactions": 1}}  # announce area


def test_removals_take_back_but_do_not_rewrite_weekly_history():
    adds, sets = count("REMOVE", "status", id="2", account_id="1", visibility="public",
                       local=True, counted=True, created_at="2026-11-18T10:00:00.000Z")
    assert adds == {("account", "1"): {"statuses_count": -1},
                    ("instance", None): {"local_posts": -1}}
    assert sets == {}
    adds, _ = count("REMOVE", "fav", account_id="1", status_id="9", counted=True)
    assert adds == {("status", "9"): {"favourites_count": -1}}


def test_a_follow_counts_on_both_accounts_and_a_request_on_its_target():
    adds, sets = count("INSERT", "follow", account_id="1", target_id="2")
    assert adds == {("account", "1"): {"following_count": 1},
                    ("account", "2"): {"followers_count": 1}} and sets == {}
    adds, _ = count("REMOVE", "follow", account_id="1", target_id="2", counted=True)
    assert adds == {("account", "1"): {"following_count": -1},
                    ("account", "2"): {"followers_count": -1}}
    adds, _ = count("INSERT", "follow_request", account_id="1", target_id="2")
    assert adds == {("account", "2"): {"follow_requests_count": 1}}
