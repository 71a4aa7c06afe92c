"""Staff entities beyond the account and report ones: the moderation log's entries (Admin::
ActionLog), roles as the roles API manages them, and trending-link publishers
(Admin::PreviewCardProvider)."""

from __future__ import annotations

from typing import Any

from stratus.convert import accounts
from stratus.model import roles


def action_log(entry: dict[str, Any], accounts_by_id: dict[str, dict[str, Any]]
               ) -> dict[str, Any]:
    """One moderation log entry, with the acting account from `accounts_by_id` (rendered)."""
    return {"id": str(entry["id"]), "action": entry["action"],
            "target_type": entry["target_type"], "target_id": str(entry["target_id"]),
            "human_identifier": entry.get("human_identifier"),
            "account": accounts_by_id.get(str(entry["account_id"])),
            "created_at": entry["created_at"]}


def role(r: roles.Role) -> dict[str, Any]:
    """Mastodon's Role entity, plus `position` (the roles API needs it to be managed)."""
    return {**accounts.role(r), "position": r.position}


def requires_review(record: dict[str, Any] | None) -> bool:
    """A trend record (link, publisher) someone asked staff to review and nobody has yet."""
    return bool((record or {}).get("requested_review_at")) and not (record or {}).get(
        "reviewed_at")


def publisher(record: dict[str, Any]) -> dict[str, Any]:
    """Admin PreviewCardProvider: id, domain, trendable, reviewed_at, requested_review_at,
    requires_review."""
    return {"id": record["ident"], "domain": record["domain"],
            "trendable": bool(record.get("trendable")),
            "reviewed_at": record.get("reviewed_at"),
            "requested_review_at": record.get("requested_review_at"),
            "requires_review": requires_review(record)}
