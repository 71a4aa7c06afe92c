"""Follow edges across servers as the inbox finds, ends and moves them: the local follower
that a Follow activity's id names (an Accept or Reject naming our Follow by its id only), the
followers, followings and pending requests of an account a page at a time, a request the
remote side accepted, edges the remote side ended (nothing announced back), and a follow moved
from one account to another (Mastodon's Move: the follower asks the new account instead). The
edges' layout is repo/relationships.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from stratus.core import ids
from stratus.core.errors import NotFound
from stratus.model.relationships import FollowOptions
from stratus.repo import base, keys
from stratus.repo.relationships import (
    create_op,
    follow_item,
    follow_options,
    follow_request_item,
    follow_requests,
    followers,
    get,
    get_follow_request,
    remove,
    remove_op,
    write,
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


def _after(partition: str, index: str, after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` edges of an edge index partition, oldest first after the edge id `after`
    (None: from the first): one Query of at most `limit` entries."""
    lo, hi = keys.id_range(int(after) + 1 if after else None, None)
    return list(base.records(base.query(partition, index=index, sk_between=(lo, hi),
                                        limit=limit)))


def followers_after(account_id: str, after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` follows of an account, oldest first after the follow id `after` (None:
    from the first): records (id, account_id = the follower)."""
    return _after(keys.followers_of(account_id), "GSI1", after, limit)


def follow_requests_after(account_id: str, after: str | None, limit: int
                          ) -> list[dict[str, Any]]:
    """Up to `limit` pending requests to follow an account, oldest first after the request id
    `after` (None: from the first): records (id, account_id = the requester)."""
    return _after(keys.follow_requests_of(account_id), "GSI1", after, limit)


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


def _end_quietly(key: dict[str, str]) -> bool:
    """Remove an edge the remote side ended: it is marked `quiet` first, so that the outbox
    announces nothing (no Undo or Reject back to the server that ended it). False: no edge."""
    try:
        write([base.set_op(key, {"quiet": True})])
    except base.ConditionFailed:
        return False
    remove(key)
    return True


def end_follow_quietly(follower_id: str, target_id: str) -> bool:
    """End a follow the other server ended (nothing is announced back); False: none."""
    return _end_quietly(keys.follow(follower_id, target_id))


def end_follow_request_quietly(target_id: str, requester_id: str) -> bool:
    """End a pending request the other server ended (nothing is announced back); False: none."""
    return _end_quietly(keys.follow_request(target_id, requester_id))


def accept_remote_request(local_id: str, remote_id: str) -> bool:
    """A remote account accepted the local account's request: in one transaction the request
    goes and a follow with its options and Follow id is made. False when there was no request
    to a remote account (already accepted, or never asked), or it was accepted concurrently."""
    request = get_follow_request(remote_id, local_id)
    if request is None or not request.get("remote_target"):
        return False
    options = follow_options(request)
    try:
        write([remove_op(keys.follow_request(remote_id, local_id), NotFound()),
               create_op(follow_item(ids.new_id(), local_id, remote_id, options,
                                     authorized=True, uri=request.get("uri"),
                                     remote_target=True))])
    except (base.ConditionFailed, NotFound):
        return False
    return True


def followings_after(account_id: str, after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` follows an account made, oldest first after the follow id `after` (None:
    from the first): records (id, target_id = the followed)."""
    return _after(keys.followings_of(account_id), "GSI2", after, limit)
