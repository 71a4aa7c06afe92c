"""Like: a remote account favourites a local status (Mastodon's ActivityPub::Activity::Like).

The favourite is the same edge a local favourite is, owned by the remote account, so the
status's `favourites_count` and the author's `favourite` notification follow from the stream.
Likes of statuses that are not ours, of statuses whose author blocks the actor, and emoji
reactions (a Like carrying `content` or Misskey's `_misskey_reaction`; EmojiReact itself is
dropped by the worker) change nothing."""

from __future__ import annotations

from ...repo import base, keys
from ...repo import statuses as statuses_repo
from .common import Context, blocks, edge_item, local_status_id, object_id


def is_reaction(activity: dict) -> bool:
    return bool(activity.get("content") or activity.get("_misskey_reaction"))


def handle(ctx: Context) -> None:
    if is_reaction(ctx.activity):
        return
    status_id = local_status_id(object_id(ctx.object))
    status = statuses_repo.get(status_id) if status_id else None
    if status is None or status.get("reblog_of_id") or blocks(status["account_id"], ctx.actor_id):
        return
    base.put(edge_item("FAV", keys.favourite(ctx.actor_id, status["id"]), ctx.actor_id, status,
                       uri=ctx.activity["id"]), condition="attribute_not_exists(PK)")


def undo(ctx: Context, like: dict) -> None:
    status_id = local_status_id(object_id(like.get("object")))
    if status_id is not None:
        statuses_repo.remove_edge(keys.favourite(ctx.actor_id, status_id))
