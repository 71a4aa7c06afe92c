"""Recount the counters a request keeps (model/counting.py) from the items themselves — the repair
path for a count that went wrong (a bug, a hand edit, a restore), as Mastodon's
`tootctl cache recount`. `stratusctl statuses recount` / `accounts recount` run it.

A count is the number of items it stands for, read through their indexes: a status's likes,
boosts and public or unlisted direct replies; an account's statuses (not direct ones),
followers, follows and pending follow requests. An item the counters have not come to yet (its
counting was contended and the stream's worker is a second behind) must not be counted twice:
items of the last RECENT_MS are read whole and counted only once `tallied` or `counted`; older
ones are settled. The new counts are written only while the stored ones are still those read
(repo/counters.set_counts), so a like counted meanwhile is not lost: the recount reads again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stratus.core import clock, ids
from stratus.core.paging import Budget
from stratus.model.counting import ACCOUNT, DISTRIBUTABLE, STATUS
from stratus.repo import accounts as accounts_repo
from stratus.repo import counters as counters_repo
from stratus.repo import interactions as interactions_repo
from stratus.repo import relationships as relationships_repo
from stratus.repo import statuses as statuses_repo

RECENT_MS = 10 * 60 * 1000
ATTEMPTS = 5


def _counted(record: dict[str, Any] | None) -> bool:
    return record is not None and bool(record.get("tallied") or record.get("counted"))


def _settled(entries: Iterable[dict[str, Any]], whole: Any) -> int:
    """How many of these index entries are counted: the older ones all, the recent ones when
    their item (`whole(entry)`) says it was."""
    cutoff = int(clock.now().timestamp() * 1000) - RECENT_MS
    return sum(1 for e in entries
               if ids.timestamp_ms(e["id"]) < cutoff or _counted(whole(e)))


def status_counts(status_id: str) -> dict[str, int]:
    def edges(kind: str) -> int:
        return _settled(interactions_repo.by_status(kind, status_id, None, None, False),
                        lambda e: interactions_repo.edge(kind, e["account_id"], status_id))

    status = statuses_repo.get(status_id)
    thread = [s["id"] for s in statuses_repo.thread_entries(
        (status.get("thread_id") or status_id) if status else status_id) if s["id"] != status_id]
    direct = [r for r in statuses_repo.get_many(thread).values()
              if r.get("in_reply_to_id") == status_id and r.get("visibility") in DISTRIBUTABLE]
    return {"favourites_count": edges(interactions_repo.FAVOURITE),
            "reblogs_count": edges(interactions_repo.BOOST),
            "replies_count": _settled(direct, lambda r: r)}


def account_counts(account_id: str) -> dict[str, int]:
    statuses = [s for s in statuses_repo.account_status_entries(
        account_id, *_everything(), False, budget=Budget(), step=100)
        if s.get("visibility") != "direct"]
    return {
        "statuses_count": _settled(statuses, lambda s: statuses_repo.get(s["id"])),
        "followers_count": _settled(
            relationships_repo.followers(account_id, *_everything(), False),
            lambda e: relationships_repo.get_follow(e["account_id"], account_id)),
        "following_count": _settled(
            relationships_repo.followings(account_id, *_everything(), False),
            lambda e: relationships_repo.get_follow(account_id, e["target_id"])),
        "follow_requests_count": _settled(
            relationships_repo.follow_requests(account_id, *_everything(), False),
            lambda e: relationships_repo.get_follow_request(account_id, e["account_id"])),
    }


def _everything() -> tuple[str, str]:
    return counters_repo.whole_range()


def recount(kind: str, ident: str) -> dict[str, tuple[int, int]] | None:
    """Recount a status (`STATUS`) or an account (`ACCOUNT`): {counter: (was, now)} for the
    counters that changed; None when it has no counters (unknown)."""
    count = status_counts if kind == STATUS else account_counts
    for _ in range(ATTEMPTS):
        before = counters_repo.stored_counts(kind, ident)
        if before is None:
            return None
        now = count(ident)
        if counters_repo.set_counts(kind, ident, before, now):
            return {name: (int(before.get(name, 0)), value) for name, value in now.items()
                    if int(before.get(name, 0)) != value}
    raise RuntimeError(f"{kind} {ident}: its counts kept changing while being recounted")


def recount_status(status_id: str) -> dict[str, tuple[int, int]] | None:
    return recount(STATUS, status_id)


def recount_account(account_id: str) -> dict[str, tuple[int, int]] | None:
    return recount(ACCOUNT, account_id)


def local_accounts() -> Iterator[str]:
    """Every local account's id (the staff index), for a recount of all."""
    lo, hi = _everything()
    for entry in accounts_repo.admin_page("local", None, lo=lo, hi=hi, descending=False):
        yield entry["account_id"]


def statuses_of(account_id: str) -> Iterator[str]:
    """Every status id of an account (its index), for a recount of all."""
    for entry in statuses_repo.account_status_entries(account_id, *_everything(), False,
                                                      budget=Budget(), step=100):
        yield entry["id"]
