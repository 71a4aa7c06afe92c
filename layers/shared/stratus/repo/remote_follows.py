"""Follow edges across servers as the inbox finds and moves them: the local follower that a
Follow activity's id names (an Accept or Reject naming our Follow by its id only), the followers
of an account a page at a time, and a follow moved from one account to another (Mastodon's
Move: the follower asks the new account instead). The edges' layout is repo/relationships.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from stratus.core import ids
from stratus.model.relationships import FollowOptions
from stratus.repo import base, keys
from stratus.repo.relationships import (
    create_op,
    follow_options,
    follow_request_item,
    follow_requests,
    followers,
    get,
    remove_op,
)

_BATCH = 100  # keys per batched read


def _carrying(entries: Iterable[dict[str, Any]], key_of: Callable[[dict[str, Any]], dict],
              uri: str, searched: int) -> str | None:
    """The account (`account_id`) of the first edge among the first `searched` `entries`
    whose item carries `uri`, read `_BATCH` at a time."""
    limited = iter(itertools.islice(entries, searched))
    while batch := list(itertools.islice(limited, _BATCH)):
        found = [i for i in base.batch_get([key_of(e) for e in batch]) if i.get("uri") == uri]
        if found:
            return found[0]["account_id"]
    return None


def follower_by_uri(remote_id: str, uri: str, *, searched: int) -> str | None:
    """The account whose follow request to `remote_id`, or else whose follow of it, carries the
    Follow activity id `uri`; at most `searched` of each are examined, newest first."""
    lo, hi = keys.id_range(None, None)
    requester = _carrying(follow_requests(remote_id, lo, hi, True),
                          lambda e: keys.follow_request(remote_id, e["account_id"]), uri,
                          searched)
    if requester is not None:
        return requester
    return _carrying(followers(remote_id, lo, hi, True),
                     lambda e: keys.follow(e["account_id"], remote_id), uri, searched)


def followers_after(account_id: str, after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` follows of an account, oldest first after the follow id `after` (None:
    from the first): index entries (id, account_id = the follower)."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, None)
    return list(itertools.islice(followers(account_id, lo, hi, False, step=limit), limit))


def move_follow(follower_id: str, origin_id: str, target_id: str, *, uri: str) -> None:
    """The follower's follow of `origin_id` ends and, in the same transaction, a follow request
    to `target_id` with the same options is made (`uri`: the id of the Follow it is sent as) —
    unless the follower follows or asked `target_id` already, or either blocks the other. A
    request made meanwhile (a redelivered batch) leaves everything as it is."""
    follow = get(keys.follow(follower_id, origin_id))
    options = follow_options(follow) if follow else FollowOptions()
    ops = [remove_op(keys.follow(follower_id, origin_id))]
    if not base.batch_get([keys.follow(follower_id, target_id),
                     keys.follow_request(target_id, follower_id),
                     keys.block(target_id, follower_id), keys.block(follower_id, target_id)]):
        ops.append(create_op(follow_request_item(ids.new_id(), follower_id, target_id, options,
                                                 uri=uri, remote_target=True)))
    try:
        base.transact(ops)
    except base.ConditionFailed:
        pass
