"""Mastodon's (Rails') reading of parameter values, shared by the request parser and services."""

from __future__ import annotations

import math
import re
from typing import Any

from stratus.core.ids import is_id

_FALSE = {"0", "f", "false", "off", "no", "n"}


def truthy(value: Any) -> bool | None:
    """ActiveModel::Type::Boolean: these strings are false, other non-blank values true,
    blank is None (not given)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "":
            return None
        return text not in _FALSE
    return bool(value)


def flag(value: Any, default: bool = False) -> bool:
    """A boolean parameter with a default for when it is absent or blank."""
    result = truthy(value)
    return default if result is None else result


def to_i(value: Any) -> int:
    """Ruby's `to_i` on a parameter: a number as given (truncated), a string's leading integer,
    anything else 0 (`expires_in`, `duration` and the like)."""
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else 0
    if isinstance(value, int):  # bool too: true is 1
        return int(value)
    found = re.match(r"\s*([+-]?[0-9]+)", value) if isinstance(value, str) else None
    return int(found.group(1)) if found else 0


def indexed_values(raw: dict[Any, Any]) -> list[Any]:
    """The values of a Rails indexed hash (`fields_attributes[0][name]=...` arrives as
    `{"0": {...}, "1": {...}}`) in index order; keys that are not indexes (ASCII digits, read
    like ids) follow in the order they came."""
    numbered = sorted((int(k), position) for position, k in enumerate(raw) if is_id(k))
    keys = list(raw)
    return [raw[keys[p]] for _, p in numbered] + [v for k, v in raw.items() if not is_id(k)]
