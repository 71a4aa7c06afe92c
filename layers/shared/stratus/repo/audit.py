"""The moderation (audit) log: who did what to whom, when."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from stratus.core.paging import Budget
from stratus.repo import base, keys


def _key(entry: dict[str, Any]) -> dict[str, str]:
    """Where a log entry (or an index entry of it) is stored: its month's partition, by id."""
    return keys.audit(entry["created_at"][:7].replace("-", ""), entry["id"])


def entry_op(entry: dict[str, Any]) -> base.Op:
    return base.put_new({**_key(entry), "type": "audit_log",
                         **keys.audit_index_keys(entry["account_id"], entry["target_type"],
                                                 entry["target_id"], entry["id"]),
                         **entry})


def by_target(target_type: str, target_id: str) -> list[dict[str, Any]]:
    """The log entries on one target (index order; one Query, one BatchGetItem)."""
    entries = list(base.query(keys.audit_on(target_type, target_id), index="GSI2"))
    return list(base.records(base.batch_get([{"PK": e["PK"], "SK": e["SK"]}
                                             for e in entries])))


# --- listing (actions: GET /api/v1/admin/action_logs) -------------------------------------------
def entries(*, actor_id: str | None, targets: list[tuple[str, str]], low: int | None,
            high: int | None, descending: bool, budget: Budget, step: int
            ) -> Iterator[dict[str, Any]]:
    """Index entries of the log (`id`, `created_at`, `account_id`, `target_id`) in id order,
    ids in [low, high] (None: unbounded): by actor (GSI1), by any of `targets` (GSI2, merged)
    or all of it (GSI3)."""
    lo, hi = keys.id_range(low, high)
    if targets:
        streams = [base.query(audit_on_partition, index="GSI2", sk_between=(lo, hi),
                              descending=descending, budget=budget, step=step)
                   for audit_on_partition in (keys.audit_on(t, i) for t, i in targets)]
        return base.records(heapq.merge(*streams, key=lambda e: e["GSI2SK"],
                                        reverse=descending))
    if actor_id:
        return base.records(base.query(keys.audit_by(actor_id), index="GSI1",
                                       sk_between=(lo, hi), descending=descending,
                                       budget=budget, step=step))
    return base.records(base.query(keys.AUDIT_ALL, index="GSI3", sk_between=(lo, hi),
                                   descending=descending, budget=budget, step=step))


def get_many(index_entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Full log entries for index entries (as `entries` yields them), by id."""
    found = base.batch_get([_key(e) for e in index_entries])
    return {str(item["id"]): base.record(item) for item in found}
