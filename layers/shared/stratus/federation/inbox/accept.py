"""Accept: a remote account accepts a local account's follow request (Mastodon's
ActivityPub::Activity::Accept): follows.remote_accepted turns the pending request into a
follow. The object is the Follow we sent, embedded (its `actor` is our follower) or by its
id only (the request that carries that id is found among the requests to the actor)."""

from __future__ import annotations

from typing import Any

from stratus.federation.inbox.common import Context, local_account_id, object_id, object_type
from stratus.repo import remote_follows

SEARCHED = 500  # requests to (or follows of) one remote account examined for a bare id


def follower_of(follow: Any, remote_id: str) -> str | None:
    """The local account whose Follow of `remote_id` this is (embedded, or named by id)."""
    if isinstance(follow, dict) and object_type(follow) not in (None, "Follow"):
        return None
    if isinstance(follow, dict) and follow.get("actor"):
        return local_account_id(object_id(follow.get("actor")))
    uri = object_id(follow)
    if not uri:
        return None
    return remote_follows.follower_by_uri(remote_id, uri, searched=SEARCHED)


def handle(ctx: Context) -> None:
    from stratus.federation import follows

    local_id = follower_of(ctx.object, ctx.actor_id)
    if local_id is not None:
        follows.remote_accepted(local_id, ctx.actor_id)
