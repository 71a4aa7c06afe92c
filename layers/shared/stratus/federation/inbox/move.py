"""Move (Mastodon's ActivityPub::Activity::Move): a remote account moved to another. Taken only
when the target actor, fetched afresh, lists the origin in `alsoKnownAs`; then the local
followers of the origin follow the target instead — a follow request to the target (sent as
a Follow by the outbox, as any follow of a remote account) in place of their follow of the
origin — in bounded batches, one `MoveFollowers` job each (the first runs here, the rest on
the inbox queue)."""

from __future__ import annotations

from dataclasses import replace

from stratus.federation.inbox.common import Context, drops_refused_writes, object_id
from stratus.jobs import messages as jobs
from stratus.repo import accounts as accounts_repo
from stratus.repo import queues, remote_follows

BATCH = 100


@drops_refused_writes
def handle(ctx: Context) -> None:
    from stratus.federation import remote_accounts

    origin = ctx.actor
    if object_id(ctx.object) != origin["uri"]:
        return
    target_uri = object_id(ctx.activity.get("target"))
    if not target_uri or target_uri == origin["uri"]:
        return
    target = remote_accounts.resolve(target_uri, refresh=True)
    if target is None or origin["uri"] not in (target.get("also_known_as") or []) or \
            target.get("suspended_at"):
        return
    migrate(jobs.MoveFollowers(origin_id=origin["id"], target_id=target["id"]))


def migrate(job: jobs.MoveFollowers) -> None:
    """One batch of the origin's followers (after `job.after`); the rest in a new job."""
    from stratus.federation import follows

    entries = remote_follows.followers_after(job.origin_id, job.after, BATCH)
    profiles = accounts_repo.get_many([e["account_id"] for e in entries],
                                      (accounts_repo.PROFILE,)) if entries else {}
    for entry in entries:
        follower_id = entry["account_id"]
        profile = profiles.get(follower_id, {}).get(accounts_repo.PROFILE)
        if profile is None or profile.get("domain") or follower_id == job.target_id:
            continue  # only our accounts are moved by us; remote ones by their servers
        remote_follows.move_follow(follower_id, job.origin_id, job.target_id,
                                   uri=follows.activity_uri())
    if len(entries) == BATCH:
        queues.send("inbox", [replace(job, after=entries[-1]["id"]).to_dict()])
