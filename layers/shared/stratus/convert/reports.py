"""Report (what its reporter and staff notifications see) and Admin::Report entities."""

from __future__ import annotations

from typing import Any


def _common(item: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(item["id"]),
            "action_taken": bool(item.get("action_taken_at")),
            "action_taken_at": item.get("action_taken_at"),
            "category": item.get("category", "other"),
            "comment": item.get("comment", ""),
            "forwarded": bool(item.get("forwarded", False)),
            "created_at": item["created_at"]}


def report(item: dict[str, Any], *, target_account: dict[str, Any]) -> dict[str, Any]:
    rule_ids = item.get("rule_ids")
    return {**_common(item),
            "status_ids": [str(s) for s in item.get("status_ids", [])],
            "rule_ids": [str(r) for r in rule_ids] if rule_ids is not None else None,
            "target_account": target_account}


def admin_report(item: dict[str, Any], *, account: dict[str, Any],
                 target_account: dict[str, Any], assigned_account: dict[str, Any] | None,
                 action_taken_by_account: dict[str, Any] | None,
                 statuses: list[dict[str, Any]], rules: list[dict[str, Any]]
                 ) -> dict[str, Any]:
    return {**_common(item),
            "updated_at": item.get("updated_at", item["created_at"]),
            "account": account,
            "target_account": target_account,
            "assigned_account": assigned_account,
            "action_taken_by_account": action_taken_by_account,
            "statuses": statuses,
            "rules": rules}
