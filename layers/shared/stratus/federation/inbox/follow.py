"""Follow: a remote account follows a local one (Mastodon's ActivityPub::Activity::Follow),
through follows.remote_follow: a follow (the outbox delivers the Accept), a follow request
for a locked account or a silenced follower, or — when the account blocks the follower or its
domain, or is unavailable — nothing stored and a Reject delivered. The counts and the
`follow`/`follow_request` notification follow from the stream.

A user's domain block names a host without a port (the API refuses ports), while a remote
account's `domain` keeps the port its server has; so a block of the follower's host is
checked here too before the follow is made (it only differs on servers with a port, such
as two local stacks)."""

from __future__ import annotations

from stratus.federation.inbox.common import Context, domain, local_account_id, object_id
from stratus.repo import blocks as blocks_repo


def handle(ctx: Context) -> None:
    from stratus.federation import follows

    target_id = local_account_id(object_id(ctx.object))
    if target_id is None:
        return
    host = domain(ctx.actor["uri"])
    if host and host != ctx.actor.get("domain") and \
            blocks_repo.blocks_domain(target_id, host):
        follows.reject_follow(target_id, ctx.actor_id, ctx.activity["id"])
        return
    follows.remote_follow(ctx.actor_id, target_id, ctx.activity["id"])
