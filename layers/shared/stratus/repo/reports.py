"""Reports: one item per report, listed by state through three indexes (all reports, by the
reporting account, against the reported account; docs/data-model.md "Reports")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from stratus.core.errors import NotFound
from stratus.core.paging import Budget
from stratus.repo import base, keys

OPEN, RESOLVED = keys.REPORT_STATES


def state_of(item: dict[str, Any]) -> str:
    return RESOLVED if item.get("action_taken_at") else OPEN


def _item(report: dict[str, Any]) -> dict[str, Any]:
    """The stored item of a report (its index keys follow its state)."""
    return {**keys.report(report["id"]), "type": "report", **report,
            **keys.report_index_keys(report["id"], report["account_id"], report["target_id"],
                                     state_of(report))}


def create_op(report: dict[str, Any]) -> base.Op:
    return base.put_new(_item(report))


def get(report_id: str, *, consistent: bool = False) -> dict[str, Any] | None:
    return base.record(base.get(keys.report(report_id), consistent=consistent))


def get_many(report_ids: list[str]) -> dict[str, dict[str, Any]]:
    found = base.batch_get([keys.report(r) for r in dict.fromkeys(report_ids)])
    return {str(i["id"]): base.record(i) for i in found}


def update_op(report: dict[str, Any], changes: dict[str, Any]) -> base.Op:
    """Set `changes` (None removes an attribute) on a report that still exists; a change of
    `action_taken_at` moves its index entries to the state it puts the report in. 404 if it
    is gone."""
    index: dict[str, str] = {}
    if "action_taken_at" in changes:
        state = RESOLVED if changes["action_taken_at"] else OPEN
        index = keys.report_index_keys(report["id"], report["account_id"], report["target_id"],
                                       state)
    op = base.set_op(keys.report(report["id"]), {**changes, **index})
    op.on_conflict = NotFound()
    return op


def has_open_against(target_id: str, *, excluding: str | None = None) -> bool:
    """Whether some unresolved report (other than `excluding`) is against this account."""
    for entry in base.query(keys.reports_on(target_id, OPEN), index="GSI3", limit=2):
        if str(entry["id"]) != str(excluding):
            return True
    return False


def open_against(target_id: str) -> list[str]:
    """Ids of the unresolved reports against an account, newest first."""
    return [str(e["id"]) for e in base.query(keys.reports_on(target_id, OPEN), index="GSI3",
                                             descending=True)]


def entries(state: str, *, account_id: str | None, target_id: str | None, low: int | None,
            high: int | None, descending: bool, budget: Budget, step: int
            ) -> Iterator[dict[str, Any]]:
    """Index entries (`id`) of reports in one state with ids in [low, high] (None:
    unbounded), by id: those filed by `account_id`, against `target_id`, or both (the
    reporter's index, filtered by DynamoDB on the target)."""
    lo, hi = keys.id_range(low, high)
    if account_id is not None:
        index, partition = "GSI2", keys.reports_by(account_id, state)
    elif target_id is not None:
        index, partition = "GSI3", keys.reports_on(target_id, state)
    else:
        index, partition = "GSI1", keys.reports_all(state)
    condition = None
    if account_id is not None and target_id is not None:
        condition = ("#target = :target", {"#target": "target_id"}, {":target": target_id})
    return base.records(base.query(partition, index=index, sk_between=(lo, hi),
                                   descending=descending, budget=budget, step=step,
                                   filter=condition))
