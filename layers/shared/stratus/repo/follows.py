"""Follows and follow requests as a user makes and answers them, and as their lists are paged by
id: a follow or request written only while neither account blocks the other, a request
authorized into a follow, the listings between two ids. The edges' layout is
repo/relationships.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.core.paging import Budget
from stratus.model.edges import Follow
from stratus.repo import base, keys
from stratus.repo.relationships import (
    absent_op,
    create_op,
    follow_requests,
    followers,
    followings,
    remove_op,
    write,
)


def create_unless_blocked(record: dict[str, Any], *, blocked: Exception) -> bool:
    """Write a new follow or follow request (`record`, from relationships.follow_item or
    follow_request_item) only while neither of its two accounts blocks the other (`blocked`
    is raised if one does); False when the edge exists already (made concurrently)."""
    follower, target = record["account_id"], record["target_id"]
    try:
        write([create_op(record), absent_op(keys.block(target, follower), blocked),
               absent_op(keys.block(follower, target), blocked)])
    except base.ConditionFailed:
        return False
    return True


def authorize_request(target_id: str, requester_id: str, follow: dict[str, Any] | None, *,
                      gone: Exception) -> bool:
    """In one transaction the pending request of `requester_id` to follow `target_id` goes
    (`gone` is raised when there is none) and `follow` (a follow record from
    relationships.follow_item, None when the requester follows already) is made. False when the follow existed already (authorized concurrently:
    nothing is written)."""
    ops = [remove_op(keys.follow_request(target_id, requester_id), gone)]
    if follow is not None:
        ops.append(create_op(follow))
    try:
        write(ops)
    except base.ConditionFailed:
        return False
    return True


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
