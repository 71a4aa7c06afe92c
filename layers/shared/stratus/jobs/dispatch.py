"""The outbox: Main-table stream records → job messages on SQS queues.

Services only write data; this module decides which changes have side effects and where their
jobs go. It is pure (no AWS calls), so it is tested directly and the dispatch handler stays thin.
"""

from __future__ import annotations

from typing import Any

from ..repo.base import deserialize
from .messages import ItemChanged

# Item types whose changes move instance counters, and the attributes the counter rules read.
COUNTED_TYPES = {
    "user": ("account_id", "created_at"),
    "status": ("account_id", "created_at", "local", "reblog_of_id", "deleted_at"),
}


def _image(record: dict[str, Any], name: str, wanted: tuple[str, ...]) -> dict[str, Any]:
    raw = record.get("dynamodb", {}).get(name)
    if not raw:
        return {}
    item = deserialize(raw)
    return {k: item[k] for k in (*wanted, "type") if k in item}


def route(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (queue name, message) pairs one stream record produces."""
    images = record.get("dynamodb", {})
    raw_type = (images.get("NewImage") or images.get("OldImage") or {}).get("type", {})
    item_type = raw_type.get("S")
    jobs: list[tuple[str, dict[str, Any]]] = []
    if item_type == "user":
        new, old = images.get("NewImage") or {}, images.get("OldImage") or {}
        nonce = new.get("confirmation_nonce", {}).get("S")
        if nonce and nonce != old.get("confirmation_nonce", {}).get("S"):
            jobs.append(("mail", {"job": "confirmation_mail", "event_id": record["eventID"],
                                  "account_id": new["account_id"]["S"], "nonce": nonce}))
    jobs.extend(_effects(record, item_type))
    if item_type in COUNTED_TYPES:
        wanted = COUNTED_TYPES[item_type]
        message = ItemChanged(event_id=record["eventID"], event_name=record["eventName"],
                              item_type=item_type, new=_image(record, "NewImage", wanted),
                              old=_image(record, "OldImage", wanted))
        jobs.append(("counters", message.to_dict()))
    return jobs


def _plain(record: dict[str, Any], name: str) -> dict[str, Any]:
    raw = record.get("dynamodb", {}).get(name)
    return deserialize(raw) if raw else {}


def _effects(record: dict[str, Any], item_type: str | None) -> list[tuple[str, dict[str, Any]]]:
    """Status activity that has effects: hashtag index, notifications."""
    event, event_id = record["eventName"], record["eventID"]
    if item_type == "status":
        new, old = _plain(record, "NewImage"), _plain(record, "OldImage")
        if event == "INSERT":
            return [("effects", {"job": "status_created", "event_id": event_id,
                                 "status_id": new["id"], "account_id": new["account_id"],
                                 "visibility": new.get("visibility"),
                                 "tags": new.get("tags", []),
                                 "mention_ids": new.get("mention_ids", []),
                                 "reblog_of_id": new.get("reblog_of_id"),
                                 "reblog_of_account_id": new.get("reblog_of_account_id")})]
        if event == "REMOVE":
            return [("effects", {"job": "status_removed", "event_id": event_id,
                                 "status_id": old["id"], "tags": old.get("tags", [])})]
        if event == "MODIFY":
            added = [t for t in new.get("tags", []) if t not in old.get("tags", [])]
            removed = [t for t in old.get("tags", []) if t not in new.get("tags", [])]
            mentions = [m for m in new.get("mention_ids", []) if m not in old.get("mention_ids", [])]
            if added or removed or mentions:
                return [("effects", {"job": "status_changed", "event_id": event_id,
                                     "status_id": new["id"], "account_id": new["account_id"],
                                     "visibility": new.get("visibility"), "added_tags": added,
                                     "removed_tags": removed, "added_mention_ids": mentions})]
    elif item_type == "media_attachment" and event == "REMOVE" and _expired_by_ttl(record):
        old = _plain(record, "OldImage")
        return [("effects", {"job": "media_expired", "event_id": event_id, "media_id": old["id"],
                             "keys": [k for k in (old.get("file_key"), old.get("small_key")) if k]})]
    elif item_type == "media_attachment" and event == "INSERT" and \
            _plain(record, "NewImage").get("processing"):
        return [("media", {"job": "process_media", "event_id": event_id,
                           "media_id": _plain(record, "NewImage")["id"]})]
    elif item_type == "fav" and event == "INSERT":
        new = _plain(record, "NewImage")
        return [("effects", {"job": "favourited", "event_id": event_id,
                             "account_id": new["account_id"], "status_id": new["status_id"],
                             "status_account_id": new["status_account_id"]})]
    elif item_type == "poll" and event == "MODIFY":
        new, old = _plain(record, "NewImage"), _plain(record, "OldImage")
        if new.get("closed") and not old.get("closed"):
            return [("effects", {"job": "poll_closed", "event_id": event_id,
                                 "poll_id": new["id"], "status_id": new["status_id"],
                                 "account_id": new["account_id"]})]
    return []


def _expired_by_ttl(record: dict[str, Any]) -> bool:
    """DynamoDB's TTL deletes are marked as done by the service itself."""
    identity = record.get("userIdentity") or {}
    return identity.get("type") == "Service" and \
        identity.get("principalId") == "dynamodb.amazonaws.com"
