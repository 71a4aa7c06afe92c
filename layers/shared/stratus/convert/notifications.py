"""Notification, NotificationGroup, GroupedNotificationsResults, PartialAccountWithAvatar,
NotificationPolicy, NotificationRequest and Marker entities."""

from __future__ import annotations

from typing import Any

# Types whose entity carries the status they are about.
STATUS_TYPES = frozenset({"mention", "status", "reblog", "favourite", "poll", "update"})
REPORT_TYPE = "admin.report"  # its entity carries the Report it is about (its subject)
PARTIAL_ACCOUNT_FIELDS = ("id", "acct", "locked", "bot", "url", "avatar", "avatar_static")


def group_key(item: dict[str, Any]) -> str:
    """A notification's group, or `ungrouped-<id>` (Mastodon's rendering of none)."""
    return item.get("group_key") or f"ungrouped-{item['id']}"


def notification(item: dict[str, Any], *, account: dict[str, Any],
                 status: dict[str, Any] | None, report: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    entity: dict[str, Any] = {"id": item["id"], "type": item["notification_type"],
                              "created_at": item["created_at"], "group_key": group_key(item),
                              "account": account}
    if item["notification_type"] in STATUS_TYPES:
        entity["status"] = status
    if item["notification_type"] == REPORT_TYPE:
        entity["report"] = report
    if item.get("filtered"):
        entity["filtered"] = True
    return entity


def notification_group(*, key: str, kind: str, count: int, most_recent_id: str,
                       sample_account_ids: list[str], status_id: str | None,
                       page: tuple[str, str, str] | None) -> dict[str, Any]:
    """`page`: (page_min_id, page_max_id, latest_page_notification_at) when the group comes
    from a paginated listing."""
    entity: dict[str, Any] = {"group_key": key, "notifications_count": count, "type": kind,
                              # Mastodon renders this one id as a number.
                              "most_recent_notification_id": int(most_recent_id),
                              "sample_account_ids": sample_account_ids}
    if page is not None:
        entity["page_min_id"], entity["page_max_id"], entity["latest_page_notification_at"] = page
    if kind in STATUS_TYPES:
        entity["status_id"] = status_id
    return entity


def partial_account(account: dict[str, Any]) -> dict[str, Any]:
    return {name: account[name] for name in PARTIAL_ACCOUNT_FIELDS}


def grouped_results(groups: list[dict[str, Any]], accounts: list[dict[str, Any]],
                    statuses: list[dict[str, Any]],
                    partial_accounts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    results: dict[str, Any] = {"accounts": accounts}
    if partial_accounts is not None:
        results["partial_accounts"] = partial_accounts
    results["statuses"] = statuses
    results["notification_groups"] = groups
    return results


def policy(values: dict[str, str], pending_requests: int, pending_notifications: int
           ) -> dict[str, Any]:
    return {**values, "summary": {"pending_requests_count": pending_requests,
                                  "pending_notifications_count": pending_notifications}}


def request(item: dict[str, Any], *, account: dict[str, Any],
            last_status: dict[str, Any] | None) -> dict[str, Any]:
    return {"id": item["id"], "created_at": item["created_at"], "updated_at": item["updated_at"],
            "notifications_count": str(max(int(item.get("notifications_count", 0)), 0)),
            "account": account, "last_status": last_status}


def marker(item: dict[str, Any]) -> dict[str, Any]:
    return {"last_read_id": item["last_read_id"], "version": int(item["version"]),
            "updated_at": item["updated_at"]}
