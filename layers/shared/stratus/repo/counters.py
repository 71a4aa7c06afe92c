"""Counters kept from the stream: the guard that makes one item change count exactly once, and
the aggregated increments a batch of changes applies in one transaction.

A change counts once because its guard is written in the same transaction as the increments:
an insert sets `counted` on the item that justifies the counter (only if the item still exists
and is not counted yet); a removal of a counted item writes a dedupe sentinel for its stream
event. Increments are aggregated per counter item, so a batch of a hundred likes of one status
is one write to that status's counters, not a hundred competing ones.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from stratus.model import tags as tags_model
from stratus.repo import base, dedupe, keys
from stratus.repo import cards as cards_repo
from stratus.repo import tags as tags_repo

# Counter items, by kind: (kind, id). The instance item has no id; a notification group's head
# and a notification request are identified by (recipient, group key / sender); a tag's by its
# name.
STATUS, ACCOUNT, INSTANCE, WEEK, TAG = "status", "account", "instance", "week", "tag"
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
