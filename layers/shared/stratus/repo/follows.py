"""Follows and follow requests as a user makes and answers them, and as their lists are paged by
id: a follow or request written only while neither account blocks the other, a request
authorized into a follow, a follow ended, a request withdrawn or rejected, the listings between
two ids. Each write changes the two accounts' counts with it (repo/counters.write_counted:
`followers_count`, `following_count`, `follow_requests_count`), so the next request sees them.
The edges' layout is repo/relationships.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.core.paging import Budget
from stratus.model.edges import Follow
from stratus.repo import base, counters, keys
from stratus.repo.relationships import (
    absent_op,
    create_op,
    follow_requests,
    followers,
    followings,
    get,
    remove_op,
)


def create_unless_blocked(record: dict[str, Any], *, blocked: Exception) -> bool:
    """Write a new follow or follow request (`record`, from relationships.follow_item or
    follow_request_item) only while neither of its two accounts blocks the other (`blocked`
    is raised if one does); False when the edge exists already (made concurrently)."""
    follower, target = record["account_id"], record["target_id"]
    try:
        counters.write_counted(
            lambda now: [create_op(counters.tallied(record, now)),
                         absent_op(keys.block(target, follower), blocked),
                         absent_op(keys.block(follower, target), blocked)],
            [(record["type"], record)])  # "follow" or "follow_request"
    except base.ConditionFailed:
        return False
    return True


def authorize_request(request: dict[str, Any], follow: dict[str, Any] | None, *,
                      gone: Exception) -> bool:
    """In one transaction the pending `request` (a record as read) goes (`gone` is raised when
    it is no longer there) and `follow` (a follow record from relationships.follow_item, None
    when the requester follows already) is made. False when the follow existed already
    (authorized concurrently: nothing is written)."""
    key = keys.follow_request(request["target_id"], request["account_id"])

    def build(now: bool) -> list[base.Op]:
        ops = [counters.delete_read(key, request, gone) if now else remove_op(key, gone)]
        return ops + ([create_op(counters.tallied(follow, now))] if follow is not None else [])

    try:
        counters.write_counted(build, [("follow", follow)] if follow is not None else [],
                               removed=[("follow_request", request)])
    except base.ConditionFailed:
        return False
    return True


def end_follow(follower_id: str, followed_id: str) -> None:
    """A follow ends, and the follower's endorsement of the account with it (what else follows
    — feeds, telling the other server — is the stream's). Ended concurrently: nothing."""
    key = keys.follow(follower_id, followed_id)
    found = get(key)
    if found is None:
        return
    try:
        counters.write_counted(
            lambda now: [counters.delete_read(key, found) if now else remove_op(key),
                         remove_op(keys.endorsement(follower_id, followed_id))],
            removed=[("follow", found)])
    except base.ConditionFailed:
        pass


def remove_follow_request(target_id: str, requester_id: str) -> Follow | None:
    """Withdraw or reject a pending request; its record as it was (None if there was none)."""
    key = keys.follow_request(target_id, requester_id)
    found = get(key)
    if found is None:
        return None
    try:
        counters.write_counted(lambda now: [counters.delete_read(key, found) if now else
                                            remove_op(key)],
                               removed=[("follow_request", found)])
    except base.ConditionFailed:
        return None  # withdrawn, accepted or rejected concurrently
    return found


def followers_between(account_id: str, low: int | None, high: int | None, descending: bool, *,
                      budget: Budget | None = None, step: int = 100
                      ) -> Iterator[Follow]:
    """Follows of an account with follow ids in [low, high] (None: unbounded), by follow id
    (records: id, account_id = the follower)."""
    return followers(account_id, *keys.id_range(low, high), descending, budget=budget,
                     step=step)


def followings_between(account_id: str, low: int | None, high: int | None, descending: bool,
                       *, budget: Budget | None = None, step: int = 100
                       ) -> Iterator[Follow]:
    """Follows an account made with follow ids in [low, high] (None: unbounded), by follow id
    (records: id, target_id = the followed)."""
    return followings(account_id, *keys.id_range(low, high), descending, budget=budget,
                      step=step)


def requests_between(account_id: str, low: int | None, high: int | None, descending: bool, *,
                     budget: Budget | None = None, step: int = 100
                     ) -> Iterator[Follow]:
    """Pending requests to follow an account with request ids in [low, high] (None:
    unbounded), by request id (records: id, account_id = the requester)."""
    return follow_requests(account_id, *keys.id_range(low, high), descending, budget=budget,
                           step=step)
