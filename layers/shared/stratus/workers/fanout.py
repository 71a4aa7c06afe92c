"""Fan-out on write: a new status goes into the home feeds of its author and followers, by
Mastodon's rules (`filtered_from_home`, FeedManager#filter_from_home?), in batches across
worker invocations; deletions, unfollows, blocks and mutes take entries out; a new follow merges
the followed account's recent statuses in; a returning user's feed is rebuilt.

Followers are read a page at a time and delivered in `Deliver` batches: a 10,000-follower post
is forty short invocations, never one long one, and a batch that runs twice writes the same
entries (idempotent puts), so a crash halfway resumes without duplicates. Pages run in
parallel: a `FanOut` job covers the followers whose follow ids are in a range (after, until] —
the first one, all of them up to the stream event's time (jobs/outbox.fan_out) — and a job
whose page is full hands the rest of its range to `SPLIT` jobs of equal parts of it, which do
the same. The parts of a range never overlap and always cover it, so each follower is in
exactly one page; a redelivered job reads the same page and hands on the same parts, whose
deliveries change nothing twice. A million followers are a thousand pages 14 levels deep (when
they followed over three years, most of them lately: `python -m bench scale`) instead of
a chain of a thousand jobs one after another; the fan-out queue's `MaximumConcurrency`
(template.yaml) caps how many run at once, so the API functions keep the account's concurrency
(docs/performance.md).

Users who have not used the API for a week (their home meta's `active_until`, pushed on their
first request of a day: `account_active`) get nothing: no entries, no `status` notifications,
until they return (Mastodon's followers_for_local_distribution); their feed is then regenerated.
Lists' timelines follow the same rules (workers/fanout_lists.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from stratus.auth import activity
from stratus.core import clock, ids
from stratus.jobs import messages as jobs
from stratus.repo import feeds, queues
from stratus.repo import lists as lists_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as tags_repo
from stratus.repo.feeds import Crutches
from stratus.workers import effects

FEED_SIZE = 400  # entries kept per feed (Mastodon's FeedManager::MAX_ITEMS)
FOLLOWERS_PAGE = 1000  # followers read per FanOut job
SPLIT = 4  # parts a full page hands the rest of its range to, run side by side
BATCH = 250  # receivers per Deliver job
MERGE_PER_ACCOUNT = 100  # Mastodon's merge_into_home: MAX_ITEMS / 4
REGENERATE_PER_ACCOUNT = 40
REGENERATE_ACCOUNTS = 50  # followed accounts per RegenerateHome job
TRIM_ONE_IN = 40  # a delivery trims the feed once in this many inserts, on average
LISTS_PAGE = 500

# What fan-out reads of a status (the FanOut job carries it).
FIELDS = ("id", "account_id", "visibility", "reblog_of_id", "reblog_of_account_id",
          "in_reply_to_id", "in_reply_to_account_id", "mention_ids", "language", "created_at")


def fields_of(status: dict[str, Any]) -> dict[str, Any]:
    return {k: status[k] for k in FIELDS if status.get(k) is not None}


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


def filtered_from_tags(status: dict[str, Any], receiver: str, crutches: Crutches) -> bool:
    """Mastodon's FeedManager#filter_from_tags?: a status reaches a hashtag's follower unless
    it is theirs (they have it already), involves someone they block or mute, or its author
    blocks them. No follow needed, and replies are not held back."""
    author = status["account_id"]
    return (receiver == author or crutches.blocking(author, receiver) or
            any(crutches.blocking(receiver, a) or crutches.mute(receiver, a) is not None
                for a in accounts_involved(status, None)))


# --- delivering a status ------------------------------------------------------------------------
def _enqueue(*messages: jobs.Job) -> None:
    queues.send("fanout", [m.to_dict() for m in messages])


def author_lists(author: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The lists an author is in ({"id", "owner_id", "replies_policy"}), and the owners of the
    exclusive ones among them (their home skips the author)."""
    memberships: list[dict[str, Any]] = []
    after = None
    while True:
        page, after = lists_repo.lists_containing(author, after, LISTS_PAGE)
        memberships += page
        if after is None:
            break
    found = lists_repo.get_many([(m["owner_id"], m["list_id"]) for m in memberships])
    targets = [{"id": item["id"], "owner_id": item["owner_id"],
                "replies_policy": item.get("replies_policy", "list")} for item in found]
    exclusive = sorted({item["owner_id"] for item in found if item.get("exclusive")})
    return targets, exclusive


def parts(after: str, until: str, count: int) -> list[tuple[str, str]]:
    """The range of follow ids (after, until] as at most `count` consecutive ranges of about
    equal width, each (after, until]: together they hold every id of it, each id once."""
    low, high = int(after), int(until)
    if high <= low:
        return []
    count = max(1, min(count, high - low))
    bounds = [low + (high - low) * i // count for i in range(count + 1)]
    return [(str(bounds[i]), str(bounds[i + 1])) for i in range(count)]


def fan_out(job: jobs.FanOut) -> int:
    """One page of followers: Deliver jobs for it and, when the page is full, FanOut jobs for
    the rest of its range, in `SPLIT` parts. The first page also hands the status to the lists
    its author is in and its hashtags' followers."""
    author = job.status["account_id"]
    exclusive = job.exclusive
    list_jobs: list[jobs.Job] = []
    receivers, cursor = feeds.followers_page(author, job.after, FOLLOWERS_PAGE, until=job.until)
    if job.after is None:
        # The author's own home feed too — a local author's (a remote account has none).
        receivers = [author, *receivers] if job.status.get("local", True) else receivers
        targets, exclusive = author_lists(author)
        list_jobs = [jobs.DeliverToLists(event_id=job.event_id, status=job.status,
                                         removal=job.removal, lists=targets[i:i + BATCH])
                     for i in range(0, len(targets), BATCH)]
        if job.status.get("visibility") == "public" and not job.status.get("reblog_of_id"):
            list_jobs += [jobs.FanOutToTag(event_id=job.event_id, status=job.status, tag=tag,
                                           removal=job.removal)
                          for tag in job.status.get("tags", [])]
    batches = [jobs.Deliver(event_id=job.event_id, status=job.status, removal=job.removal,
                            receivers=chunk, exclusive=[r for r in chunk if r in exclusive])
               for chunk in (receivers[i:i + BATCH] for i in range(0, len(receivers), BATCH))]
    follow_up = []
    if cursor:
        # A job of before parallel pages (no `until`) bounds its range now.
        until = job.until or ids.new_id()
        follow_up = [jobs.FanOut(event_id=job.event_id, status=job.status, removal=job.removal,
                                 after=low, until=high, exclusive=exclusive)
                     for low, high in parts(cursor, until, SPLIT)]
    _enqueue(*batches, *list_jobs, *follow_up)
    return len(receivers)


def fan_out_to_tag(job: jobs.FanOutToTag) -> int:
    """One page of a hashtag's followers (Mastodon's deliver_to_hashtag_followers!)."""
    receivers, cursor = tags_repo.tag_followers_page(job.tag, job.after, FOLLOWERS_PAGE)
    batches = [jobs.Deliver(event_id=job.event_id, status=job.status, removal=job.removal,
                            receivers=receivers[i:i + BATCH], via_tag=True)
               for i in range(0, len(receivers), BATCH)]
    follow_up = [jobs.FanOutToTag(event_id=job.event_id, status=job.status, tag=job.tag,
                                  removal=job.removal, after=cursor)] if cursor else []
    _enqueue(*batches, *follow_up)
    return len(receivers)


def _crutches(receivers: list[str], statuses: Iterable[tuple[dict[str, Any], dict | None]], *,
              authors_blocking: bool = False) -> Crutches:
    """One batched read of what the rules ask about; `authors_blocking`: whether the authors
    block the receivers too (hashtag followers need not follow them)."""
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
        if authors_blocking:
            blocked_by.add(status["account_id"])
    return feeds.crutches(receivers, accounts, follows_of=follows_of, blocked_by=blocked_by)


def _insert(feed_pairs: list[tuple[str, dict[str, Any]]], now: int) -> list[str]:
    """Write (feed, status) pairs, boosts of something a feed already has left out; returns
    the feeds that got an entry."""
    boosts = [(feed, s["reblog_of_id"]) for feed, s in feed_pairs if s.get("reblog_of_id")]
    seen = (feeds.present(boosts, markers=False) | feeds.present(boosts, markers=True)
            if boosts else set())
    entries, markers, delivered = [], [], []
    for feed, status in feed_pairs:
        original = status.get("reblog_of_id")
        if original and (feed, original) in seen:
            continue
        entries.append((feed, status))
        if original:
            markers.append((feed, original))
            seen.add((feed, original))
        delivered.append(feed)
    feeds.add(entries, markers, now)
    for feed in set(delivered):
        if random.randrange(TRIM_ONE_IN) == 0:
            feeds.trim(feed, FEED_SIZE)
    return delivered


def _stream(event: str, status_id: str, receivers: Iterable[str] = (),
            lists: Iterable[dict[str, Any]] = ()) -> None:
    """Streaming: the homes and lists this delivery changed get the same event on their
    owners' streams (the stream worker posts it to whoever of them is listening)."""
    receivers, lists = sorted(set(receivers)), list(lists)
    if receivers or lists:
        queues.send("stream", [jobs.StreamToFeeds(
            event=event, status_id=status_id, receivers=receivers, lists=lists).to_dict()])


def deliver(job: jobs.Deliver) -> int:
    status = job.status
    if job.removal:
        homes = [feeds.home(r) for r in job.receivers]
        original = status.get("reblog_of_id")
        feeds.remove([(feed, status["id"]) for feed in homes],
                     markers=[(feed, original) for feed in homes] if original else [])
        _stream("delete", status["id"], job.receivers)
        return len(job.receivers)
    now = clock.epoch()
    author = status["account_id"]
    metas = feeds.metas([feeds.home(r) for r in job.receivers])
    # Only owners active within the week: fed, and told of posts they asked to be told of.
    active = [r for r in job.receivers if r == author or
              (r not in job.exclusive and
               int(metas.get(feeds.home(r), {}).get("active_until", 0)) > now)]
    original = statuses_repo.get(status["reblog_of_id"]) if status.get("reblog_of_id") else None
    if status.get("reblog_of_id") and original is None:
        return 0  # boosted something already gone
    crutches = _crutches(active, [(status, original)], authors_blocking=job.via_tag)
    if job.via_tag:
        receivers = [r for r in active if not filtered_from_tags(status, r, crutches)]
        delivered = _insert([(feeds.home(r), status) for r in receivers], now)
        _stream("update", status["id"], [r for r in receivers if feeds.home(r) in delivered])
        return len(receivers)
    receivers = [r for r in active if not filtered_from_home(status, original, r, crutches)]
    delivered = _insert([(feeds.home(r), status) for r in receivers], now)
    _stream("update", status["id"], [r for r in receivers if feeds.home(r) in delivered])
    # "Notify me when they post": new posts only, not boosts or replies to others.
    if not original and (not status.get("in_reply_to_id") or
                         status.get("in_reply_to_account_id") == author):
        for receiver in receivers:
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


def _merge(receiver: str, statuses: list[dict[str, Any]], now: int, *,
           feed: str | None = None, listed: dict[str, Any] | None = None) -> int:
    """Filter `statuses` for `receiver`'s home (or, with `listed`, their list) and insert."""
    originals = statuses_repo.get_many([s["reblog_of_id"] for s in statuses
                                        if s.get("reblog_of_id")])
    pairs = [(s, originals.get(s["reblog_of_id"]) if s.get("reblog_of_id") else None)
             for s in statuses]
    pairs = [(s, o) for s, o in pairs if not (s.get("reblog_of_id") and o is None)]
    crutches = _crutches([receiver], pairs)
    members = _reply_targets_listed(listed, [s for s, _ in pairs]) if listed else set()
    target = feed or feeds.home(receiver)
    kept = [(target, s) for s, o in pairs
            if not filtered_from_home(s, o, receiver, crutches) and
            not (listed and filtered_from_list(s, listed, members))]
    return len(_insert(kept, now))


def merge_into_home(job: jobs.MergeIntoHome) -> int:
    now = clock.epoch()
    meta = feeds.meta(feeds.home(job.account_id)) or {}
    if int(meta.get("active_until", 0)) <= now:
        return 0  # an idle feed is rebuilt from scratch when its owner returns
    return _merge(job.account_id, _recent(job.target_id, MERGE_PER_ACCOUNT), now)


def clear_from_home(job: jobs.ClearFromHome) -> int:
    """Take the target out of the owner's home. An unfollow (`unmerge`) takes what the target
    posted or boosted (Mastodon's unmerge_from_home: others' boosts of it stay, the owner still
    follows them); a block or mute also takes boosts of the target's statuses and statuses
    mentioning the target, or boosting one that does (clear_from_home)."""
    feed = feeds.home(job.account_id)
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
def account_active(job: jobs.AccountActive) -> int:
    """An account's first API request of a day: its home is fed for a week from now, rebuilt
    first if it had gone idle. A late job, of a day before yesterday, marks nothing."""
    now = clock.epoch()
    if job.day < clock.day_key(clock.from_epoch(now - 86400)):
        return 0
    return int(activity.keep_home_fed(job.account_id, now))


def regenerate_home(job: jobs.RegenerateHome) -> int:
    now = clock.epoch()
    feed = feeds.home(job.account_id)
    merged = 0
    if not job.started:
        merged += len(_insert([(feed, s) for s in _recent(job.account_id, FEED_SIZE // 2)], now))
        _enqueue(*(jobs.MergeIntoList(list_id=listed["id"], owner_id=job.account_id,
                                      account_id=member["account_id"])
                   for listed in lists_repo.of_owner(job.account_id)
                   for member in lists_repo.members(listed["id"])))
    followed, cursor = feeds.followings_page(job.account_id, job.after, REGENERATE_ACCOUNTS)
    for account_id in followed:
        merged += _merge(job.account_id, _recent(account_id, REGENERATE_PER_ACCOUNT), now)
    if cursor:
        _enqueue(jobs.RegenerateHome(account_id=job.account_id, after=cursor, started=True))
    else:
        feeds.trim(feed, FEED_SIZE)
        feeds.set_meta(feed, state="ready")
    return merged


# --- lists ---------------------------------------------------------------------------------
def filtered_from_list(status: dict[str, Any], listed: dict[str, Any],
                       members_replied_to: set[str]) -> bool:
    """Mastodon's FeedManager#filter_from_list?: a reply to someone else reaches a list if it
    answers the list's owner, or by the replies policy: `followed` (home's rules decide),
    `list` (the one answered is a member too), `none` (never)."""
    reply_to = status.get("in_reply_to_account_id")
    if not status.get("in_reply_to_id") or reply_to == status["account_id"]:
        return False
    if reply_to == listed["owner_id"]:
        return False
    policy = listed.get("replies_policy", "list")
    if policy == "followed":
        return False
    if policy == "list":
        return reply_to not in members_replied_to
    return True


def _reply_targets_listed(listed: dict[str, Any], statuses: list[dict[str, Any]]) -> set[str]:
    """Which accounts answered by `statuses` are members of the list."""
    answered = [s["in_reply_to_account_id"] for s in statuses
                if s.get("in_reply_to_account_id")]
    return lists_repo.memberships(listed["id"], answered) if answered else set()
