"""Update (Mastodon's ActivityPub::Activity::Update): of the actor itself (its profile, keys,
aliases: remote_accounts.update_from), of a status we have (an edit: remote_statuses.ingest
records it as one), or of a poll (its counts: remote_statuses.update_poll). An Update of a
status we never had is dropped, as Mastodon drops it."""

from __future__ import annotations

from stratus.federation.inbox.common import (
    Context,
    drops_refused_writes,
    known_status_id,
    object_id,
    object_type,
    same_origin,
)

ACTOR_TYPES = ("Person", "Service", "Application", "Group", "Organization")


@drops_refused_writes
def handle(ctx: Context) -> None:
    from stratus.federation import remote_accounts, remote_statuses

    target = ctx.object
    if not isinstance(target, dict):
        return
    uri, kind = object_id(target), object_type(target)
    if kind in ACTOR_TYPES:
        if uri == ctx.actor["uri"]:
            remote_accounts.update_from(target)
        return
    if not uri or not same_origin(uri, ctx.actor["uri"]) or known_status_id(uri) is None:
        return
    if object_id(target.get("attributedTo")) not in (None, ctx.actor["uri"]):
        return
    if kind == "Question" and not target.get("updated"):
        remote_statuses.update_poll(target, ctx.actor)  # only its counts changed
    elif kind in ("Note", "Question", "Article", "Page", "Image", "Video", "Audio", "Event"):
        remote_statuses.ingest(target, actor=ctx.actor, activity_id=ctx.activity["id"])
