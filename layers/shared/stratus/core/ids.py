"""Snowflake ids with Mastodon's layout: milliseconds since the Unix epoch << 16 | 16 low bits.

The low bits are a per-process random start plus a sequence, so ids minted in the same millisecond
by one process never collide and different processes very rarely do. Ids are decimal strings at the
API edge and zero-padded to 20 digits inside sort keys (`stratus.repo.keys.pad`).

`is_id` is the one test of an id that came from a request (path, `id[]`, cursors, `media_ids`,
...): ASCII digits only, and small enough for Mastodon's bigint (a signed 64-bit integer).
`str.isdigit()` is not enough: it accepts `²` or `١٢٣`, which `int()` then refuses.
"""

from __future__ import annotations

import itertools
import re
import secrets
import threading
import time

_lock = threading.Lock()
_DIGITS = re.compile(r"[0-9]{1,19}")
MAX_ID = (1 << 63) - 1  # Mastodon's ids are PostgreSQL bigints
_sequence = itertools.count(secrets.randbelow(1 << 16))


def new_id(at_ms: int | None = None) -> str:
    ms = int(time.time() * 1000) if at_ms is None else at_ms
    with _lock:
        low = next(_sequence) & 0xFFFF
    return str((ms << 16) | low)


def id_at(at_ms: int, *, upper: bool = False) -> str:
    """The smallest (or largest, with `upper`) id that can be minted at `at_ms`."""
    return str((at_ms << 16) | (0xFFFF if upper else 0))


def timestamp_ms(snowflake: str | int) -> int:
    return int(snowflake) >> 16


def is_id(value: object) -> bool:
    """An id as a request may carry it: a string of ASCII digits that fits in a signed 64-bit
    integer."""
    return (isinstance(value, str) and _DIGITS.fullmatch(value) is not None
            and int(value) <= MAX_ID)
