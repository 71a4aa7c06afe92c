"""Announce: a remote account boosts a status, ours or another server's (Mastodon's
ActivityPub::Activity::Announce).

The object is resolved (ours by its URL, a known remote one by the URI index, an unknown one
fetched: remote_statuses.resolve) and the boost is written as a local boost is — the boost
edge, a status item that is a reblog, its stats — so the reblogs count, the `reblog`
notification and home feeds of the booster's local followers follow from the stream. Its URI
is the Announce's id (the URI index finds it for Undo and Delete): taken only when that id is
on the booster's own host, and never over another object's entry (repo/uris.py; a boost whose
id is another's is dropped whole, as Mastodon's unique status URI refuses it). Only public
and unlisted statuses can be boosted by others (Mastodon's `announceable?`); a boost of a
status whose author blocks the booster is dropped."""

from __future__ import annotations

from typing import Any

from stratus.core import clock, ids
from stratus.core.observability import logger
from stratus.federation.inbox.common import (
    Context,
    blocks,
    drops_refused_writes,
    known_status_id,
    mark_undone,
    object_id,
    undone_first,
)
from stratus.repo import interactions as interactions_repo
from stratus.repo import statuses as statuses_repo

PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
PUBLIC_FORMS = (PUBLIC, "as:Public", "Public")


def _audience(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [v if isinstance(v, str) else (v.get("id") if isinstance(v, dict) else None)
            for v in values if v]


def visibility(activity: dict[str, Any], actor: dict[str, Any]) -> str:
    """Mastodon's `visibility_from_audience`."""
    to, cc = _audience(activity.get("to")), _audience(activity.get("cc"))
    if any(a in PUBLIC_FORMS for a in to):
        return "public"
    if any(a in PUBLIC_FORMS for a in cc):
        return "unlisted"
    if actor.get("followers_url") and actor["followers_url"] in to:
        return "private"
    return "direct"


def _published(activity: dict[str, Any]) -> str:
    raw = activity.get("published")
    if isinstance(raw, str):
        try:
            return clock.iso(clock.parse_iso(raw))
        except ValueError:
            pass
    return clock.iso(clock.now())


@drops_refused_writes
def handle(ctx: Context) -> None:
    from stratus.repo import uris

    if not uris.on_host_of(ctx.activity["id"], ctx.actor["uri"]):
        logger.info("inbox Announce dropped: its id is not on its actor's host",
                    extra={"id": ctx.activity["id"], "actor": ctx.actor["uri"]})
        return
    if undone_first(ctx):
        return
    original_id = known_status_id(object_id(ctx.object), fetch=True)
    original = statuses_repo.get(original_id) if original_id else None
    if original is None or original.get("reblog_of_id"):
        return
    own = original["account_id"] == ctx.actor_id
    if not own and original.get("visibility") not in ("public", "unlisted"):
        return
    if blocks(original["account_id"], ctx.actor_id):
        return
    seen = visibility(ctx.activity, ctx.actor)
    if seen == "direct":
        return
    reblog_id = ids.new_id()
    if not interactions_repo.boost(
            ctx.actor_id, original, reblog_id, visibility=seen, uri=ctx.activity["id"],
            local=False, created_at=_published(ctx.activity),
            also=[uris.claim_op(ctx.activity["id"], "status", reblog_id,
                                owner_uri=ctx.actor["uri"])]):
        # boosted already, or the Announce's id names another object: nothing is written
        logger.info("inbox Announce dropped: boosted already, or its id is taken",
                    extra={"id": ctx.activity["id"]})


def _remove(actor_id: str, original_id: str) -> bool:
    """Undo the actor's boost of a status as a local unboost is undone; False if it had none."""
    return interactions_repo.unboost(actor_id, original_id)[0] is not None


def undo(ctx: Context, announce: dict[str, Any] | str) -> None:
    """Undo of an Announce: named by its id (the boost's URI) or embedded with its object."""
    from stratus.repo import uris

    known = uris.find(object_id(announce)) if object_id(announce) else None
    if known is not None and known[0] == "status":
        reblog = statuses_repo.get(known[1])
        if reblog is not None and reblog.get("account_id") == ctx.actor_id and \
                reblog.get("reblog_of_id"):
            _remove(ctx.actor_id, reblog["reblog_of_id"])
            return
    if isinstance(announce, dict):
        original_id = known_status_id(object_id(announce.get("object")))
        if original_id is not None and _remove(ctx.actor_id, original_id):
            return
    mark_undone(ctx, object_id(announce))


def remove_reblog(actor_id: str, reblog: dict[str, Any]) -> None:
    """A Delete naming a boost of this actor (Mastodon deletes reblogs by URI too)."""
    if reblog.get("account_id") == actor_id and reblog.get("reblog_of_id"):
        _remove(actor_id, reblog["reblog_of_id"])
