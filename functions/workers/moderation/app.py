"""Moderation steps for Step Functions: each invocation runs one step of a state machine
(statemachines/purge_account.asl.json) and returns the state for the next one."""

from __future__ import annotations

from typing import Any

from stratus.observability import job_handler
from stratus.services import purge


def _step(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    return purge.step(event)


handler = job_handler(_step)
