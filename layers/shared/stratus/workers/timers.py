"""Timer jobs fired by one-off schedules: poll expiry, scheduled statuses and scheduled
announcements."""

from __future__ import annotations

from stratus.api.announcements import announcements
from stratus.api.statuses import polls, scheduled
from stratus.jobs import messages as jobs


def handle(job: jobs.Job) -> None:
    if isinstance(job, jobs.PollExpired):
        polls.close(job.poll_id)
    elif isinstance(job, jobs.PublishScheduled):
        scheduled.publish(job.scheduled_status_id)
    elif isinstance(job, jobs.PublishAnnouncement):
        announcements.publish_scheduled(job.announcement_id, job.scheduled_at)
    else:
        raise ValueError(f"not a timer job: {job.name}")
