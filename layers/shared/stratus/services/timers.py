"""Timer jobs fired by one-off schedules: poll expiry and scheduled statuses."""

from __future__ import annotations

from typing import Any

from . import polls, scheduled


def handle(job: dict[str, Any]) -> None:
    if job.get("job") == "poll_expired":
        polls.close(job["poll_id"])
    elif job.get("job") == "publish_scheduled":
        scheduled.publish(job["scheduled_status_id"])
    else:
        raise ValueError(f"unknown timer job {job.get('job')!r}")
