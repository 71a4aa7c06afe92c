"""Counters: the ones a request keeps itself (`write_counted`: an item and its counts in one
transaction, or the item alone while its counter items are hot), the ones kept from the stream —
the guard that makes one item change count exactly once, and the aggregated increments a batch
of changes applies in one transaction — and the recount's reads and writes.

A change counts once because its guard is written in the same transaction as the increments:
an insert sets `counted` on the item that justifies the counter (only if the item still exists
and is not counted yet); a removal of a counted item writes a dedupe sentinel for its stream
event. Increments are aggregated per counter item, so a batch of a hundred likes of one status
is one write to that status's counters, not a hundred competing ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from stratus.core.errors import ApiError, Busy
from stratus.model import counting
from stratus.model import tags as tags_model
from stratus.model.counting import ACCOUNT, STATUS, TALLIED
from stratus.repo import base, dedupe, keys
from stratus.repo import cards as cards_repo
from stratus.repo import tags as tags_repo

# Counter items, by kind: (kind, id). The instance item has no id; a notification group's head
# and a notification request are identified by (recipient, group key / sender); a tag's by its
# name.
INSTANCE, WEEK, TAG = "instance", "week", "tag"  # and model/counting's STATUS, ACCOUNT
GROUP, REQUEST = "notification_group", "notification_request"
CANDIDATE = "trend_candidate"  # (kind, day, ident): api/trends/ranking.py
LINK = "link"  # a link's share counters, by normalised URL
ACCOUNT_TAG = "account_tag"  # profiles: an account's use of a tag, (account, tag)
# a reaction name's counter on an announcement ((announcement id, name)); the
# admin metrics of a UTC day (yyyymmdd)
REACTIONS, METRICS = "announcement_reactions", "metrics_day"
SIGNUP, SEEN = "signup", "account_seen"  # retention: (day, account) and account
FIRST_WINS = (REACTIONS,)  # attributes set once, by the earliest change (if_not_exists)
Target = tuple[str, str | tuple[str, str] | None]
DEDUPE_TTL = 7 * 86400
UNTALLY = "untally"  # the markers of removals whose live counters a request took back


def _target_key(target: Target) -> dict[str, str]:
    kind, ident = target
    if kind == STATUS:
        return keys.status_stats(ident)
    if kind == ACCOUNT:
        return keys.account_stats(ident)
    if kind == WEEK:
        return keys.activity_week(ident)
    if kind == GROUP:
        return keys.notification_group(*ident)
    if kind == REQUEST:
        return keys.notification_request(*ident)
    if kind == TAG:
        return tags_repo.stats_key(ident)
    if kind == CANDIDATE:
        return keys.trend_candidate(*ident)
    if kind == LINK:
        return cards_repo.stats_key(ident)
    if kind == ACCOUNT_TAG:
        return keys.account_tag(*ident)
    if kind == REACTIONS:
        return keys.announcement_reactions(*ident)
    if kind == METRICS:
        return keys.metrics_day(ident)
    if kind == SIGNUP:
        return keys.signup(*ident)
    if kind == SEEN:
        return keys.account_seen(ident)
    return keys.instance_stats()


def _source_key(item_type: str, item: dict[str, Any]) -> dict[str, str]:
    if item_type == "user":
        return keys.account_user(item["account_id"])
    if item_type == "status":
        return keys.status(item["id"])
    if item_type == "fav":
        return keys.favourite(item["account_id"], item["status_id"])
    if item_type == "reblog":
        return keys.reblog_edge(item["account_id"], item["status_id"])
    if item_type == "follow":
        return keys.follow(item["account_id"], item["target_id"])
    if item_type == "follow_request":
        return keys.follow_request(item["target_id"], item["account_id"])
    if item_type == "notification":
        return keys.notification(item["account_id"], item["id"])
    if item_type == tags_repo.TAG_USE:
        return tags_repo.tag_use_key(item)
    if item_type == "linked_status":
        return cards_repo.shared_status_key(item)
    if item_type == cards_repo.LINK_USE:
        return cards_repo.link_use_key(item)
    if item_type == "announcement_reaction":
        return keys.announcement_reaction(item["account_id"], item["announcement_id"],
                                          item["name"])
    if item_type == "activity":
        return keys.active_day(item["day"], item["account_id"])
    raise ValueError(f"{item_type!r} items are not counted")


def count_once(item_type: str, item: dict[str, Any]) -> base.Op:
    """Guard for an insert: mark the item counted, if it still exists and is not yet."""
    return base.Op("Update", key=_source_key(item_type, item), expression="SET counted = :t",
                   condition="attribute_exists(PK) AND attribute_not_exists(counted)",
                   vals={":t": True})


def undo_once(event_id: str) -> base.Op:
    """Guard for the removal of a counted item (or a counted change to one, such as a status's
    tags): one sentinel per stream event."""
    return dedupe.claim_op("counters", event_id, ttl=DEDUPE_TTL)


def guard_identity(op: base.Op) -> tuple[str, str]:
    key = op.key or op.item or {}
    return key["PK"], key["SK"]


def change_op(target: Target, adds: dict[str, int], sets: dict[str, Any]) -> base.Op:
    """Add to a counter item's counters (and set attributes). Status and account counters
    must exist (a deleted status is not revived by a late like), and so must a notification
    request (accepted or dismissed: gone for good); instance counters are created, and so is a
    notification group's head by its first member (but not revived by a late removal)."""
    names: dict[str, str] = {}
    vals: dict[str, Any] = {}
    parts = []
    for i, (name, delta) in enumerate(adds.items()):
        names[f"#c{i}"], vals[f":c{i}"] = name, delta
    if adds:
        parts.append("ADD " + ", ".join(f"#c{i} :c{i}" for i in range(len(adds))))
    for i, (name, value) in enumerate(sets.items()):
        names[f"#s{i}"], vals[f":s{i}"] = name, value
    if sets:
        value = "if_not_exists(#s{0}, :s{0})" if target[0] in FIRST_WINS else ":s{0}"
        parts.append("SET " + ", ".join(f"#s{i} = " + value.format(i)
                                        for i in range(len(sets))))
    stale = _stale_history(adds) if target[0] in (TAG, LINK) else []
    for i, name in enumerate(stale):
        names[f"#x{i}"] = name
    if stale:
        parts.append("REMOVE " + ", ".join(f"#x{i}" for i in range(len(stale))))
    condition = "attribute_exists(PK)" if target[0] in (STATUS, ACCOUNT, REQUEST) or (
        target[0] in (GROUP, REACTIONS) and any(delta < 0 for delta in adds.values())) else None
    return base.Op("Update", key=_target_key(target), expression=" ".join(parts), names=names,
                   vals=vals, condition=condition)


HISTORY_DAYS = 7  # a Tag's `history` shows a week


def _stale_history(adds: dict[str, int]) -> list[str]:
    """A tag's day counters that no history shows any more: each update of the tag's STATS
    item removes the second week before the newest day it counts, so an item busy every day
    holds two weeks of days (docs/data-model.md, "Hashtags: history, followers")."""
    days = {name.rsplit("_", 1)[1] for name in adds}
    if not days:
        return []
    newest = datetime.strptime(max(days), "%Y%m%d")
    gone = [(newest - timedelta(days=back)).strftime("%Y%m%d")
            for back in range(HISTORY_DAYS + 1, 2 * HISTORY_DAYS + 1)]
    return [tags_model.history_attribute(measure, day) for day in gone if day not in days
            for measure in (tags_model.USES, tags_model.ACCOUNTS)]


def apply(ops: list[base.Op]) -> None:
    base.transact(ops)


# --- counters a request keeps (model/counting.py) -----------------------------------------------
HOT_SECONDS = 60.0  # how long a counter item found contended is left to the stream's worker
ATTEMPTS = 2  # tries of the counted transaction before its items are left to the worker
_hot: dict[Target, float] = {}  # this process's contended counter items, until (monotonic)


def tallied(item: dict[str, Any], counting_now: bool) -> dict[str, Any]:
    """The item as written by a request: marked `tallied` when its live counters go with it."""
    return {**item, TALLIED: True} if counting_now else item


def _live_ops(changes: Sequence[tuple[str, dict[str, Any], int]]
              ) -> tuple[list[base.Op], list[Target]]:
    """One counter op per item the changes ((item type, item, +1 | -1)) touch (and what a new
    item stamps there: model/counting.stamps)."""
    adds: dict[Target, dict[str, int]] = {}
    sets: dict[Target, dict[str, Any]] = {}
    for item_type, item, sign in changes:
        for target, counters in counting.live(item_type, item).items():
            merged = adds.setdefault(target, {})
            for name, delta in counters.items():
                merged[name] = merged.get(name, 0) + sign * delta
        if sign > 0:
            for target, values in counting.stamps(item_type, item).items():
                sets.setdefault(target, {}).update(values)
    order = sorted(set(adds) | set(sets), key=str)
    return [change_op(target, adds.get(target, {}), sets.get(target, {}))
            for target in order], order


def _is_hot(targets: list[Target]) -> bool:
    now = time.monotonic()
    return any(_hot.get(target, 0.0) > now for target in targets)


def _counted_or_not(build: Callable[[bool], list[base.Op]], extra: list[base.Op],
                    targets: list[Target]) -> bool:
    """Write build(True) + `extra` in one transaction (True); if one of the counter items is
    contended, throttled or gone, build(False) alone (False). A failed condition of build's
    own ops raises as it would."""
    if not extra or _is_hot(targets):
        base.transact(build(False))
        return False
    ops = build(True)
    try:
        base.transact([*ops, *extra], attempts=ATTEMPTS)
        return True
    except Busy:
        until = time.monotonic() + HOT_SECONDS
        if len(_hot) > 10_000:  # forget the ones that cooled down
            for target in [t for t, end in _hot.items() if end <= time.monotonic()]:
                del _hot[target]
        for target in targets:
            _hot[target] = until
    except base.ConditionFailed as failed:
        if any(i < len(ops) for i in failed.failed):
            raise
    base.transact(build(False))
    return False


def write_counted(build: Callable[[bool], list[base.Op]],
                  added: Sequence[tuple[str, dict[str, Any]]] = (),
                  removed: Sequence[tuple[str, dict[str, Any]]] = ()) -> bool:
    """Write items with their live counters (model/counting.live), as Mastodon counts them in
    the request. `build(True)` are the writes, with each new item of `added` ((item type,
    item)) marked (`tallied`) and each item of `removed` (as read) deleted only while it is
    the one read (`delete_read`); they, the counter changes and a marker per removal (which
    tells the counters worker that its counters went down here) are one transaction, so an
    item and its counts change together or not at all. A removed item never counted (its
    creation was contended and the worker has not come to it) changes no counter: the worker
    will not count it either. When a counter item is contended (a popular status's likers
    cancel each other's transactions, or its partition throttles) or gone, `build(False)` is
    written alone and the counters worker counts from the stream, aggregated per batch — a
    viral status never serialises its likers; the item found contended is then left to the
    worker for HOT_SECONDS (this process). True when counted here."""
    gone = [(t, item) for t, item in removed if _was_counted(item)]
    ops, targets = _live_ops([(t, item, +1) for t, item in added] +
                             [(t, item, -1) for t, item in gone])
    markers = [dedupe.claim_op(UNTALLY, counting.incarnation(t, item), ttl=DEDUPE_TTL)
               for t, item in gone]
    return _counted_or_not(build, [*ops, *markers] if ops else [], targets)


def _was_counted(item: dict[str, Any]) -> bool:
    return bool(item.get(TALLIED) or item.get("counted"))


def delete_read(key: dict[str, str], item: dict[str, Any],
                on_conflict: ApiError | None = None) -> base.Op:
    """Delete the item at `key` only while it is the one read (`item`'s id): a removal counts
    down the life of the item it read, not one made again since."""
    return base.Op("Delete", key=key, condition="#id = :id", names={"#id": "id"},
                   vals={":id": item["id"]}, on_conflict=on_conflict)


def untallied(removed: Sequence[tuple[str, dict[str, Any]]]) -> set[str]:
    """Of these removed items, the incarnations whose live counters a request took back."""
    return dedupe.marked(UNTALLY, [counting.incarnation(t, item) for t, item in removed])


# --- recounts (workers/recount.py) ----------------------------------------------------------------
def whole_range() -> tuple[str, str]:
    """The sort-key bounds of every id (an index read from the first to the last)."""
    return keys.id_range(None, None)


def stored_counts(kind: str, ident: str) -> dict[str, Any] | None:
    """A status's or an account's counter item as it is (a consistent read); None if none."""
    return base.record(base.get(_target_key((kind, ident)), consistent=True))


def set_counts(kind: str, ident: str, before: dict[str, Any], counts: dict[str, int]) -> bool:
    """Set counters to `counts` while they still hold what `before` read; False if one moved
    (counted meanwhile: read again)."""
    names, vals, sets, holds = {}, {}, [], []
    for i, (name, value) in enumerate(counts.items()):
        names[f"#c{i}"], vals[f":n{i}"] = name, value
        sets.append(f"#c{i} = :n{i}")
        if name in before:
            vals[f":o{i}"] = before[name]
            holds.append(f"#c{i} = :o{i}")
        else:
            holds.append(f"attribute_not_exists(#c{i})")
    try:
        base.transact([base.Op("Update", key=_target_key((kind, ident)),
                               expression="SET " + ", ".join(sets),
                               condition=" AND ".join(["attribute_exists(PK)", *holds]),
                               names=names, vals=vals)])
    except base.ConditionFailed:
        return False
    return True
