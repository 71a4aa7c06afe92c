"""Instance statistics: activity windows by schedule (the user and post counters are kept from
the stream by workers/counters.py).

NodeInfo `usage` and the instance `stats`/`usage` blocks read one item; nothing here scans.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from stratus.core import clock, memo
from stratus.repo import instance as repo

ACTIVE_MONTH_DAYS = 28  # Mastodon: 4 weeks
ACTIVE_HALFYEAR_DAYS = 168  # Mastodon: 24 weeks
ACTIVITY_TTL_DAYS = ACTIVE_HALFYEAR_DAYS + 7
LOGIN_WEEKS = 12

_recent = memo.Done()


def record_sign_in(account_id: str, at: datetime | None = None) -> None:
    """Note that an account used the API today (once per account per day and process)."""
    moment = at or clock.now()
    day = clock.day_key(moment)
    if (account_id, day) in _recent:
        return
    ttl = int((moment + timedelta(days=ACTIVITY_TTL_DAYS)).timestamp())
    repo.record_active(day, account_id, ttl)
    _recent.add((account_id, day))


def refresh_activity(at: datetime | None = None) -> dict[str, int]:
    """Recompute active-user windows and weekly logins from the per-day activity items."""
    moment = at or clock.now()
    today = moment.date()
    days = [today - timedelta(days=n) for n in range(ACTIVE_HALFYEAR_DAYS)]
    per_day = {day: repo.active_accounts(clock.day_key(day)) for day in days}
    month: set[str] = set().union(*(per_day[d] for d in days[:ACTIVE_MONTH_DAYS]))
    halfyear: set[str] = set().union(*per_day.values())
    this_monday = clock.monday(today)
    for n in range(LOGIN_WEEKS):
        monday = this_monday - timedelta(weeks=n)
        week_days = [monday + timedelta(days=i) for i in range(7)]
        logins = set().union(*(per_day.get(d, set()) for d in week_days))
        repo.set_week_logins(clock.day_key(monday), len(logins))
    repo.set_activity_stats(len(month), len(halfyear), clock.iso(moment))
    return {"active_month": len(month), "active_halfyear": len(halfyear)}
