"""Create (Mastodon's ActivityPub::Activity::Create): a remote status — Note or Question, and
Article, Page, Image, Video, Audio, Event best effort — stored by remote_statuses.ingest, which
also makes the mentions, the notifications, a direct message's conversation and the home-feed
fan-out follow by the paths local statuses take. Only the actor's own objects are taken (its
`attributedTo` is the actor and its id is on the actor's server); one named only by URI is
fetched."""

from __future__ import annotations

from stratus.federation.inbox.common import (
    Context,
    drops_refused_writes,
    object_id,
    object_type,
    same_origin,
)

STATUS_TYPES = ("Note", "Question", "Article", "Page", "Image", "Video", "Audio", "Event")


@drops_refused_writes
def handle(ctx: Context) -> None:
    from stratus.federation import remote_statuses

    target = ctx.object
    uri = object_id(target)
    if not uri or not same_origin(uri, ctx.actor["uri"]):
        return
    if not isinstance(target, dict):
        remote_statuses.resolve(uri)
        return
    if object_type(target) not in STATUS_TYPES or \
            object_id(target.get("attributedTo")) != ctx.actor["uri"]:
        return
    remote_statuses.ingest(target, actor=ctx.actor, activity_id=ctx.activity["id"])
