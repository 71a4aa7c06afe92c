"""JSON from other servers, parsed strictly, and the numbers read from it, bounded.

Parsing: a deeply nested document is refused as invalid (ValueError) instead of raising
RecursionError — in the parser, or later in any code that walks it — and so is one that is not
JSON as RFC 8259 writes it: `NaN`, `Infinity` and `-Infinity` (which Python's parser takes) and
numbers too large for a float (`1e999`, which it would read as infinity). At the inbox that is a
400, for a fetch a document refused, in a worker a job dropped, not retried. ActivityStreams
documents are shallow (an activity, its object, a tag or attachment list, an icon: depth 5 or
so); 32 is Rack's parameter depth limit, which our API applies to its own bodies too
(stratus/http/forms.py).

Reading: a number another server sends is used only through `bounded_int` / `bounded_float`,
which take a number of JSON (never a boolean or a string) within the bounds its reader gives —
what the field means and what DynamoDB can store (38 significant digits, magnitudes between
1e-130 and 1e126: a value outside them would make the write fail on every retry).
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32


class TooDeep(ValueError):
    """The document nests arrays and objects more deeply than allowed."""


def depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value` (a scalar: 0), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        current, level = stack.pop()
        if isinstance(current, dict):
            children = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children
                     if isinstance(child, (dict, list)))
    return deepest


def check(value: Any, max_depth: int = MAX_DEPTH) -> Any:
    """`value` itself, or TooDeep."""
    if depth(value) > max_depth:
        raise TooDeep(f"nested more than {max_depth} levels deep")
    return value


def _text_ok(value: Any) -> None:
    """ValueError for a string (key or value) that is not valid Unicode text: a lone
    surrogate from a `\\ud800` escape."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            current.encode("utf-8")
        elif isinstance(current, dict):
            stack.extend(current.keys())
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:40]}")
    return value


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, but ValueError for anything that is not JSON (bytes that are not UTF-8,
    `NaN`, `Infinity`, a number past a float's range included) and TooDeep past `max_depth`
    levels."""
    try:
        parsed = json.loads(data, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise TooDeep(f"nested more than {max_depth} levels deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None
    check(parsed, max_depth)
    try:
        _text_ok(parsed)
    except UnicodeEncodeError:
        raise ValueError("text is not valid UTF-8") from None
    return parsed


# --- numbers ------------------------------------------------------------------------------------
def bounded_int(value: Any, lo: int, hi: int) -> int | None:
    """`value` as an integer when it is a JSON number with no fraction (`3` or `3.0`) within
    [lo, hi]; else None (a boolean, a string, a fraction, a number out of range: the reader
    takes its default, as Mastodon ignores a value it cannot use)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        value = int(value)
    return value if lo <= value <= hi else None


def bounded_float(value: Any, lo: float, hi: float, *, digits: int = 6) -> float | None:
    """`value` as a float clamped to [lo, hi] and rounded to `digits` decimals when it is a
    finite JSON number (a focal point's coordinate: `[5, -1e300]` is `[1.0, -1.0]`, `1e-200`
    is 0.0); else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        value = float(max(min(value, hi), lo))  # a huge int clamps before it becomes a float
    if not math.isfinite(value):
        return None
    return round(min(max(value, lo), hi), digits) + 0.0  # + 0.0: -0.0 is 0.0
