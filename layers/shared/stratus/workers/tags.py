"""What the effects worker keeps of hashtags besides their index entries: the daily uses a
tag's history counts (api/tags/tags.py renders it), and a featured tag's `last_status_at` when
the status that set it is deleted (api/tags/featured_tags.py shows it).

A public original status counts one use of each of its tags on the day it was posted, and the
first use by an account that day writes a `tag_use` item that counts one more distinct account;
the counters worker adds both to the tag's STATS item from the stream (workers/counters.py).
"""

from __future__ import annotations

from stratus.core import clock, ids
from stratus.core.paging import Budget
from stratus.repo import featured_tags as featured_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as repo

DISTRIBUTABLE = ("public", "unlisted")  # the statuses a featured tag counts
RECOUNT_BUDGET = 400  # statuses examined to find the latest use left after a deletion


def record_uses(tags: list[str], status_id: str, account_id: str) -> int:
    """A public original status used `tags`: note the account as a user of each that day
    (the counters worker counts the first note per account and day). Returns how many notes
    were new (none on redelivery)."""
    day = clock.day_of_id(status_id)
    expires = int(clock.now().timestamp()) + repo.USE_TTL
    return sum(int(repo.record_use(tag, day, account_id, expires)) for tag in tags)


# --- a deleted status may have been the latest use of its tags ----------------------------------
def featured_status_removed(account_id: str, status_id: str, status_tags: list[str]) -> int:
    """After a status was deleted: for each of its tags whose latest use by the account was
    this status, find the latest one left (FeaturedTag#decrement) among the account's newest
    statuses (at most RECOUNT_BUDGET examined; none found: no date). The write is conditional
    on the date still being the deleted status's, so a newer use is never overwritten and a
    redelivery changes nothing. Returns how many dates moved."""
    if not status_tags:
        return 0
    counters = featured_repo.account_tags(account_id, status_tags)
    # The status's id carries its time; its `created_at` was taken a moment later.
    posted = clock.iso(clock.from_epoch(ids.timestamp_ms(status_id) / 1000 + 2))
    stale = [t for t, c in counters.items()
             if c.get("last_status_at") and c["last_status_at"] <= posted]
    if not stale:
        return 0
    latest = _latest_uses(account_id, set(stale), exclude=status_id)
    moved = 0
    for tag in stale:
        moved += int(featured_repo.replace_last_status_at(account_id, tag,
                                                          counters[tag]["last_status_at"],
                                                          latest.get(tag)))
    return moved


def _latest_uses(account_id: str, wanted: set[str], exclude: str) -> dict[str, str]:
    """{tag: created_at of the newest public or unlisted status of the account using it}."""
    found: dict[str, str] = {}
    budget = Budget(entries=RECOUNT_BUDGET)
    batch: list[str] = []

    def read(batch_ids: list[str]) -> None:
        for item in statuses_repo.get_many(batch_ids).values():
            if item.get("visibility") not in DISTRIBUTABLE:
                continue
            for tag in wanted & set(item.get("tags", [])):
                if tag not in found or item["created_at"] > found[tag]:
                    found[tag] = item["created_at"]

    for entry in statuses_repo.account_statuses_between(account_id, None, None, True,
                                                        budget=budget, step=100,
                                                        exclude_reblogs=True):
        if entry["id"] == exclude or entry.get("visibility") not in DISTRIBUTABLE:
            continue
        batch.append(entry["id"])
        if len(batch) == 100:
            read(batch)
            batch = []
            if wanted <= set(found):
                return found
    if batch:
        read(batch)
    return found
