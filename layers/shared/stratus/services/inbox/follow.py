"""Follow: a remote account follows a local one (Mastodon's ActivityPub::Activity::Follow).

The follow (or, for a locked account or a silenced follower, the follow request) is written
as local ones are, in the follower's partition, carrying `uri` = the Follow's id (the Accept,
Reject and Undo that come later name it); counts and the `follow`/`follow_request`
notification follow from the stream, and the outbox sends the Accept. A Follow repeated for
a follow or request that exists only records the new id. Refused — a Reject is sent back and
nothing is written — when the account blocks the follower or the follower's domain, or is
suspended or moved."""

from __future__ import annotations

from ... import ids
from ...domain.relationships import FollowOptions
from ...repo import accounts as accounts_repo
from ...repo import base, keys
from ...repo import relationships as repo
from . import replies
from .common import Context, domain, local_account_id, object_id


def _refused(target: dict, follower: dict) -> bool:
    if target.get("suspended_at") or target.get("moved_to_account_id"):
        return True
    found = repo.get_many([keys.block(target["id"], follower["id"]),
                           keys.user_domain_block(target["id"], domain(follower["uri"]) or "")])
    return bool(found)


def _record_uri(key: dict[str, str], uri: str) -> None:
    try:
        repo.write([repo.options_update(key, {"uri": uri})])
    except base.ConditionFailed:
        pass  # gone meanwhile (unfollowed, or the request answered)


def handle(ctx: Context) -> None:
    target_id = local_account_id(object_id(ctx.object))
    target = accounts_repo.get_profile(target_id) if target_id else None
    if target is None:
        return
    follower, uri = ctx.actor, ctx.activity["id"]
    request_key = keys.follow_request(target_id, follower["id"])
    follow_key = keys.follow(follower["id"], target_id)
    existing = {(i["type"]): i for i in repo.get_many([request_key, follow_key])}
    if "follow_request" in existing:
        _record_uri(request_key, uri)
        return
    if _refused(target, follower):
        replies.reject_follow(ctx.activity, follower, target)
        return
    if "follow" in existing:
        _record_uri(follow_key, uri)
        return
    pending = bool(target.get("locked") or follower.get("silenced_at"))
    item = (repo.follow_request_item(ids.new_id(), follower["id"], target_id, FollowOptions())
            if pending else repo.follow_item(ids.new_id(), follower["id"], target_id,
                                             FollowOptions()))
    item["uri"] = uri
    try:
        repo.write([repo.create_op(item),
                    base.Op("ConditionCheck", key=keys.block(target_id, follower["id"]),
                            condition="attribute_not_exists(PK)")])
    except base.ConditionFailed:
        pass  # made meanwhile by a redelivery, or blocked meanwhile: nothing more to do
