"""A notification as stored, and the group it belongs to (grouped notifications) — records as
repo/ returns them (no storage keys); an attribute a record does not have is simply absent."""

from __future__ import annotations

from typing import Any, TypedDict


class Notification(TypedDict, total=False):
    id: str
    type: str  # "notification"
    account_id: str  # whom it is for
    notification_type: str  # mention, status, reblog, follow, favourite, poll, update …
    from_account_id: str
    status_id: str
    subject_id: str  # what else it is about (a report, a warning, a relationship severance)
    group_key: str
    filtered: bool
    created_at: str
    counted: bool


class NotificationGroup(TypedDict, total=False):
    type: str  # "notification_group"
    account_id: str
    group_key: str
    notification_type: str
    status_id: str
    latest_id: str
    notifications_count: int
    samples: list[Any]
    sample_version: int
