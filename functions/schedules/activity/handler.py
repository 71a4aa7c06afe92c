"""EventBridge schedule target: recompute active-user windows and weekly logins."""

from __future__ import annotations

from typing import Any

from stratus.auth import activity as stats
from stratus.core.observability import JobLimits, job_handler, logger


def _run(_event: dict[str, Any], _context: Any) -> dict[str, int]:
    result = stats.refresh_activity()
    logger.info("activity refreshed", extra=result)
    return result


# No outbound request: 90 s, and 15 s kept, within the 120 s timeout.
handler = job_handler(_run, limits=JobLimits(seconds=90, margin=15))
