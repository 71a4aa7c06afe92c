"""EventBridge schedule target: remove our copies of remote media fetched more than `days`
days ago (Mastodon's media cache retention period; `stratusctl media remove --days N` does the
same by hand). A removed copy is fetched again on its next use."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, job_handler, logger
from stratus.federation import remote_media

# Stop before the function's timeout; what is left is removed by the next run.
RUN_SECONDS = 240


def _run(event: dict[str, Any], _context: Any) -> dict[str, int]:
    days = event.get("days", remote_media.DEFAULT_RETENTION_DAYS)
    if not isinstance(days, int) or isinstance(days, bool) or days < 0:
        raise ValueError(f"days must be a whole number of days, not {days!r}")
    removed = remote_media.remove_older_than(days, seconds=RUN_SECONDS)
    logger.info("remote media expired", extra={"days": days, "removed": removed})
    return {"days": days, "removed": removed}


# Removing copies (S3, no outbound request): 240 s, and 30 s kept, within the 300 s timeout.
handler = job_handler(_run, limits=JobLimits(seconds=240, margin=30))
