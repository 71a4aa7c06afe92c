"""The admin metrics' day counters (`METRICS#<yyyymmdd>` / `DAY`, kept by the counters worker)
and the per-day activity partitions that distinct active users are counted from."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys


def days(day_keys: list[str]) -> dict[str, dict[str, Any]]:
    """The day records that exist among `day_keys` (yyyymmdd → record), in one BatchGetItem
    per hundred days."""
    found = base.batch_get([keys.metrics_day(d) for d in day_keys])
    return {str(item["day"]): base.record(item) for item in found if item.get("day")}


def active_accounts(day: str) -> set[str]:
    """The accounts that used the API on a day (keys only)."""
    return {keys.unpad(item["SK"]) for item in
            base.query(keys.active_day_pk(day), projection="SK")}


def signups(day: str) -> list[str]:
    """The accounts that signed up on a day (keys only)."""
    return [keys.unpad(item["SK"]) for item in base.query(keys.signups_pk(day), projection="SK")]


def last_active(account_ids: list[str]) -> dict[str, str]:
    """{account id: last UTC day (yyyymmdd) it used the API} for the accounts that have one."""
    found = base.batch_get([keys.account_seen(a) for a in dict.fromkeys(account_ids)])
    return {keys.id_in(item["PK"]): str(item["last_active"]) for item in found
            if item.get("last_active")}
