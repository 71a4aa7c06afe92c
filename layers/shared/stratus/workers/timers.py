"""Timer jobs fired by one-off schedules: poll expiry, scheduled statuses and scheduled
announcements."""

from __future__ import annotations

from stratus.actions import posting
from stratus.auth import identity
from stratus.core import clock
from stratus.core.config import settings
from stratus.jobs import messages as jobs
from stratus.repo import announcements as announcements_repo
from stratus.repo import polls as polls_repo
from stratus.repo import scheduled as scheduled_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import transaction
from stratus.text import links


def handle(job: jobs.Job) -> None:
    if isinstance(job, jobs.PollExpired):
        close_poll(job.poll_id)
    elif isinstance(job, jobs.PublishScheduled):
        publish_scheduled(job.scheduled_status_id)
    elif isinstance(job, jobs.PublishAnnouncement):
        publish_announcement(job.announcement_id, job.scheduled_at)
    else:
        raise ValueError(f"not a timer job: {job.name}")


def publish_announcement(announcement_id: str, scheduled_at: str) -> bool:
    """Publish a scheduled announcement if it is still unpublished and still due at that time
    (a moved or cancelled schedule, or a redelivery, changes nothing); it lists the local
    statuses its text links to, as one published by staff does (api/announcements)."""
    current = announcements_repo.get(announcement_id, consistent=True)
    if current is None or current.get("published") or \
            current.get("scheduled_at") != scheduled_at:
        return False
    now = clock.iso(clock.now())
    published = {**current, "published": True, "published_at": now, "scheduled_at": None,
                 "updated_at": now,
                 "status_ids": links.local_status_ids(current["text"], settings().base_url),
                 "version": int(current.get("version", 1)) + 1}
    item = {k: v for k, v in published.items() if v is not None}
    try:
        transaction.write([announcements_repo.replace_op(item, int(current.get("version", 1)))])
    except transaction.ConditionFailed:
        return False
    return True


def close_poll(poll_id: str) -> bool:
    """Close a poll when its time is up; the stream turns it into notifications."""
    poll = statuses_repo.get_poll(poll_id)
    if poll is None or poll.get("closed"):
        return False
    return polls_repo.close(poll_id)


def publish_scheduled(scheduled_id: str) -> str | None:
    """Publish a scheduled status, exactly once: the scheduled item's conditional delete is part
    of the transaction that creates the status; a repeat finds nothing."""
    item = scheduled_repo.get(scheduled_id)
    if item is None:
        return None
    viewer = identity.viewer_for_account(item["account_id"])
    if viewer is None:  # the account is gone, and its schedule with it
        scheduled_repo.forget(scheduled_id)
        return None
    status_item, write = posting.build(viewer, dict(item["params"]),
                                       application=item.get("application"),
                                       scheduled_id=scheduled_id)
    try:
        write([scheduled_repo.remove_op(scheduled_id)])
    except transaction.ConditionFailed:
        return None  # already published by an earlier delivery
    posting.after_create(status_item)
    return status_item["id"]
