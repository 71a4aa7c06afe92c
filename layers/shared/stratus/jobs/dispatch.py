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
    if item_type in COUNTED_TYPES:
        wanted = COUNTED_TYPES[item_type]
        message = ItemChanged(event_id=record["eventID"], event_name=record["eventName"],
                              item_type=item_type, new=_image(record, "NewImage", wanted),
                              old=_image(record, "OldImage", wanted))
        jobs.append(("counters", message.to_dict()))
    return jobs
