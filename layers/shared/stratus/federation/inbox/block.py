"""Block: a remote account blocks a local one (Mastodon's ActivityPub::Activity::Block).

As Mastodon does, follows both ways and pending follow requests both ways end, and the block
is recorded (the local account's relationship shows `blocked_by`; its posts are no longer
delivered to the blocker by the outbox). Undo removes the block."""

from __future__ import annotations

from stratus.core import ids
from stratus.federation.inbox.common import Context, local_account_id, object_id
from stratus.repo import base, keys
from stratus.repo import relationships as repo


def handle(ctx: Context) -> None:
    target_id = local_account_id(object_id(ctx.object))
    if target_id is None:
        return
    me = ctx.actor_id
    base.transact([base.Op("Delete", key=k) for k in (
        keys.follow(me, target_id), keys.follow(target_id, me),
        keys.follow_request(target_id, me), keys.follow_request(me, target_id),
        keys.endorsement(target_id, me))])
    item = repo.block_item(ids.new_id(), me, target_id)
    item["uri"] = ctx.activity["id"]
    repo.put_new(item)


def undo(ctx: Context, block: dict | str) -> None:
    target_id = local_account_id(object_id(block.get("object"))) if isinstance(block, dict) \
        else None
    if target_id is not None:
        repo.remove(keys.block(ctx.actor_id, target_id))
