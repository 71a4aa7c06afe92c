"""Timer jobs fired by one-off schedules: poll expiry and scheduled statuses."""

from __future__ import annotations

from ..jobs import messages as jobs
from . import polls, scheduled


def handle(job: jobs.Job) -> None:
    if isinstance(job, jobs.PollExpired):
        polls.close(job.poll_id)
    elif isinstance(job, jobs.PublishScheduled):
        scheduled.publish(job.scheduled_status_id)
    else:
        raise ValueError(f"not a timer job: {job.name}")
