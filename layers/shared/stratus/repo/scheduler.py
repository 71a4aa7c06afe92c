"""One-off EventBridge Scheduler schedules (poll expiry, scheduled statuses) → the timers queue."""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import Any

from stratus.repo.client import client


def _target(payload: dict[str, Any]) -> dict[str, Any]:
    return {"Arn": os.environ["TIMERS_QUEUE_ARN"], "RoleArn": os.environ["SCHEDULER_ROLE_ARN"],
            "Input": json.dumps(payload, separators=(",", ":"))}


def _expression(when: datetime) -> str:
    return "at(" + when.strftime("%Y-%m-%dT%H:%M:%S") + ")"


def schedule(name: str, when: datetime, payload: dict[str, Any]) -> None:
    """Create or move the one-off schedule `name` to fire at `when` (UTC)."""
    scheduler = client("scheduler")
    args = {"Name": name, "ScheduleExpression": _expression(when),
            "ScheduleExpressionTimezone": "UTC", "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": _target(payload), "ActionAfterCompletion": "DELETE"}
    try:
        scheduler.create_schedule(**args)
    except scheduler.exceptions.ConflictException:
        scheduler.update_schedule(**args)


def cancel(name: str) -> None:
    scheduler = client("scheduler")
    try:
        scheduler.delete_schedule(Name=name)
    except scheduler.exceptions.ResourceNotFoundException:
        pass
