"""Like: a remote account favourites a local status (Mastodon's ActivityPub::Activity::Like).

The favourite is the same edge a local favourite is, owned by the remote account, so the
status's `favourites_count` and the author's `favourite` notification follow from the stream.
Likes of statuses that are not ours, or of statuses whose author blocks the actor, change
nothing. A Like carrying an emoji (`content`, Misskey's `_misskey_reaction`: how Misskey sends
reactions) is a favourite all the same, its emoji ignored, as Mastodon's handler does;
EmojiReact itself is dropped by the worker."""

from __future__ import annotations

from stratus.federation.inbox.common import (
    Context,
    blocks,
    local_status_id,
    mark_undone,
    object_id,
    undone_first,
)
from stratus.repo import interactions as interactions_repo
from stratus.repo import statuses as statuses_repo


def handle(ctx: Context) -> None:
    status_id = local_status_id(object_id(ctx.object))
    status = statuses_repo.get(status_id) if status_id else None
    if status is None or status.get("reblog_of_id") or undone_first(ctx) or \
            blocks(status["account_id"], ctx.actor_id):
        return
    interactions_repo.favourite(ctx.actor_id, status, uri=ctx.activity["id"])


def undo(ctx: Context, like: dict) -> None:
    status_id = local_status_id(object_id(like.get("object")))
    if status_id is None or interactions_repo.unfavourite(ctx.actor_id, status_id)[0] is None:
        mark_undone(ctx, object_id(like))
