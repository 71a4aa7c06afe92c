"""Running queued inbox activities (the inbox worker, functions/workers/inbox).

Each activity has its effect once: a claim on (actor, activity id) is written first, with a
TTL past SQS's longest redelivery (repo/dedupe), and given back if the use case fails, so
that SQS's retry runs it again; a redelivered or re-POSTed activity finds the claim and does
nothing. The actor's account is read again here: a domain suspended, or an account suspended,
after the POST was queued drops the activity (Mastodon's ProcessingWorker drops activities of
suspended actors, except those that end their presence here: Delete of themselves, Undo).

Types are dispatched to one module each; Add/Remove (featured collections), EmojiReact and
any type we do not handle are accepted and dropped, as Mastodon drops them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from stratus.core import outbound
from stratus.core.observability import logger
from stratus.federation import reply_fetch
from stratus.federation.inbox import (
    accept,
    announce,
    block,
    create,
    delete,
    flag,
    follow,
    like,
    move,
    quota,
    reject,
    undo,
    update,
)
from stratus.federation.inbox.common import Context, domain, host, object_id
from stratus.jobs import messages as jobs
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import dedupe

SCOPE = "inbox"
HANDLERS: dict[str, Callable[[Context], Any]] = {
    "Follow": follow.handle, "Accept": accept.handle, "Reject": reject.handle,
    "Undo": undo.handle, "Create": create.handle, "Update": update.handle,
    "Delete": delete.handle, "Announce": announce.handle, "Like": like.handle,
    "Block": block.handle, "Flag": flag.handle, "Move": move.handle,
}
# Allowed while the actor is suspended: they only take its presence away.
WHILE_SUSPENDED = ("Delete", "Undo")


def activity_type(activity: dict[str, Any]) -> str | None:
    kind = activity.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if isinstance(k, str) and k in HANDLERS),
                    kind[0] if kind else None)
    return kind if isinstance(kind, str) else None


def handle(job: jobs.Job) -> None:
    if isinstance(job, jobs.MoveFollowers):
        move.migrate(job)
        return
    if isinstance(job, jobs.FetchReplies):
        reply_fetch.run(job)
        return
    if not isinstance(job, jobs.InboxActivity):
        raise TypeError(f"not an inbox job: {job.name}")
    # Inside the batch's budget, one of the job's own: what it made and how long it took.
    with outbound.budget(float("inf")) as spent:
        try:
            run(job.activity, job.actor_id, job.owner_id)
        finally:
            if spent.made:
                quota.charge(host(object_id(job.activity.get("actor"))) or "",
                             time.monotonic() - spent.started)


def sender(record: dict[str, Any]) -> str | None:
    """The host whose activity a queued record carries (the batch takes hosts in turn:
    core/observability.fair); None for other jobs, or a body that is no job."""
    try:
        job = json.loads(record["body"])
        actor = job.get("activity", {}).get("actor") if job.get("job") == "inbox_activity" \
            else None
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
        return None  # no job: the record handler drops it
    return host(object_id(actor))


def run(activity: dict[str, Any], actor_id: str, owner_id: str | None) -> bool:
    """Apply one verified activity; False when it was dropped or had been applied before."""
    kind = activity_type(activity)
    handler = HANDLERS.get(kind or "")
    actor = accounts_repo.get_profile(actor_id)
    if handler is None or actor is None:
        logger.info("inbox activity dropped", extra={"type": kind, "known_actor": bool(actor)})
        return False
    if object_id(activity.get("actor")) != actor.get("uri"):
        return False
    if actor.get("suspended_at") and kind not in WHILE_SUSPENDED:
        return False
    if not domain_blocks.allowed(domain(actor.get("uri")) or ""):
        return False
    claim = dedupe.actor_scoped(actor["uri"], str(activity.get("id")))
    if not dedupe.claim(SCOPE, claim):
        return False
    try:
        handler(Context(activity, actor, owner_id))
    except BaseException:
        dedupe.release(SCOPE, claim)
        raise
    return True
