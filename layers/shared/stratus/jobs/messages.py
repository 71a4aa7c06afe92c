"""Typed job messages carried by SQS. Every message names its job and carries the stream
event id it came from, which consumers use to make redelivery a no-op."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

COUNT = "count"


@dataclass(frozen=True)
class ItemChanged:
    """A Main-table item of a counted type was inserted, modified or removed."""

    event_id: str
    event_name: str  # INSERT | MODIFY | REMOVE
    item_type: str
    new: dict[str, Any] = field(default_factory=dict)
    old: dict[str, Any] = field(default_factory=dict)
    job: str = COUNT

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemChanged:
        return cls(**{k: data[k] for k in ("event_id", "event_name", "item_type", "new", "old",
                                          "job") if k in data})
