"""A tag's (or a link's) use counters as stored: one attribute of its STATS item per day and
measure (`uses_<yyyymmdd>`, `accounts_<yyyymmdd>`); a tag's id."""

from __future__ import annotations

import hashlib

USES, ACCOUNTS = "uses", "accounts"


def tag_id(tag: str) -> str:
    """A tag's id: derived from its normalised name, so every tag — one nobody has used yet
    too — has the same id everywhere without a stored counter (a positive 63-bit integer)."""
    return str(int.from_bytes(hashlib.sha256(tag.encode()).digest()[:8], "big") >> 1 or 1)


def history_attribute(measure: str, day: str) -> str:
    """The attribute of a tag's STATS item counting `measure` (uses, accounts) on `day`."""
    return f"{measure}_{day}"
