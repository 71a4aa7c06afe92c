"""Account activity: an account that used the API (any request of a route that needs a user)
is active for a week, as Mastodon's `current_sign_in_at` (User::ACTIVE_DURATION): its home feed
is kept fed by fan-out and it gets `status` notifications; and instance statistics, activity
windows by schedule (the user and post counters are kept from the stream by workers/counters.py).

NodeInfo `usage` and the instance `stats`/`usage` blocks read one item; nothing here scans.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from stratus.core import clock, memo
from stratus.repo import feeds, queues
from stratus.repo import instance as repo

ACTIVE_MONTH_DAYS = 28  # Mastodon: 4 weeks
ACTIVE_HALFYEAR_DAYS = 168  # Mastodon: 24 weeks
ACTIVITY_TTL_DAYS = ACTIVE_HALFYEAR_DAYS + 7
LOGIN_WEEKS = 12

_recent = memo.Done()


def record_sign_in(account_id: str, at: datetime | None = None) -> None:
    """Note that an account used the API today (once per account per day and process, one
    conditional put, no read). The day's first one inserts the day's activity item, and the
    fan-out worker, told by the stream (AccountActive), keeps the account's home fed for a week
    (`keep_home_fed`): one mark per account a day, off the request path."""
    moment = at or clock.now()
    day = clock.day_key(moment)
    if (account_id, day) in _recent:
        return
    ttl = int((moment + timedelta(days=ACTIVITY_TTL_DAYS)).timestamp())
    repo.record_active(day, account_id, ttl)
    _recent.add((account_id, day))


def keep_home_fed(account_id: str, now: int) -> bool:
    """Mark the account's home feed active from `now` (the fan-out worker on the day's first
    request; a home read that finds the feed idle, before that job ran). If it was not active
    (idle for longer than a week, or never fed), it is marked `regenerating` and a
    RegenerateHome job rebuilds it: the home timeline answers 206 meanwhile, as Mastodon's does
    after regenerate_feed!. True when a rebuild was started."""
    if not feeds.mark_active(feeds.home(account_id), now):
        return False
    from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

    queues.send("fanout", [jobs.RegenerateHome(account_id=account_id).to_dict()])
    return True


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
