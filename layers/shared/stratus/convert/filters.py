"""The Filter, FilterKeyword, FilterStatus and V1::Filter entities."""

from __future__ import annotations

from typing import Any

from stratus.model.filters import Stored


def keyword_entity(item: dict[str, Any]) -> dict[str, Any]:
    return {"id": item["id"], "keyword": item["keyword"],
            "whole_word": bool(item.get("whole_word", True))}


def status_entity(item: dict[str, Any]) -> dict[str, Any]:
    return {"id": item["id"], "status_id": item["status_id"]}


def filter_entity(stored: Stored, *, rules: bool = True) -> dict[str, Any]:
    """REST::FilterSerializer: keywords and statuses only where the rules are asked for (the
    filters API), not inside a FilterResult."""
    item = stored.item
    entity: dict[str, Any] = {"id": item["id"], "title": item["title"],
                              "context": list(item["context"]),
                              "expires_at": item.get("expires_at"),
                              "filter_action": item.get("filter_action", "warn")}
    if rules:
        entity["keywords"] = [keyword_entity(k) for k in stored.keywords]
        entity["statuses"] = [status_entity(s) for s in stored.statuses]
    return entity


def v1_entity(stored: Stored, keyword: dict[str, Any]) -> dict[str, Any]:
    """REST::V1::FilterSerializer: one keyword of a filter, as the filter it used to be."""
    item = stored.item
    return {"id": keyword["id"], "phrase": keyword["keyword"], "context": list(item["context"]),
            "whole_word": bool(keyword.get("whole_word", True)),
            "expires_at": item.get("expires_at"),
            "irreversible": item.get("filter_action") == "hide"}
