"""Timer jobs fired by one-off schedules: poll expiry, scheduled statuses and scheduled
announcements."""

from __future__ import annotations

from stratus.api.statuses import polls, scheduled
from stratus.core import clock
from stratus.core.config import settings
from stratus.jobs import messages as jobs
from stratus.repo import announcements as announcements_repo
from stratus.repo import transaction
from stratus.text import links


def handle(job: jobs.Job) -> None:
    if isinstance(job, jobs.PollExpired):
        polls.close(job.poll_id)
    elif isinstance(job, jobs.PublishScheduled):
        scheduled.publish(job.scheduled_status_id)
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
