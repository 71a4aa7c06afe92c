"""Fan-out on write: a new status goes into the home feeds of its author and followers, by
Mastodon's rules (`filtered_from_home`, FeedManager#filter_from_home?), in batches across
worker invocations; deletions, unfollows, blocks and mutes take entries out; a new follow merges
the followed account's recent statuses in; a returning user's feed is rebuilt.

Followers are read a page at a time (`FanOut` jobs continue from a follow-id cursor) and
delivered in `Deliver` batches: a 10,000-follower post is forty short invocations, never one
long one, and a batch that runs twice writes the same entries (idempotent puts), so a crash
halfway resumes without duplicates. Users who have not read their home for a week get nothing
until they return (Mastodon skips inactive users); their feed is then regenerated.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .. import clock
from ..jobs import messages as jobs
from ..repo import feeds, keys, queues
from ..repo import statuses as statuses_repo
from ..repo.feeds import Crutches
from . import effects

FEED_SIZE = 400  # entries kept per feed (Mastodon's FeedManager::MAX_ITEMS)
FOLLOWERS_PAGE = 1000  # followers read per FanOut job
BATCH = 250  # receivers per Deliver job
ACTIVE_DAYS = 7  # Mastodon's USER_ACTIVE_DAYS: feeds of users idle longer are not fed
MERGE_PER_ACCOUNT = 100  # Mastodon's merge_into_home: MAX_ITEMS / 4
REGENERATE_PER_ACCOUNT = 40
REGENERATE_ACCOUNTS = 50  # followed accounts per RegenerateHome job
TRIM_ONE_IN = 40  # a delivery trims the feed once in this many inserts, on average

# What fan-out reads of a status (the FanOut job carries it).
FIELDS = ("id", "account_id", "visibility", "reblog_of_id", "reblog_of_account_id",
          "in_reply_to_id", "in_reply_to_account_id", "mention_ids", "language", "created_at")


def fields_of(status: dict[str, Any]) -> dict[str, Any]:
    return {k: status[k] for k in FIELDS if status.get(k) is not None}


def now_epoch() -> int:
    return int(clock.now().timestamp())


def active_until(now: int) -> int:
    return now + ACTIVE_DAYS * 86400


# --- the rules ----------------------------------------------------------------------------------
def accounts_involved(status: dict[str, Any], original: dict[str, Any] | None) -> set[str]:
    """Accounts a receiver's blocks and mutes are checked against: the author, the mentioned,
    and for a boost the original's author and mentioned too."""
    involved = {status["account_id"], *status.get("mention_ids", [])}
    if original:
        involved |= {original["account_id"], *original.get("mention_ids", [])}
    return involved


def filtered_from_home(status: dict[str, Any], original: dict[str, Any] | None, receiver: str,
                       crutches: Crutches) -> bool:
    """Mastodon's FeedManager#filter_from_home?: True when `status` stays out of `receiver`'s
    home (`original`: what a boost boosts)."""
    author = status["account_id"]
    if receiver == author:
        return False
    # (An expired mute is not read at all: its `ttl` has passed.)
    if any(crutches.blocking(receiver, a) or crutches.mute(receiver, a) is not None
           for a in accounts_involved(status, original)):
        return True
    follow = crutches.following(receiver, author) or {}
    languages = follow.get("languages")
    language = (original or status).get("language")
    if languages and language and language not in languages:
        return True
    reply_to = status.get("in_reply_to_account_id")
    if status.get("in_reply_to_id"):
        # A reply reaches home only if it answers the receiver, the author themselves, or an
        # account the receiver follows too.
        return not (reply_to == receiver or reply_to == author or
                    crutches.following(receiver, reply_to) is not None)
    if original:
        return (follow.get("show_reblogs") is False
                or crutches.blocking(original["account_id"], receiver))
    return False


# --- delivering a status ------------------------------------------------------------------------
def _enqueue(*messages: jobs.Job) -> None:
    queues.send(queues.url("fanout"), [m.to_dict() for m in messages])


def fan_out(job: jobs.FanOut) -> int:
    """One page of followers: Deliver jobs for it, and a FanOut for the next page."""
    author = job.status["account_id"]
    receivers, cursor = feeds.followers_page(author, job.after, FOLLOWERS_PAGE)
    if job.after is None:
        receivers = [author, *receivers]
    batches = [jobs.Deliver(event_id=job.event_id, status=job.status, removal=job.removal,
                            receivers=receivers[i:i + BATCH])
               for i in range(0, len(receivers), BATCH)]
    follow_up = [jobs.FanOut(event_id=job.event_id, status=job.status, removal=job.removal,
                             after=cursor)] if cursor else []
    _enqueue(*batches, *follow_up)
    return len(receivers)


def _crutches(receivers: list[str], statuses: Iterable[tuple[dict[str, Any], dict | None]]
              ) -> Crutches:
    accounts: set[str] = set()
    follows_of: set[str] = set()
    blocked_by: set[str] = set()
    for status, original in statuses:
        accounts |= accounts_involved(status, original)
        follows_of.add(status["account_id"])
        if status.get("in_reply_to_account_id"):
            follows_of.add(status["in_reply_to_account_id"])
        if original:
            blocked_by.add(original["account_id"])
    return feeds.crutches(receivers, accounts, follows_of=follows_of, blocked_by=blocked_by)


def _insert(feed_owner_pairs: list[tuple[str, dict[str, Any]]], now: int) -> list[str]:
    """Write (receiver, status) pairs into home feeds, boosts of something a feed already has
    left out; returns the receivers that got an entry."""
    boosts = [(keys.home_feed(r), s["reblog_of_id"]) for r, s in feed_owner_pairs
              if s.get("reblog_of_id")]
    seen = (feeds.present(boosts, markers=False) | feeds.present(boosts, markers=True)
            if boosts else set())
    entries, markers, delivered = [], [], []
    for receiver, status in feed_owner_pairs:
        feed = keys.home_feed(receiver)
        original = status.get("reblog_of_id")
        if original and (feed, original) in seen:
            continue
        entries.append((feed, status))
        if original:
            markers.append((feed, original))
            seen.add((feed, original))
        delivered.append(receiver)
    feeds.add(entries, markers, now)
    for receiver in set(delivered):
        if random.randrange(TRIM_ONE_IN) == 0:
            feeds.trim(keys.home_feed(receiver), FEED_SIZE)
    return delivered


def deliver(job: jobs.Deliver) -> int:
    status = job.status
    if job.removal:
        homes = [keys.home_feed(r) for r in job.receivers]
        original = status.get("reblog_of_id")
        feeds.remove([(feed, status["id"]) for feed in homes],
                     markers=[(feed, original) for feed in homes] if original else [])
        return len(job.receivers)
    now = now_epoch()
    author = status["account_id"]
    metas = feeds.metas([keys.home_feed(r) for r in job.receivers])
    active = [r for r in job.receivers if r == author or
              int(metas.get(keys.home_feed(r), {}).get("active_until", 0)) > now]
    original = statuses_repo.get(status["reblog_of_id"]) if status.get("reblog_of_id") else None
    if status.get("reblog_of_id") and original is None:
        return 0  # boosted something already gone
    crutches = _crutches(active, [(status, original)])
    receivers = [r for r in active if not filtered_from_home(status, original, r, crutches)]
    delivered = _insert([(r, status) for r in receivers], now)
    # "Notify me when they post": new posts only, not boosts or replies to others.
    if not original and (not status.get("in_reply_to_id") or
                         status.get("in_reply_to_account_id") == author):
        for receiver in delivered:
            follow = crutches.following(receiver, author)
            if follow and follow.get("notify"):
                effects.notify_status(receiver, author, status["id"])
    return len(delivered)


# --- follows, unfollows, blocks, mutes ------------------------------------------------------------
def _recent(account_id: str, limit: int) -> list[dict[str, Any]]:
    """An account's newest statuses that may go into others' feeds (not direct)."""
    entries = statuses_repo.recent_status_entries(account_id, limit)
    found = statuses_repo.get_many([e["id"] for e in entries
                                    if e.get("visibility") != "direct"])
    return [found[e["id"]] for e in entries if e["id"] in found]


def _merge(receiver: str, statuses: list[dict[str, Any]], now: int) -> int:
    originals = statuses_repo.get_many([s["reblog_of_id"] for s in statuses
                                        if s.get("reblog_of_id")])
    pairs = [(s, originals.get(s["reblog_of_id"]) if s.get("reblog_of_id") else None)
             for s in statuses]
    pairs = [(s, o) for s, o in pairs if not (s.get("reblog_of_id") and o is None)]
    crutches = _crutches([receiver], pairs)
    kept = [(receiver, s) for s, o in pairs
            if not filtered_from_home(s, o, receiver, crutches)]
    return len(_insert(kept, now))


def merge_into_home(job: jobs.MergeIntoHome) -> int:
    now = now_epoch()
    meta = feeds.meta(keys.home_feed(job.account_id)) or {}
    if int(meta.get("active_until", 0)) <= now:
        return 0  # an idle feed is rebuilt from scratch when its owner returns
    return _merge(job.account_id, _recent(job.target_id, MERGE_PER_ACCOUNT), now)


def clear_from_home(job: jobs.ClearFromHome) -> int:
    """Take the target out of the owner's home. An unfollow (`unmerge`) takes what the target
    posted or boosted (Mastodon's unmerge_from_home: others' boosts of it stay, the owner still
    follows them); a block or mute also takes boosts of the target's statuses and statuses
    mentioning the target, or boosting one that does (clear_from_home)."""
    feed = keys.home_feed(job.account_id)
    present = feeds.entries_by(feed, None, limit=FEED_SIZE * 2)
    target = job.target_id
    if job.unmerge:
        doomed = [e for e in present if e.get("author_id") == target]
    else:
        others = [e for e in present if e.get("author_id") != target]
        loaded = statuses_repo.get_many([*(e["status_id"] for e in others),
                                         *(e["reblog_of_id"] for e in others
                                           if e.get("reblog_of_id"))])

        def involves(status_id: str | None) -> bool:
            status = loaded.get(status_id) if status_id else None
            return status is not None and (status["account_id"] == target
                                           or target in status.get("mention_ids", []))

        doomed = [e for e in present if e.get("author_id") == target
                  or involves(e["status_id"]) or involves(e.get("reblog_of_id"))]
    feeds.remove([(feed, e["status_id"]) for e in doomed],
                 markers=[(feed, e["reblog_of_id"]) for e in doomed if e.get("reblog_of_id")])
    return len(doomed)


# --- a returning user ------------------------------------------------------------------------------
def regenerate_home(job: jobs.RegenerateHome) -> int:
    now = now_epoch()
    feed = keys.home_feed(job.account_id)
    merged = 0
    if not job.started:
        merged += len(_insert([(job.account_id, s) for s in
                               _recent(job.account_id, FEED_SIZE // 2)], now))
    followed, cursor = feeds.followings_page(job.account_id, job.after, REGENERATE_ACCOUNTS)
    for account_id in followed:
        merged += _merge(job.account_id, _recent(account_id, REGENERATE_PER_ACCOUNT), now)
    if cursor:
        _enqueue(jobs.RegenerateHome(account_id=job.account_id, after=cursor, started=True))
    else:
        feeds.trim(feed, FEED_SIZE)
        feeds.set_meta(feed, state="ready")
    return merged
