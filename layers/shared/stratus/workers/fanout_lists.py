"""Lists' timelines (workers/fanout.py's rules, for lists): a status delivered to the lists its
author is in, a new member's recent statuses merged in, a member taken out, a deleted list
dropped, the lists of an unfollowed account left (Mastodon's FeedManager list methods)."""

from __future__ import annotations

from stratus.core import clock
from stratus.jobs import messages as jobs
from stratus.repo import feeds
from stratus.repo import lists as lists_repo
from stratus.repo import statuses as statuses_repo
from stratus.workers.fanout import (
    FEED_SIZE,
    LISTS_PAGE,
    MERGE_PER_ACCOUNT,
    _crutches,
    _insert,
    _merge,
    _recent,
    _reply_targets_listed,
    _stream,
    filtered_from_home,
    filtered_from_list,
)


def deliver_to_lists(job: jobs.DeliverToLists) -> int:
    status = job.status
    feeds_ = [feeds.of_list(listed["id"]) for listed in job.lists]
    if job.removal:
        original = status.get("reblog_of_id")
        feeds.remove([(feed, status["id"]) for feed in feeds_],
                     markers=[(feed, original) for feed in feeds_] if original else [])
        _stream("delete", status["id"], lists=[
            {"id": listed["id"], "owner_id": listed["owner_id"]} for listed in job.lists])
        return len(feeds_)
    now = clock.epoch()
    owners = sorted({listed["owner_id"] for listed in job.lists})
    metas = feeds.metas([feeds.home(o) for o in owners])
    active = {o for o in owners if int(metas.get(feeds.home(o), {}).get("active_until", 0))
              > now}
    original = statuses_repo.get(status["reblog_of_id"]) if status.get("reblog_of_id") else None
    if status.get("reblog_of_id") and original is None:
        return 0
    crutches = _crutches(sorted(active), [(status, original)])
    kept = []
    for listed in job.lists:
        owner = listed["owner_id"]
        if owner not in active:
            continue
        members = _reply_targets_listed(listed, [status]) \
            if listed.get("replies_policy", "list") == "list" else set()
        if filtered_from_list(status, listed, members) or \
                filtered_from_home(status, original, owner, crutches):
            continue
        kept.append((feeds.of_list(listed["id"]), status))
    delivered = set(_insert(kept, now))
    _stream("update", status["id"], lists=[
        {"id": listed["id"], "owner_id": listed["owner_id"]} for listed in job.lists
        if feeds.of_list(listed["id"]) in delivered])
    return len(delivered)


def merge_into_list(job: jobs.MergeIntoList) -> int:
    listed = lists_repo.get(job.owner_id, job.list_id)
    if listed is None:
        return 0
    return _merge(job.owner_id, _recent(job.account_id, MERGE_PER_ACCOUNT), clock.epoch(),
                  feed=feeds.of_list(job.list_id), listed=listed)


def clear_from_list(job: jobs.ClearFromList) -> int:
    feed = feeds.of_list(job.list_id)
    doomed = feeds.entries_by(feed, {job.account_id}, limit=FEED_SIZE * 2)
    feeds.remove([(feed, e["status_id"]) for e in doomed],
                 markers=[(feed, e["reblog_of_id"]) for e in doomed if e.get("reblog_of_id")])
    return len(doomed)


def drop_list(job: jobs.DropList) -> int:
    """A deleted list: its members go (their removal clears nothing more: the feed goes)."""
    members = [m["account_id"] for m in lists_repo.members(job.list_id)]
    lists_repo.remove_members(job.list_id, members)
    feeds.drop(feeds.of_list(job.list_id))
    return len(members)


def leave_lists(job: jobs.LeaveLists) -> int:
    """After an unfollow the account leaves the follower's lists, as in Mastodon."""
    left = 0
    after = None
    while True:
        page, after = lists_repo.lists_containing(job.target_id, after, LISTS_PAGE)
        for membership in page:
            if membership["owner_id"] == job.account_id:
                lists_repo.remove_members(membership["list_id"], [job.target_id])
                left += 1
        if after is None:
            return left
