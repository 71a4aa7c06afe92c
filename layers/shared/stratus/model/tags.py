"""A tag's (or a link's) use counters as stored: one attribute of its STATS item per day and
measure (`uses_<yyyymmdd>`, `accounts_<yyyymmdd>`)."""

from __future__ import annotations

USES, ACCOUNTS = "uses", "accounts"


def history_attribute(measure: str, day: str) -> str:
    """The attribute of a tag's STATS item counting `measure` (uses, accounts) on `day`."""
    return f"{measure}_{day}"
