"""Reject: a remote account refuses a local account's follow request, or ends a follow it had
accepted (Mastodon's ActivityPub::Activity::Reject): follows.remote_rejected drops the
request or the follow, sending nothing back."""

from __future__ import annotations

from stratus.federation.inbox.accept import follower_of
from stratus.federation.inbox.common import Context


def handle(ctx: Context) -> None:
    from stratus.federation import follows

    local_id = follower_of(ctx.object, ctx.actor_id)
    if local_id is not None:
        follows.remote_rejected(local_id, ctx.actor_id)
