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


def _images(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The item after and before the change (empty when there is none)."""
    images = record.get("dynamodb", {})
    return (deserialize(images["NewImage"]) if images.get("NewImage") else {},
            deserialize(images["OldImage"]) if images.get("OldImage") else {})


def route(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (queue name, message) pairs one stream record produces."""
    new, old = _images(record)
    item_type = (new or old).get("type")
    jobs: list[tuple[str, dict[str, Any]]] = []
    if item_type == "user" and new.get("confirmation_nonce") and \
            new["confirmation_nonce"] != old.get("confirmation_nonce"):
        jobs.append(("mail", {"job": "confirmation_mail", "event_id": record["eventID"],
                              "account_id": new["account_id"], "nonce": new["confirmation_nonce"]}))
    jobs.extend(_effects(record, item_type, new, old))
    if item_type in COUNTED_TYPES:
        wanted = (*COUNTED_TYPES[item_type], "type")
        message = ItemChanged(event_id=record["eventID"], event_name=record["eventName"],
                              item_type=item_type,
                              new={k: new[k] for k in wanted if k in new},
                              old={k: old[k] for k in wanted if k in old})
        jobs.append(("counters", message.to_dict()))
    return jobs


def _effects(record: dict[str, Any], item_type: str | None, new: dict[str, Any],
             old: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Status activity that has effects: hashtag index, notifications."""
    event, event_id = record["eventName"], record["eventID"]
    if item_type == "status":
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
        return [("effects", {"job": "media_expired", "event_id": event_id, "media_id": old["id"],
                             "keys": [k for k in (old.get("file_key"), old.get("small_key")) if k]})]
    elif item_type == "media_attachment" and event == "INSERT" and \
            new.get("processing"):
        return [("media", {"job": "process_media", "event_id": event_id,
                           "media_id": new["id"]})]
    elif item_type == "fav" and event == "INSERT":
        return [("effects", {"job": "favourited", "event_id": event_id,
                             "account_id": new["account_id"], "status_id": new["status_id"],
                             "status_account_id": new["status_account_id"]})]
    elif item_type == "poll" and event == "MODIFY":
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
