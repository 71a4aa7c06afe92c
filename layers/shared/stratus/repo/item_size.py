"""What DynamoDB can store, checked before a write is sent: an item's size against the 400 KB
limit, and values it refuses (NaN, infinities, numbers past 38 significant digits or outside
1e-130..1e126). A write that breaks these fails the same way every time it is retried, so it is
refused here (`Unstorable`, a `core.errors.Permanent`: a queued job is dropped, logged, never
retried into its dead-letter queue), and DynamoDB's own ValidationException for the same
reasons is turned into it (repo/base.py).

Sizes follow DynamoDB's rules ("DynamoDB item sizes and formats", as local/capacity.py
charges them): each attribute's name in UTF-8 bytes plus its value — a string its UTF-8
bytes, a number 1 byte per two significant digits plus 1, binary its bytes, a boolean or
null 1, a list or map 3 plus each element and 1 byte per element (a map's element with its
name), a set its elements.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from stratus.core.errors import Permanent

MAX_ITEM_BYTES = 400 * 1024


class Unstorable(Permanent):
    """A write DynamoDB would refuse whatever the number of attempts."""


class TooLarge(Unstorable):
    """An item over DynamoDB's 400 KB."""


def _number_size(value: int | float | Decimal) -> int:
    number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    mantissa = str(abs(number)).lower().split("e")[0].replace(".", "").strip("0")
    return math.ceil(len(mantissa) / 2) + 1


def value_size(value: Any) -> int:
    """The stored size of one attribute value (its name excluded)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, (int, float, Decimal)):
        return _number_size(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    if isinstance(value, dict):
        return 3 + sum(len(str(k).encode("utf-8", "surrogatepass")) + value_size(v) + 1
                       for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return 3 + sum(value_size(v) + 1 for v in value)
    if isinstance(value, (set, frozenset)):
        return sum(value_size(v) for v in value)
    return len(str(value).encode("utf-8", "surrogatepass"))


def size(item: dict[str, Any]) -> int:
    """The size DynamoDB counts for an item (its keys included; None attributes are not
    written, so not counted)."""
    return sum(len(name.encode("utf-8", "surrogatepass")) + value_size(value)
               for name, value in item.items() if value is not None)


def room(item: dict[str, Any], *, headroom: int = 0) -> int:
    """Bytes an item may still grow by, keeping `headroom` free; negative when it is over."""
    return MAX_ITEM_BYTES - headroom - size(item)


def check(item: dict[str, Any]) -> None:
    """TooLarge when the item is over DynamoDB's limit."""
    found = size(item)
    if found > MAX_ITEM_BYTES:
        raise TooLarge(f"item of {found} bytes, over DynamoDB's {MAX_ITEM_BYTES} "
                       f"(type {item.get('type')!r})")


def check_values(values: dict[str, Any]) -> None:
    """TooLarge when the values an update sets are alone over the limit (the item they land
    in is at least as large)."""
    found = sum(value_size(v) for v in values.values())
    if found > MAX_ITEM_BYTES:
        raise TooLarge(f"an update setting {found} bytes, over DynamoDB's {MAX_ITEM_BYTES}")


# What DynamoDB answers (ValidationException, or a transaction's cancellation reason
# ValidationError) when an item or a number cannot be stored.
REFUSALS = ("item size", "number overflow", "magnitude larger", "precision")


def _refused(code: str | None, message: str | None) -> bool:
    text = (message or "").lower()
    return code in ("ValidationException", "ValidationError") and \
        any(phrase in text for phrase in REFUSALS)


def raise_refused(exc: Exception) -> None:
    """Unstorable when a DynamoDB error (a ClientError, or a transaction's cancellation) says
    an item or a number cannot be stored; else nothing (the caller re-raises `exc`)."""
    response = getattr(exc, "response", None) or {}
    error = response.get("Error", {})
    reasons = [(r.get("Code"), r.get("Message")) for r in response.get("CancellationReasons", [])]
    for code, message in [(error.get("Code"), error.get("Message")), *reasons]:
        if _refused(code, message):
            raise Unstorable(message) from exc
