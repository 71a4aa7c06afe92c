"""Side effects of status activity, applied by the effects worker from stream-derived jobs:
hashtag index entries and notification records (mention, reblog, favourite, poll)."""

from __future__ import annotations

from typing import Any

from .. import clock, ids
from ..repo import effects as repo
from . import polls


def _notify(recipient: str, kind: str, actor: str, subject: str, status_id: str | None) -> bool:
    if recipient == actor and kind != "poll":
        return False
    return repo.notify(recipient, kind, actor, subject,
                       {"id": ids.new_id(), "status_id": status_id,
                        "created_at": clock.iso(clock.now())})


def handle(job: dict[str, Any]) -> int:
    """Apply one job; returns how many records it created (0 on redelivery)."""
    kind = job.get("job")
    created = 0
    if kind == "status_created":
        if job.get("tags"):
            repo.index_tags(job["status_id"], job["tags"],
                            {"visibility": job.get("visibility"), "account_id": job["account_id"]})
        if job.get("reblog_of_id"):
            created += _notify(job["reblog_of_account_id"], "reblog", job["account_id"],
                               job["reblog_of_id"], job["reblog_of_id"])
        for mentioned in job.get("mention_ids", []):
            created += _notify(mentioned, "mention", job["account_id"], job["status_id"],
                               job["status_id"])
    elif kind == "status_changed":
        repo.unindex_tags(job["status_id"], job.get("removed_tags", []))
        if job.get("added_tags"):
            repo.index_tags(job["status_id"], job["added_tags"],
                            {"visibility": job.get("visibility"), "account_id": job["account_id"]})
        for mentioned in job.get("added_mention_ids", []):
            created += _notify(mentioned, "mention", job["account_id"], job["status_id"],
                               job["status_id"])
    elif kind == "status_removed":
        repo.unindex_tags(job["status_id"], job.get("tags", []))
    elif kind == "media_expired":
        from ..repo import media as storage

        for key in job.get("keys", []):
            storage.delete_object(key)  # unattached media that nobody posted
    elif kind == "favourited":
        created += _notify(job["status_account_id"], "favourite", job["account_id"],
                           job["status_id"], job["status_id"])
    elif kind == "poll_closed":
        for voter in [*polls.voters(job["poll_id"]), job["account_id"]]:
            created += _notify(voter, "poll", job["account_id"], job["poll_id"], job["status_id"])
    else:
        raise ValueError(f"unknown effects job {kind!r}")
    return created
