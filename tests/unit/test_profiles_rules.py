"""profiles: the outbox rules and counting rules behind featured tags and the
directory, pure."""

from __future__ import annotations

from stratus.jobs import messages as jobs
from stratus.jobs.outbox import route
from stratus.repo import keys
from stratus.repo.counters import ACCOUNT_TAG
from stratus.workers.counters import deltas

from tests.rig import STATUS, record, routed

TOUCH = ("effects", "directory_touch")


def test_an_edit_that_changes_tags_is_counted_once_per_change():
    new = {**STATUS, "tags": ["b", "c"], "created_at": "2026-01-01T00:00:00.000Z"}
    [job] = [j for q, j in route(record("MODIFY", new, {**STATUS, "tags": ["a", "b"]}))
             if q == "counters"]
    assert job.event == "MODIFY" and job.item["old_tags"] == ["a", "b"]
    adds, sets = deltas(job)
    assert adds == {(ACCOUNT_TAG, ("1", "c")): {"statuses_count": 1},
                    (ACCOUNT_TAG, ("1", "a")): {"statuses_count": -1}}
    assert sets[(ACCOUNT_TAG, ("1", "c"))]["last_status_at"] == "2026-01-01T00:00:00.000Z"
    # Private statuses never count, nor does the `counted` guard's own change.
    private = {**new, "visibility": "private"}
    assert ("counters", "count") not in routed(record("MODIFY", private, {**private,
                                                                       "tags": ["a"]}))
    assert ("counters", "count") not in routed(record("MODIFY", {**STATUS, "counted": True},
                                                      STATUS))


def test_public_and_unlisted_statuses_count_per_account_and_tag():
    for visibility, counted in (("public", True), ("unlisted", True), ("private", False),
                                ("direct", False)):
        item = {**STATUS, "visibility": visibility, "created_at": "2026-01-01T00:00:00.000Z"}
        adds, _ = deltas(jobs.Count(event="INSERT", item_type="status", item=item))
        assert ((ACCOUNT_TAG, ("1", "a")) in adds) is counted, visibility
    removed, sets = deltas(jobs.Count(event="REMOVE", item_type="status",
                                      item={**STATUS, "counted": True}))
    assert removed[(ACCOUNT_TAG, ("1", "a"))] == {"statuses_count": -1}
    assert "last_status_at" not in sets[(ACCOUNT_TAG, ("1", "a"))]


def test_the_directory_follows_the_items_it_is_made_from():
    profile = {"type": "account", "id": "1", "discoverable": False}
    assert TOUCH not in routed(record("INSERT", profile))  # a sign-up is not discoverable
    assert TOUCH in routed(record("INSERT", {**profile, "discoverable": True}))
    assert TOUCH in routed(record("MODIFY", {**profile, "discoverable": True}, profile))
    assert TOUCH in routed(record("MODIFY", {**profile, "suspended_at": "x"}, profile))
    assert TOUCH not in routed(record("MODIFY", {**profile, "note": "hi"}, profile))
    stats = {**keys.account_stats("1"), "type": "account_stats", "statuses_count": 1}
    [touch] = [j for q, j in route(record("MODIFY", {**stats, "last_status_at": "t"}, stats))
               if q == "effects"]
    assert touch.account_id == "1"
    assert TOUCH not in routed(record("MODIFY", {**stats, "statuses_count": 2}, stats))
    user = {"type": "user", "account_id": "1", "approved": False}
    assert TOUCH in routed(record("MODIFY", {**user, "approved": True}, user))
    assert TOUCH not in routed(record("INSERT", user))
