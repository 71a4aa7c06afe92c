"""Delete (Mastodon's ActivityPub::Activity::Delete): of the actor itself (its account is
suspended and purged: remote_accounts.remove), or of one of its statuses or boosts (a Note,
a Tombstone or a bare URI: remote_statuses.delete)."""

from __future__ import annotations

from stratus.federation.inbox.common import Context, drops_refused_writes, object_id


@drops_refused_writes
def handle(ctx: Context) -> None:
    from stratus.federation import remote_accounts, remote_statuses
    from stratus.federation.inbox import announce
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    uri = object_id(ctx.object)
    if not uri:
        return
    if uri == ctx.actor["uri"]:
        remote_accounts.remove(ctx.actor_id)
        return
    known = uris.find(uri)
    if known is not None and known[0] == "status":
        item = statuses_repo.get(known[1])
        if item is not None and item.get("reblog_of_id"):
            announce.remove_reblog(ctx.actor_id, item)
            return
    if not remote_statuses.delete(uri, actor_id=ctx.actor_id) and known is None:
        remote_statuses.mark_deleted(uri, ctx.actor)
