"""Undo (Mastodon's ActivityPub::Activity::Undo): of a Follow (the follow or the pending
request ends), a Like, an Announce, a Block, or an Accept (our follow that the remote account
had accepted ends). An Undo naming
its object only by id is matched where an id is recorded (boosts, by the URI index)."""

from __future__ import annotations

from typing import Any

from stratus.federation.inbox import announce, block, like
from stratus.federation.inbox.accept import follower_of
from stratus.federation.inbox.common import (
    Context,
    drops_refused_writes,
    local_account_id,
    object_id,
    object_type,
)


def _undo_follow(ctx: Context, follow: dict[str, Any]) -> None:
    from stratus.federation import follows

    target_id = local_account_id(object_id(follow.get("object")))
    if target_id is not None:
        follows.remote_unfollowed(ctx.actor_id, target_id)


def _undo_accept(ctx: Context, accept: dict[str, Any]) -> None:
    """The remote account takes back its Accept of our follow: the follow ends, quietly
    (follows.remote_rejected). Mastodon turns it back into a pending request; here a new
    request would make the outbox send a new Follow, which Mastodon does not."""
    from stratus.federation import follows

    local_id = follower_of(accept.get("object"), ctx.actor_id)
    if local_id is not None:
        follows.remote_rejected(local_id, ctx.actor_id)


@drops_refused_writes
def handle(ctx: Context) -> None:
    target = ctx.object
    kind = object_type(target)
    if isinstance(target, dict) and object_id(target.get("actor")) not in (None,
                                                                          ctx.actor["uri"]):
        return  # only an actor's own activities can be undone by it
    if kind == "Follow":
        _undo_follow(ctx, target)
    elif kind == "Like":
        like.undo(ctx, target)
    elif kind == "Block":
        block.undo(ctx, target)
    elif kind == "Accept":
        _undo_accept(ctx, target)
    elif kind in ("Announce", None):
        announce.undo(ctx, target)
