"""Trends on a schedule (EventBridge): rank every five minutes, ask staff to review every six
hours (Mastodon's intervals). The schedule's constant input names the task."""

from __future__ import annotations

from typing import Any

from stratus.api.trends import ranking
from stratus.core.observability import JobLimits, job_handler, logger


def _run(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    task = event.get("task")
    if task == "refresh":
        ranked = ranking.refresh()
        logger.info("trends ranked", extra={"ranked": ranked})
        return {"ranked": ranked}
    if task == "review":
        asked = ranking.request_review()
        logger.info("trends put up for review", extra={"items": len(asked)})
        return {"asked": len(asked)}
    raise ValueError(f"unknown trends task {task!r}")


# No outbound request: 90 s, and 15 s kept, within the 120 s timeout.
handler = job_handler(_run, limits=JobLimits(seconds=90, margin=15))
