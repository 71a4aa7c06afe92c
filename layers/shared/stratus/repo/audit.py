"""The moderation (audit) log: who did what to whom, when."""

from __future__ import annotations

from typing import Any

from . import base, keys


def entry_op(entry: dict[str, Any]) -> base.Op:
    month = entry["created_at"][:7].replace("-", "")
    return base.put_new({**keys.audit(month, entry["id"]), "type": "audit_log",
                         **keys.audit_index_keys(entry["account_id"], entry["target_type"],
                                                 entry["target_id"], entry["id"]),
                         **entry})


def by_target(target_type: str, target_id: str) -> list[dict[str, Any]]:
    entries = list(base.query(keys.audit_on(target_type, target_id), index="GSI2"))
    return base.batch_get([{"PK": e["PK"], "SK": e["SK"]} for e in entries])
