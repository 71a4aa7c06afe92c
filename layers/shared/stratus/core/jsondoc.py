"""JSON from other servers, parsed with a bound on nesting: a deeply nested document is refused
as invalid (ValueError) instead of raising RecursionError — in the parser, or later in any code
that walks it — at the inbox (a 400) or in a worker (a job dropped, not retried).

ActivityStreams documents are shallow (an activity, its object, a tag or attachment list, an
icon: depth 5 or so); 32 is Rack's parameter depth limit, which our API applies to its own
bodies too (stratus/http/forms.py).
"""

from __future__ import annotations

import json
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


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, but ValueError for anything that is not JSON (bytes that are not UTF-8
    included) and TooDeep past `max_depth` levels."""
    try:
        parsed = json.loads(data)
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
