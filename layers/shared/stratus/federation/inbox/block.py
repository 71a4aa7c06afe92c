"""Block: a remote account blocks a local one (Mastodon's ActivityPub::Activity::Block).

The block is written as a local one is (repo/blocks.block): follows, pending follow requests
and endorsements between the two end both ways in the transaction that records it (the local
account's relationship shows `blocked_by`; its posts are no longer delivered to the blocker by
the outbox). The block keeps the Block's id as `uri`. Undo removes the block."""

from __future__ import annotations

from stratus.federation.inbox.common import Context, local_account_id, object_id
from stratus.repo import blocks as blocks_repo


def handle(ctx: Context) -> None:
    target_id = local_account_id(object_id(ctx.object))
    if target_id is None:
        return
    blocks_repo.block(ctx.actor_id, target_id, uri=ctx.activity["id"])


def undo(ctx: Context, block: dict | str) -> None:
    target_id = local_account_id(object_id(block.get("object"))) if isinstance(block, dict) \
        else None
    if target_id is not None:
        blocks_repo.unblock(ctx.actor_id, target_id)
