"""Reject: a remote account refuses (or later revokes) a local account's follow (Mastodon's
ActivityPub::Activity::Reject): follows.remote_rejected drops the pending request or the
follow."""

from __future__ import annotations

from .accept import follower_of
from .common import Context


def handle(ctx: Context) -> None:
    from .. import follows

    local_id = follower_of(ctx.object)
    if local_id is not None:
        follows.remote_rejected(local_id, ctx.actor_id)
