"""Derived records written by stream consumers: hashtag index entries and notifications.
Every write is conditional, so a redelivered job changes nothing."""

from __future__ import annotations

from typing import Any

from . import base, keys


def index_tags(status_id: str, tags: list[str], fields: dict[str, Any]) -> None:
    for name in tags:
        base.put({**keys.tagged_status(name, status_id), "type": "tagged_status",
                  "status_id": status_id, "tag": name, **fields})
        base.put({**keys.tag(name), "type": "tag", "name": name},
                 condition="attribute_not_exists(PK)")


def unindex_tags(status_id: str, tags: list[str]) -> None:
    for name in tags:
        base.delete(keys.tagged_status(name, status_id))


def notify(recipient_id: str, kind: str, from_id: str, subject_id: str,
           notification: dict[str, Any]) -> bool:
    """Create a notification once per (recipient, type, actor, subject); False if it exists."""
    try:
        base.transact([
            base.put_new({**keys.notification_once(recipient_id, kind, from_id, subject_id),
                          "type": "notification_key", "notification_id": notification["id"]}),
            base.put_new({**keys.notification(recipient_id, notification["id"]),
                          "type": "notification", "account_id": recipient_id,
                          "notification_type": kind, "from_account_id": from_id,
                          **notification}),
        ])
    except base.ConditionFailed:
        return False
    return True


def notifications(account_id: str) -> list[dict[str, Any]]:
    return list(base.query(keys.notifications_of(account_id), descending=True))
