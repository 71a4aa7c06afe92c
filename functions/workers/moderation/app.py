"""Moderation steps for Step Functions: each invocation runs one step of a state machine
(statemachines/purge_account.asl.json, statemachines/domain_block.asl.json) and returns the state for the next one."""

from __future__ import annotations

from typing import Any

from stratus.core.observability import JobLimits, job_handler
from stratus.workers import moderation as domain_moderation
from stratus.workers import purge


def _step(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """The domain-block machine's state carries its job's name; anything else is a purge."""
    if isinstance(event, dict) and event.get("job") == "domain_block":
        return domain_moderation.step(event)
    return purge.step(event)


# One step of a state machine (no outbound request of its own): 40 s, and 10 s kept, within
# the 60 s timeout.
handler = job_handler(_step, limits=JobLimits(seconds=40, margin=10))
