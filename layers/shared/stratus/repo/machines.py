"""Step Functions: starting the state machines that run long work (statemachines/)."""

from __future__ import annotations

import json
import re
from typing import Any

from stratus.core.config import settings
from stratus.repo.client import client

_NAME = re.compile(r"[^A-Za-z0-9_-]")


def execution_name(kind: str, event_id: str) -> str:
    """A name that is the same each time one change is delivered (at most 80 characters)."""
    return _NAME.sub("-", f"{kind}-{event_id}")[:80]


def start(machine: str, name: str, payload: dict[str, Any]) -> bool:
    """Start an execution; False when one of that name exists already (a redelivered change:
    Step Functions keeps names unique per state machine for 90 days)."""
    sfn = client("stepfunctions")
    try:
        sfn.start_execution(stateMachineArn=settings().state_machine_arn(machine), name=name,
                            input=json.dumps(payload))
    except sfn.exceptions.ExecutionAlreadyExists:
        return False
    return True
