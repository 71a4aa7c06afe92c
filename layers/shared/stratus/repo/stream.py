"""The Main table's stream as the outbox reads it: a record's item images as records (plain
values, no storage keys), and the facts of an item that only its key holds."""

from __future__ import annotations

from typing import Any

from stratus.repo import keys
from stratus.repo.base import deserialize, record


def images(stream_record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(new image, old image) of a stream record as records, each {} when the event has
    none."""
    found = stream_record.get("dynamodb", {})
    return (record(deserialize(found["NewImage"])) if found.get("NewImage") else {},
            record(deserialize(found["OldImage"])) if found.get("OldImage") else {})


def owner_id(stream_record: dict[str, Any]) -> str:
    """The id the changed item's partition belongs to (an account's stats item carries no
    other)."""
    return keys.id_in(deserialize(stream_record["dynamodb"]["Keys"])["PK"])
