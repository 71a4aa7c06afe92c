"""Accept: a remote account accepts a local account's follow request (Mastodon's
ActivityPub::Activity::Accept): follows.remote_accepted turns the pending request into a
follow. The object is the Follow we sent, embedded (its `actor` is our follower) or by its
id only (the request that carries that id is found among the requests to the actor)."""

from __future__ import annotations

from typing import Any

from stratus.federation.inbox.common import Context, local_account_id, object_id, object_type
from stratus.repo import keys
from stratus.repo import relationships as repo

SEARCHED = 500  # requests to (or follows of) one remote account examined for a bare id


def _by_uri(entries, key_of, uri: str) -> str | None:
    batch: list[dict[str, Any]] = []
    for count, entry in enumerate(entries, 1):
        batch.append(entry)
        if len(batch) == 100 or count == SEARCHED:
            found = [i for i in repo.get_many([key_of(e) for e in batch]) if i.get("uri") == uri]
            if found:
                return found[0]["account_id"]
            batch = []
            if count == SEARCHED:
                return None
    found = [i for i in repo.get_many([key_of(e) for e in batch]) if i.get("uri") == uri] \
        if batch else []
    return found[0]["account_id"] if found else None


def follower_of(follow: Any, remote_id: str) -> str | None:
    """The local account whose Follow of `remote_id` this is (embedded, or named by id)."""
    if isinstance(follow, dict) and object_type(follow) not in (None, "Follow"):
        return None
    if isinstance(follow, dict) and follow.get("actor"):
        return local_account_id(object_id(follow.get("actor")))
    uri = object_id(follow)
    if not uri:
        return None
    lo, hi = keys.id_range(None, None)
    requester = _by_uri(repo.follow_requests(remote_id, lo, hi, True),
                        lambda e: keys.follow_request(remote_id, e["account_id"]), uri)
    if requester is not None:
        return requester
    return _by_uri(repo.followers(remote_id, lo, hi, True),
                   lambda e: keys.follow(e["account_id"], remote_id), uri)


def handle(ctx: Context) -> None:
    from stratus.federation import follows

    local_id = follower_of(ctx.object, ctx.actor_id)
    if local_id is not None:
        follows.remote_accepted(local_id, ctx.actor_id)
