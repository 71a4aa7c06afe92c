"""Follow: a remote account follows a local one (Mastodon's ActivityPub::Activity::Follow),
through follows.remote_follow: a follow (the outbox delivers the Accept), a follow request
for a locked account or a silenced follower, or — when the account blocks the follower or its
domain (by host name: a block of `peer.example` covers an account of `peer.example:8443`), or
is unavailable — nothing stored and a Reject delivered. The counts and the
`follow`/`follow_request` notification follow from the stream."""

from __future__ import annotations

from stratus.federation.inbox.common import Context, local_account_id, object_id


def handle(ctx: Context) -> None:
    from stratus.federation import follows

    target_id = local_account_id(object_id(ctx.object))
    if target_id is None:
        return
    follows.remote_follow(ctx.actor_id, target_id, ctx.activity["id"])
