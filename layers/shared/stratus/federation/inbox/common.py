"""What every inbox use case works with: the activity, its (verified) actor's profile, the
inbox it came to; and the small readings of ActivityStreams JSON they share (a property may be
a URI or an embedded object, a single value or a list: Mastodon's `value_or_id`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Context:
    activity: dict[str, Any]
    actor: dict[str, Any]  # the remote account's profile (its `uri` is the activity's actor)
    owner_id: str | None = None  # the local account whose inbox it came to; None: shared

    @property
    def actor_id(self) -> str:
        return self.actor["id"]

    @property
    def object(self) -> Any:
        return self.activity.get("object")


def drops_refused_writes(handler: Callable[[Context], Any]) -> Callable[[Context], Any]:
    """A use case whose write the table refuses — a condition that fails, such as a URI index
    entry that is another object's, or an id that is not on its owner's host (repo/uris.py) —
    drops its activity, logged: the refused transaction wrote nothing, and run again it would
    be refused again, so it is neither a failed job that SQS redelivers nor an error."""

    @functools.wraps(handler)
    def run(ctx: Context) -> Any:
        from stratus.core.observability import logger
        from stratus.repo import transaction, uris

        try:
            return handler(ctx)
        except (transaction.ConditionFailed, uris.Foreign) as refused:
            logger.info("inbox activity dropped: a write was refused", extra={
                "type": ctx.activity.get("type"), "id": ctx.activity.get("id"),
                "reason": str(refused)})
            return None
    return run


def object_id(value: Any) -> str | None:
    """The id of a property that is a URI, an embedded object or a one-element list."""
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and value else None


def object_type(value: Any) -> str | None:
    """The `type` of an embedded object (the first of a list of types)."""
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    kind = value.get("type") if isinstance(value, dict) else None
    if isinstance(kind, list):
        kind = next((k for k in kind if isinstance(k, str)), None)
    return kind if isinstance(kind, str) else None


def host(uri: str | None) -> str | None:
    """The normalised host (with a port that is not the default) of a URI; None if it has
    none (stratus.core.hosts)."""
    from stratus.core import urls

    return urls.host_of(uri) or None if uri else None


def domain(uri: str | None) -> str | None:
    """The domain of a URI as domain blocks name it (no port)."""
    from stratus.core import hosts

    found = host(uri)
    return hosts.hostname(found) or None if found else None


def same_origin(a: str | None, b: str | None) -> bool:
    return a is not None and host(a) is not None and host(a) == host(b)


# --- our own objects, named by their URLs ------------------------------------------------------------
def local_account_id(uri: str | None) -> str | None:
    """The local account an actor URL of ours names (`/users/<name>`), if it exists: the one
    parser of our actor URLs (federation/remote_accounts.py)."""
    from stratus.federation import remote_accounts

    return remote_accounts.local_account_id(uri) if isinstance(uri, str) else None


def local_status_id(uri: str | None) -> str | None:
    """The local status a status URL of ours names, if it exists and is that account's: the
    one parser of our status URLs (federation/remote_statuses.py)."""
    from stratus.federation import remote_statuses

    return remote_statuses.local_status_id(uri) if isinstance(uri, str) else None


def known_status_id(uri: str | None, *, fetch: bool = False) -> str | None:
    """The status (local or remote) a URI names: ours by its URL, a remote one by the URI
    index; with `fetch`, an unknown remote one is fetched and stored (remote_statuses)."""
    if not uri:
        return None
    found = local_status_id(uri)
    if found is not None:
        return found
    from stratus.repo import uris

    known = uris.find(uri)
    if known is not None and known[0] == "status":
        return known[1]
    if fetch and host(uri) is not None:
        from stratus.federation import remote_statuses

        return remote_statuses.resolve(uri)
    return None


UNDONE_SECONDS = 6 * 3600  # Mastodon's delete_later!: a Redis key for 6 hours


def mark_undone(ctx: Context, uri: str | None) -> None:
    """An Undo of an activity we have not seen: remembered, so that it has no effect when it
    arrives after its Undo (Mastodon's delete_later!)."""
    from stratus.repo import dedupe

    if uri:
        dedupe.mark("inbox-undone", dedupe.actor_scoped(ctx.actor["uri"], uri),
                    ttl=UNDONE_SECONDS)


def undone_first(ctx: Context) -> bool:
    """Mastodon's delete_arrived_first?(@json['id'])."""
    from stratus.repo import dedupe

    key = dedupe.actor_scoped(ctx.actor["uri"], str(ctx.activity.get("id")))
    return bool(dedupe.marked("inbox-undone", [key]))


def blocks(blocker_id: str, blocked_id: str) -> bool:
    """Whether one account blocks another (a consistent read)."""
    from stratus.repo import relationships as relationships_repo

    view, _ = relationships_repo.load(blocker_id, [blocked_id], full=False, consistent=True)
    return blocked_id in view.blocking
