"""One atomic write across entities: a use case composes the ops that each entity's repo module
builds (keys, conditions and expressions stay there) and writes them here, all or nothing.

`Op` is the type of those ops (for annotations); `ConditionFailed` is raised when the condition
of an op that carries no API error of its own did not hold (its `failed` names which ops)."""

from __future__ import annotations

from collections.abc import Sequence

from stratus.repo import base

Op = base.Op
ConditionFailed = base.ConditionFailed


def write(ops: Sequence[Op], *, token: str | None = None) -> None:
    """Write `ops` atomically (DynamoDB TransactWriteItems). A failed condition raises the API
    error attached to its op, else `ConditionFailed`; contention with concurrent writers is
    retried, then answered as a retryable 429. `token` makes a retried call idempotent."""
    base.transact(ops, token=token)
