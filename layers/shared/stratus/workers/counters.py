"""Counters derived from the stream, exactly once, without hot transactions.

Requests write only the edge or status that justifies a counter (a like is one conditional put;
a thousand people liking one status never contend). The counters worker turns the stream's
inserts and removals into increments (`deltas`: Mastodon's counting rules), guards each change
so a redelivery counts nothing (repo/counters.py), aggregates a batch per counter item and
applies it in as few transactions as DynamoDB allows (100 items each). Concurrent workers that
still collide on one item are retried with jitter by the repository; what stays contended is
reported as failed and redelivered by SQS. Design and numbers: docs/data-model.md.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stratus.core import clock
from stratus.core.errors import Busy
from stratus.jobs.messages import Count
from stratus.model import counting
from stratus.model import tags as tags_model
from stratus.repo import counters as repo
from stratus.repo import tags as tags_repo
from stratus.repo import transaction
from stratus.repo import trends as trends_repo
from stratus.repo.counters import (
    ACCOUNT_TAG,
    CANDIDATE,
    FIRST_WINS,
    GROUP,
    INSTANCE,
    LINK,
    METRICS,
    REACTIONS,
    REQUEST,
    SEEN,
    SIGNUP,
    TAG,
    WEEK,
    Target,
)
from stratus.workers import notification_groups

logger = logging.getLogger(__name__)
MAX_OPS = 100  # TransactWriteItems' limit
DISTRIBUTABLE = ("public", "unlisted")


def deltas(job: Count, *, live: bool = True
           ) -> tuple[dict[Target, dict[str, int]], dict[Target, dict[str, Any]]]:
    """Counter changes for one inserted or removed item: ({target: {counter: delta}},
    {target: {attribute: value}}) — with `live`, those a request keeps too
    (model/counting.live: statuses, replies, likes, boosts, follows, follow requests).
    Mastodon's other rules: weekly activity is history (removals do not rewrite it); a public
    original counts a use of each of its hashtags that day, and a `tag_use` item one more
    distinct account."""
    item, inserted = job.item, job.event == "INSERT"
    sign = 1 if inserted else -1
    adds: dict[Target, dict[str, int]] = {}
    sets: dict[Target, dict[str, Any]] = {}

    def add(target: Target, counter: str, delta: int = sign) -> None:
        adds.setdefault(target, {})[counter] = adds.get(target, {}).get(counter, 0) + delta

    if live and job.event in ("INSERT", "REMOVE"):
        for target, counters in counting.live(job.item_type, item).items():
            for counter, delta in counters.items():
                add(target, counter, sign * delta)
        if inserted:
            sets.update(counting.stamps(job.item_type, item))

    def tag_day(name: str, measure: str, day: str) -> None:
        add((TAG, name), tags_model.history_attribute(measure, day), 1)
        sets[(TAG, name)] = {"type": "tag_stats", "name": name}

    def trend_candidate(kind: str, day: str, ident: str) -> None:
        """Something that may trend had activity on a day (api/trends/ranking.py reads these)."""
        sets[(CANDIDATE, (kind, day, ident))] = trends_repo.candidate_item(
            kind, day, ident, int(clock.now().timestamp()))

    def link_day(url: str, measure: str, day: str) -> None:
        add((LINK, url), tags_model.history_attribute(measure, day), 1)
        sets[(LINK, url)] = {"type": "link_stats", "url": url}

    def week() -> Target:
        created = item.get("created_at")
        return WEEK, clock.week_key(clock.parse_iso(created) if created else clock.now())

    def account_tag(name: str, delta: int, last_status_at: str | None) -> None:
        # profiles: how many public or unlisted statuses of the account use a tag
        # and when the latest was posted (FeaturedTag's statuses_count and last_status_at)
        target = (ACCOUNT_TAG, (item["account_id"], name))
        add(target, "statuses_count", delta)
        sets[target] = {"type": "account_tag", "account_id": item["account_id"], "tag": name,
                        **({"last_status_at": last_status_at} if last_status_at else {})}

    if job.item_type == "status" and job.event == "MODIFY":
        # An edit changed the tags of a counted status (ProcessHashtagsService: added tags
        # count one more use, removed ones one less).
        if item.get("visibility") in DISTRIBUTABLE and not item.get("reblog_of_id"):
            old, new = item.get("old_tags", []), item.get("tags", [])
            for name in new:
                if name not in old:
                    account_tag(name, 1, item.get("created_at"))
            for name in old:
                if name not in new:
                    account_tag(name, -1, None)
        return adds, sets
    if job.item_type == "user":
        add((INSTANCE, None), "user_count")
        if inserted:
            add(week(), "registrations")
    elif job.item_type == "status":
        if item.get("local") and not item.get("reblog_of_id"):
            add((INSTANCE, None), "local_posts")
            if inserted:
                add(week(), "statuses")
        if inserted and item.get("visibility") == "public" and not item.get("reblog_of_id"):
            # A hashtag's uses that day (Trends::Tags#register: public originals only; a
            # tag's history is history, so removals and edits do not rewrite it).
            for name in item.get("tags", []):
                tag_day(name, tags_model.USES, clock.day_of_id(item["id"]))
        if item.get("visibility") in DISTRIBUTABLE and not item.get("reblog_of_id"):
            for name in item.get("tags", []):
                account_tag(name, sign, item.get("created_at") if inserted else None)
    elif job.item_type in ("fav", "reblog"):
        if inserted:
            trend_candidate("statuses", clock.day_key(clock.now()), item["status_id"])
    elif job.item_type == "notification":
        # A grouped notification counts in its group's head (the grouped listing's entry);
        # a filtered mention counts in its sender's notification request.
        recipient = item["account_id"]
        if item.get("group_key"):
            group = (GROUP, (recipient, item["group_key"]))
            add(group, "notifications_count")
            if inserted:
                sets[group] = {"type": "notification_group", "account_id": recipient,
                               "group_key": item["group_key"],
                               "notification_type": item["notification_type"],
                               **({"status_id": item["status_id"]}
                                  if item.get("status_id") else {})}
        elif item.get("filtered") and item.get("notification_type") == "mention":
            add((REQUEST, (recipient, item["from_account_id"])), "notifications_count")
    elif job.item_type == tags_repo.TAG_USE and inserted:
        tag_day(item["tag"], tags_model.ACCOUNTS, item["day"])  # one more distinct account
        trend_candidate("tags", item["day"], item["tag"])
    # Link shares (what link trends rank): a shared link index entry is one use that day, a
    # `link_use` item one more distinct account; history, never taken back.
    elif job.item_type == "linked_status" and inserted and item.get("shared"):
        link_day(item["url"], tags_model.USES, item["day"])
    elif job.item_type == "link_use" and inserted:
        link_day(item["url"], tags_model.ACCOUNTS, item["day"])
        trend_candidate("links", item["day"], item["url"])
    _announce_deltas(job, add, sets)
    return adds, sets


# --- announcement reactions and the admin metrics' day counters ----------------
def _day(created_at: str | None) -> str:
    return clock.day_key(clock.parse_iso(created_at) if created_at else clock.now())


def _announce_deltas(job: Count, add: Any, sets: dict[Target, dict[str, Any]]) -> None:
    """A reaction counts on its name's counter (Mastodon groups reactions by name); the
    metrics count per UTC day what Admin::Metrics reads: sign-ups (`new_users`, as the users
    table), distinct active accounts (one `activity` item per account and day), interactions
    (likes, boosts and replies — every status is local until federation), statuses per
    language and per app (local statuses, as the languages and sources dimensions count
    them), reports opened and resolved."""
    item, inserted = job.item, job.event == "INSERT"
    sign = 1 if inserted else -1

    def metric(day: str, name: str, delta: int) -> None:
        add((METRICS, day), name, delta)
        sets[(METRICS, day)] = {"type": METRICS, "day": day}

    if job.item_type == "announcement_reaction":
        target = (REACTIONS, (str(item["announcement_id"]), item["name"]))
        add(target, "count")
        if inserted:
            sets[target] = {"type": REACTIONS, "announcement_id": str(item["announcement_id"]),
                            "name": item["name"], "first_id": int(item["id"]),
                            **({"custom_emoji": item["custom_emoji"]}
                               if item.get("custom_emoji") else {})}
    elif job.item_type == "user":
        metric(_day(item.get("created_at")), "new_users", sign)
        if inserted:  # retention: the day's cohort (api/admin/metrics.retention)
            sets[(SIGNUP, (_day(item.get("created_at")), str(item["account_id"])))] = {
                "type": SIGNUP, "account_id": str(item["account_id"])}
    elif job.item_type == "activity" and inserted:
        metric(item["day"], "active_users", 1)
        # retention: the account's last active day (the batch keeps the latest, `max`)
        sets[(SEEN, str(item["account_id"]))] = {"type": SEEN, "last_active": item["day"]}
    elif job.item_type in ("fav", "reblog") and inserted:
        metric(_day(item.get("created_at")), "interactions", 1)
    elif job.item_type == "status" and not item.get("reblog_of_id"):
        day = clock.day_of_id(item["id"])
        if inserted and item.get("in_reply_to_id"):
            metric(day, "interactions", 1)
        if item.get("local", True):
            if item.get("language"):
                metric(day, "language:" + str(item["language"]), sign)
            application = item.get("application") or {}
            if application.get("name"):
                metric(day, "source:" + str(application["name"]), sign)
    elif job.item_type == "report":
        if job.event in ("INSERT", "REMOVE"):
            metric(_day(item.get("created_at")), "opened_reports", sign)
        else:
            if item.get("previous_action_taken_at"):
                metric(_day(item["previous_action_taken_at"]), "resolved_reports", -1)
            if item.get("action_taken_at"):
                metric(_day(item["action_taken_at"]), "resolved_reports", 1)


# Items counted once per stream event (their keys belong to another area, or a change other
# than an insert counts): the guard is a dedupe sentinel for the event.
ONCE_PER_EVENT = ("report",)


@dataclass
class _Change:
    message_id: str
    guard: transaction.Op
    adds: dict[Target, dict[str, int]]
    sets: dict[Target, dict[str, Any]] = field(default_factory=dict)

    @property
    def targets(self) -> set[Target]:
        return set(self.adds) | set(self.sets)


def _plan(message_id: str, job: Count, untallied: set[str]) -> _Change | None:
    """The guarded counter change of one job. An item a request counted (`tallied`) counts here
    only what the request does not keep; the removal of an item counts down its live counters
    unless a request did (`untallied`: the marked incarnations), and the rest only if the
    worker had counted it."""
    item = job.item
    live_type = job.item_type in counting.LIVE_TYPES and job.event in ("INSERT", "REMOVE")
    tallied = live_type and bool(item.get(counting.TALLIED))
    if job.event == "REMOVE" and live_type and not item.get("counted"):
        if not tallied or counting.incarnation(job.item_type, item) in untallied:
            return None  # never counted, or counted down by the request that removed it
        adds = {t: {k: -v for k, v in c.items()}
                for t, c in counting.live(job.item_type, item).items()}
        return _Change(message_id, repo.undo_once(job.event_id), adds) if adds else None
    skip_live = (job.event == "INSERT" and tallied) or (
        job.event == "REMOVE" and live_type and
        counting.incarnation(job.item_type, item) in untallied)
    adds, sets = deltas(job, live=not skip_live)
    if not adds and not sets:
        return None
    if job.item_type in ONCE_PER_EVENT:
        guard = repo.undo_once(job.event_id)
    elif job.event == "INSERT":
        guard = repo.count_once(job.item_type, job.item)
    elif job.event == "MODIFY":
        guard = repo.undo_once(job.event_id)  # a change is counted once, whether or not yet
    elif job.item.get("counted"):
        guard = repo.undo_once(job.event_id)
    else:
        return None  # removed before it was ever counted: nothing to take back
    return _Change(message_id, guard, adds, sets)


def _untallied(batch: list[tuple[str, Count]]) -> set[str]:
    """The removals in a batch whose live counters a request took back (one batched read)."""
    removed = [(job.item_type, job.item) for _, job in batch
               if job.event == "REMOVE" and job.item_type in counting.LIVE_TYPES and
               job.item.get("id") and (job.item.get(counting.TALLIED) or job.item.get("counted"))]
    return repo.untallied(removed) if removed else set()


def _chunks(changes: list[_Change]) -> Iterable[list[_Change]]:
    """Changes grouped so that guards + counter items fit in one transaction; a change whose
    guard repeats one already in the chunk (a duplicate delivery) is left out of it."""
    chunk: list[_Change] = []
    guards: set[tuple[str, str]] = set()
    targets: set[Target] = set()
    for change in changes:
        identity = repo.guard_identity(change.guard)
        if identity in guards:
            continue
        if chunk and len(guards) + 1 + len(targets | change.targets) > MAX_OPS:
            yield chunk
            chunk, guards, targets = [], set(), set()
        chunk.append(change)
        guards.add(identity)
        targets |= change.targets
    if chunk:
        yield chunk


def _apply_chunk(chunk: list[_Change]) -> list[str]:
    """Apply one chunk; returns the message ids that must be retried (still contended)."""
    live = list(chunk)
    gone: set[Target] = set()  # counter items that no longer exist
    while live:
        adds: dict[Target, dict[str, int]] = {}
        sets: dict[Target, dict[str, list[Any]]] = {}
        for change in live:
            for target, counters in change.adds.items():
                if target in gone:
                    continue
                merged = adds.setdefault(target, {})
                for name, delta in counters.items():
                    merged[name] = merged.get(name, 0) + delta
            for target, attributes in change.sets.items():
                if target not in gone:
                    for name, value in attributes.items():
                        sets.setdefault(target, {}).setdefault(name, []).append(value)
        changes = {t: ({k: v for k, v in adds.get(t, {}).items() if v},
                       {k: (min(v) if t[0] in FIRST_WINS else max(v))
                        for k, v in sets.get(t, {}).items()})
                   for t in set(adds) | set(sets)}
        order = sorted((t for t, (a, s) in changes.items() if a or s), key=str)
        ops = [c.guard for c in live] + [repo.change_op(t, *changes[t]) for t in order]
        try:
            repo.apply(ops)
            return []
        except transaction.ConditionFailed as failed:
            stale = {i for i in failed.failed if i < len(live)}
            gone |= {order[i - len(live)] for i in failed.failed if i >= len(live)}
            live = [c for i, c in enumerate(live) if i not in stale]
        except Busy:
            return [c.message_id for c in live]
    return []


def apply_batch(batch: list[tuple[str, Count]]) -> list[str]:
    """Apply a batch of counter jobs; returns the message ids to redeliver."""
    untallied = _untallied(batch)
    changes = [c for message_id, job in batch
               if (c := _plan(message_id, job, untallied)) is not None]
    retry: list[str] = []
    for chunk in _chunks(changes):
        try:
            retry += _apply_chunk(chunk)
        except Exception:  # noqa: BLE001 - SQS redelivers the chunk; the guards keep it exact
            logger.exception("counter chunk failed", extra={"messages": len(chunk)})
            retry += [c.message_id for c in chunk]
    notification_groups.settle([job for _, job in batch])
    return retry
