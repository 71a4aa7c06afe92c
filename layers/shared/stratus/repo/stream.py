"""The Main table's stream as the outbox reads it: a record's item images as plain values, and
the facts of an item that only its key holds."""

from __future__ import annotations

from typing import Any

from stratus.repo import keys
from stratus.repo.base import deserialize


def images(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(new image, old image) of a stream record, each {} when the event has none."""
    found = record.get("dynamodb", {})
    return (deserialize(found["NewImage"]) if found.get("NewImage") else {},
            deserialize(found["OldImage"]) if found.get("OldImage") else {})


def owner_id(image: dict[str, Any]) -> str:
    """The id an item's partition belongs to (an account's stats item carries no other)."""
    return keys.id_in(image["PK"])
