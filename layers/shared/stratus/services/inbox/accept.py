"""Accept: a remote account accepts a local account's follow request (Mastodon's
ActivityPub::Activity::Accept). The object is the Follow we sent, embedded or by its id; its
actor is the local follower. follows.remote_accepted turns the pending request into a follow."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .common import Context, local_account_id, object_id, object_type


def follower_of(follow: Any) -> str | None:
    """The local account that sent a Follow, embedded (its `actor`) or named by its id (our
    Follow ids start with the follower's actor URL)."""
    if isinstance(follow, dict) and object_type(follow) not in (None, "Follow"):
        return None
    if isinstance(follow, dict) and follow.get("actor"):
        return local_account_id(object_id(follow.get("actor")))
    uri = object_id(follow)
    if not uri:
        return None
    path = urlsplit(uri)._replace(fragment="", query="").geturl()
    return local_account_id(path.partition("/follows/")[0])


def handle(ctx: Context) -> None:
    from .. import follows

    local_id = follower_of(ctx.object)
    if local_id is not None:
        follows.remote_accepted(local_id, ctx.actor_id)
