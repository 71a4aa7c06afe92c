"""The outbox and counting rules notifications add: which changes produce notification jobs,
what a notification counts for, and the policy's defaults and rules as pure functions."""

from __future__ import annotations

from stratus.jobs.messages import Count
from stratus.read import notification_rules
from stratus.workers.counters import deltas

from tests.rig import STATUS, record, routed

USER = {"type": "user", "account_id": "1"}
ACTIVE = {**USER, "confirmed_at": "2026-11-22T10:00:00.000Z", "approved": True}
NOTE = {"type": "notification", "id": "8", "account_id": "1", "from_account_id": "2",
        "notification_type": "favourite", "status_id": "10"}


def test_a_user_is_announced_once_when_it_becomes_usable():
    assert ("effects", "account_activated") in routed(record("INSERT", ACTIVE))
    assert ("effects", "account_activated") not in routed(record("INSERT", {
        **USER, "confirmation_nonce": "n"}))
    pending = {**ACTIVE, "approved": False}
    assert ("effects", "account_activated") not in routed(record("INSERT", pending))
    assert ("effects", "account_activated") in routed(record("MODIFY", ACTIVE, pending))
    assert routed(record("MODIFY", {**ACTIVE, "counted": True}, ACTIVE)) == []
    assert routed(record("MODIFY", {**ACTIVE, "role_id": "2"}, ACTIVE)) == []


def test_an_edit_tells_the_boosters_but_a_tag_change_alone_does_not():
    edited = {**STATUS, "edited_at": "2026-11-22T10:00:00.000Z"}
    assert ("effects", "status_edited") in routed(record("MODIFY", edited, STATUS))
    again = {**edited, "edited_at": "2026-11-22T11:00:00.000Z"}
    assert ("effects", "status_edited") in routed(record("MODIFY", again, edited))
    counted = {**edited, "counted": True}
    assert routed(record("MODIFY", counted, edited)) == []


def test_grouped_notifications_and_filtered_mentions_are_counted():
    def counted(rec):  # (streaming and push have rules on notifications too)
        return [r for r in routed(rec) if r[0] == "counters"]

    grouped = {**NOTE, "group_key": "favourite-10-1"}
    assert counted(record("INSERT", grouped)) == [("counters", "count")]
    assert counted(record("REMOVE", old={**grouped, "counted": True})) == [("counters", "count")]
    assert counted(record("INSERT", NOTE)) == []  # ungrouped: counts nowhere
    pushed = ("push", "push_notification")  # a new notification that is not filtered
    assert ("push", "push_notification") in routed(record("INSERT", grouped))
    assert pushed in routed(record("INSERT", NOTE))
    assert pushed not in routed(record("INSERT", {**NOTE, "filtered": True}))
    assert pushed not in routed(record("REMOVE", old={**grouped, "counted": True}))
    mention = {**NOTE, "notification_type": "mention", "filtered": True}
    assert counted(record("INSERT", mention)) == [("counters", "count")]
    assert counted(record("INSERT", {**NOTE, "filtered": True})) == []
    assert counted(record("MODIFY", {**grouped, "counted": True}, grouped)) == []


def test_what_a_notification_counts_for():
    adds, sets = deltas(Count(event_id="e", event="INSERT", item_type="notification",
                              item={**NOTE, "group_key": "favourite-10-1"}))
    head = ("notification_group", ("1", "favourite-10-1"))
    assert adds == {head: {"notifications_count": 1}}
    assert sets[head]["notification_type"] == "favourite" and sets[head]["status_id"] == "10"
    adds, sets = deltas(Count(event_id="e", event="REMOVE", item_type="notification",
                              item={**NOTE, "notification_type": "mention", "filtered": True}))
    assert adds == {("notification_request", ("1", "2")): {"notifications_count": -1}}
    assert sets == {}


def test_request_closed_and_sweep_jobs():
    request = {"type": "notification_request", "account_id": "1", "from_account_id": "2"}
    assert routed(record("REMOVE", old=request)) == [("effects", "notification_request_closed")]
    assert routed(record("INSERT", request)) == []
    sweep = {"type": "notification_sweep", "id": "9", "account_id": "1", "up_to_id": "5"}
    assert routed(record("INSERT", sweep)) == [("effects", "sweep_notifications")]
    assert routed(record("REMOVE", old=sweep)) == []


def test_the_policy_defaults_are_mastodons():
    assert notification_rules.policy_of(None) == {
        "for_not_following": "accept", "for_not_followers": "accept",
        "for_new_accounts": "accept", "for_private_mentions": "filter",
        "for_limited_accounts": "filter"}
    assert notification_rules.policy_of({"for_not_following": "drop"})["for_not_following"] \
        == "drop"
    assert "poll" not in notification_rules.FILTERABLE
    assert "update" not in notification_rules.FILTERABLE
    assert "admin.sign_up" not in notification_rules.FILTERABLE
