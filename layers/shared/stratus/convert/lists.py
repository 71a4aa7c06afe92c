"""The List entity."""

from __future__ import annotations

from typing import Any


def user_list(item: dict[str, Any]) -> dict[str, Any]:
    return {"id": item["id"], "title": item["title"],
            "replies_policy": item.get("replies_policy", "list"),
            "exclusive": bool(item.get("exclusive", False))}
