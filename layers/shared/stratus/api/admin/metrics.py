"""Admin::Metrics: measures, dimensions (the staff dashboard's numbers).

Everything is counted on write: the counters worker adds each sign-up, first API use of a day,
like, boost, reply, local status (by language and by app) and report to its UTC day's item
(workers/counters.py, `_announce_deltas`), so a request reads one item per day of its range —
one BatchGetItem for up to 100 days, another for the previous period. `active_users` is
distinct per day by construction (one `activity` item per account and day); its total over a
range is distinct over the whole range, as Mastodon's HyperLogLog sum, which is the union of the
range's day partitions (one keys-only Query per day). Design: docs/data-model.md, "Admin metrics".
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from stratus.core import clock
from stratus.core.errors import Unprocessable
from stratus.repo import metrics as repo

MEASURES = ("new_users", "active_users", "interactions", "opened_reports", "resolved_reports")
DIMENSIONS = ("languages", "sources", "servers")
MAX_DAYS = 366  # a range longer than a year is refused (422)


def _day(raw: Any, name: str) -> date:
    if raw is None or str(raw).strip() == "":
        raise Unprocessable(f"{name} is missing")
    text = str(raw).strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
        return clock.parse_iso(text).date()
    except ValueError:
        raise Unprocessable(f"{name} is invalid") from None


def _range(params: dict[str, Any], *, required: bool = True) -> tuple[date, date]:
    today = clock.now().date()
    if not required and not params.get("start_at") and not params.get("end_at"):
        return today - timedelta(days=29), today
    start, end = _day(params.get("start_at"), "start_at"), _day(params.get("end_at"), "end_at")
    if end < start:
        raise Unprocessable("end_at is before start_at")
    if (end - start).days + 1 > MAX_DAYS:
        raise Unprocessable(f"A range of at most {MAX_DAYS} days can be measured")
    return start, end


def _days(start: date, end: date) -> list[date]:
    return [start + timedelta(days=n) for n in range((end - start).days + 1)]


def _key(day: date) -> str:
    return day.strftime("%Y%m%d")


def _midnight(day: date) -> str:
    """A day as Mastodon renders it in measures: midnight UTC, ISO 8601 (`…T00:00:00Z`)."""
    return datetime(day.year, day.month, day.day).strftime("%Y-%m-%dT%H:%M:%SZ")


def _keys(params: dict[str, Any]) -> list[str]:
    raw = params.get("keys")
    wanted = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    return list(dict.fromkeys(str(k) for k in wanted))


def _distinct_active(days: list[date]) -> int:
    accounts: set[str] = set()
    for day in days:
        accounts |= repo.active_accounts(_key(day))
    return len(accounts)


def measures(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Admin::Measure entities for the known `keys[]` (others are left out, as Mastodon does):
    a value per day from start_at to end_at, the total, and the total of the period as long
    just before it (`previous_total`)."""
    wanted = [k for k in _keys(params) if k in MEASURES]
    start, end = _range(params)
    if not wanted:
        return []
    current = _days(start, end)
    length = end - start
    previous = _days(start - length, end - length) if length.days else [start - timedelta(1)]
    items = repo.days([_key(d) for d in current + previous])
    value = lambda day, name: int(items.get(_key(day), {}).get(name, 0))  # noqa: E731
    result = []
    for name in wanted:
        data = [{"date": _midnight(d), "value": str(value(d, name))} for d in current]
        if name == "active_users":
            total, previous_total = _distinct_active(current), _distinct_active(previous)
        else:
            total = sum(value(d, name) for d in current)
            previous_total = sum(value(d, name) for d in previous)
        result.append({"key": name, "unit": None, "total": str(total),
                       "previous_total": str(previous_total), "data": data})
    return result


def dimensions(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Admin::Dimension entities: statuses of local accounts per language and per app (most
    first, at most `limit`), and `servers` — empty until federation (no remote statuses)."""
    wanted = [k for k in _keys(params) if k in DIMENSIONS]
    if not wanted:
        return []
    start, end = _range(params, required=False)
    try:
        limit = int(params["limit"]) if params.get("limit") not in (None, "") else None
    except (TypeError, ValueError):
        limit = None
    items = repo.days([_key(d) for d in _days(start, end)]) \
        if any(k != "servers" for k in wanted) else {}
    result = []
    for name in wanted:
        prefix = {"languages": "language:", "sources": "source:"}.get(name)
        totals: dict[str, int] = {}
        if prefix:
            for item in items.values():
                for attribute, count in item.items():
                    if attribute.startswith(prefix):
                        key = attribute[len(prefix):]
                        totals[key] = totals.get(key, 0) + int(count)
        ranked = sorted(((k, v) for k, v in totals.items() if v > 0),
                        key=lambda pair: (-pair[1], pair[0]))
        if limit is not None and limit >= 0:
            ranked = ranked[:limit]
        result.append({"key": name, "data": [{"key": k, "human_key": k, "value": str(v)}
                                             for k, v in ranked]})
    return result


# --- retention ---------------------------------------------------------------------------
FREQUENCIES = ("day", "month")


def _period(day: date, frequency: str) -> date:
    return day.replace(day=1) if frequency == "month" else day


def _periods(start: date, end: date, frequency: str) -> list[date]:
    periods, current = [], _period(start, frequency)
    while current <= end:
        periods.append(current)
        current = (current + timedelta(days=32)).replace(day=1) if frequency == "month" \
            else current + timedelta(days=1)
    return periods


def retention(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Admin::Cohort[] (Admin::Metrics::Retention): for each cohort period (day or month)
    from start_at to end_at, the users who signed up in it; for it and each later period, how
    many of them were last active in that period or later (`value`) and the share of the cohort
    (`rate`). Mastodon reads users.current_sign_in_at; ours is the last UTC day an account used
    the API (kept on write). An unknown frequency is `day`, as Mastodon's."""
    start, end = _range(params)
    frequency = params.get("frequency") if params.get("frequency") in FREQUENCIES else "day"
    periods = _periods(start, end, frequency)
    cohorts = []
    for cohort in periods:
        last = (periods[periods.index(cohort) + 1] - timedelta(days=1)
                if periods.index(cohort) + 1 < len(periods) else
                ((cohort + timedelta(days=32)).replace(day=1) - timedelta(days=1)
                 if frequency == "month" else cohort))
        members = [a for day in _days(cohort, last) for a in repo.signups(_key(day))]
        seen = repo.last_active(members) if members else {}
        data = []
        for period in periods[periods.index(cohort):]:
            value = sum(1 for a in members if a in seen and seen[a] >= _key(period))
            data.append({"date": _midnight(period), "rate": value / max(len(members), 1),
                         "value": str(value)})
        cohorts.append({"period": _midnight(cohort), "frequency": frequency, "data": data})
    return cohorts
