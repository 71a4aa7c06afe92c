"""Staff entities beyond the account and report ones: the moderation log's entries (Admin::
ActionLog), roles as the roles API manages them, and trending-link publishers
(Admin::PreviewCardProvider)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stratus.convert import accounts, instance, tags
from stratus.model import roles

HISTORY_DAYS = tags.HISTORY_DAYS  # an e-mail domain block's history has a tag's days


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


# --- instance access: domain, e-mail domain, canonical e-mail and IP blocks ------------------
def domain_block(item: dict[str, Any]) -> dict[str, Any]:
    """Admin::DomainBlock."""
    return {"id": str(item["id"]), "domain": item["domain"],
            "digest": instance.domain_digest(item["domain"]),
            "created_at": item["created_at"], "severity": item["severity"],
            "reject_media": bool(item.get("reject_media")),
            "reject_reports": bool(item.get("reject_reports")),
            "private_comment": item.get("private_comment"),
            "public_comment": item.get("public_comment"),
            "obfuscate": bool(item.get("obfuscate"))}


def domain_allow(item: dict[str, Any]) -> dict[str, Any]:
    """Admin::DomainAllow."""
    return {"id": str(item["id"]), "domain": item["domain"], "created_at": item["created_at"]}


def email_domain_block(now: datetime, item: dict[str, Any]) -> dict[str, Any]:
    """Admin::EmailDomainBlock, with the sign-up attempts of its last `HISTORY_DAYS` days."""
    history = [{"day": epoch, "accounts": str(len(item.get(f"ips_{day}") or ())),
                "uses": str(int(item.get(f"uses_{day}", 0)))}
               for epoch, day in tags.history_days(now)]
    return {"id": item["id"], "domain": item["domain"], "created_at": item["created_at"],
            "history": history, "allow_with_approval": bool(item.get("allow_with_approval"))}


def canonical_email_block(item: dict[str, Any]) -> dict[str, Any]:
    """Admin::CanonicalEmailBlock."""
    return {"id": item["id"], "canonical_email_hash": item["canonical_email_hash"]}


def ip_block(item: dict[str, Any]) -> dict[str, Any]:
    """Admin::IpBlock."""
    return {"id": item["id"], "ip": item["ip"], "severity": item["severity"],
            "comment": item.get("comment", ""), "created_at": item["created_at"],
            "expires_at": item.get("expires_at")}
