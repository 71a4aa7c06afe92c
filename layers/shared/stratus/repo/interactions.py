"""An account's interactions with a status — favourites, boosts, bookmarks, pins, muted
threads — one write per fact, whether a local account makes it through the API or a remote
one through the inbox (api/statuses/interactions.py, federation/inbox/): the edge's layout, its
keys and index entries, the conditions that make each write idempotent. Likes and boosts
are counted in the request, in one transaction with the edge — unless the status's counters
are contended: then the edge alone is written and the stream's worker counts it
(repo/counters.write_counted), so a busy status never serialises its likers. Notifications
follow from the stream."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import ApiError
from stratus.core.paging import Budget
from stratus.model.edges import Edge
from stratus.repo import base, counters, keys, uris
from stratus.repo import statuses as statuses_repo

# The kinds of edge, as their index entries name them (their `type` is the lower case).
FAVOURITE, BOOKMARK, BOOST, PIN = "FAV", "BMK", "REBLOG", "PIN"
_KEY_OF = {FAVOURITE: keys.favourite, BOOKMARK: keys.bookmark, BOOST: keys.reblog_edge,
           PIN: keys.pin}


def _edge_item(kind: str, account_id: str, status: dict[str, Any], **extra: Any
               ) -> dict[str, Any]:
    """An edge from an account to a status, indexed by status (who did it) and by account
    (their list), in the order it was made."""
    edge_id = ids.new_id()
    return {**_KEY_OF[kind](account_id, status["id"]), "type": kind.lower(), "id": edge_id,
            "account_id": account_id, "status_id": status["id"],
            "status_account_id": status["account_id"], "created_at": clock.iso(clock.now()),
            **keys.edge_index_keys(kind, account_id, status["id"], edge_id), **extra}


def edge(kind: str, account_id: str, status_id: str) -> Edge | None:
    """The account's edge of this kind to the status (a consistent read) as a record, or
    None."""
    return base.record(base.get(_KEY_OF[kind](account_id, status_id), consistent=True))


def remove(kind: str, account_id: str, status_id: str) -> Edge | None:
    """Delete a bookmark (or any uncounted edge); its record as it was (None if it was already
    gone)."""
    return base.record(base.delete(_KEY_OF[kind](account_id, status_id), returning=True))


def _add(item: dict[str, Any]) -> bool:
    """Write an edge once; False if it already existed (the action is idempotent)."""
    return base.put(item, condition="attribute_not_exists(PK)")


# --- favourites and bookmarks -----------------------------------------------------------------------
def favourite(account_id: str, status: dict[str, Any], *, uri: str | None = None) -> bool:
    """An account favourites a status (`uri`: a remote account's Like), counted with it;
    False if it had."""
    item = _edge_item(FAVOURITE, account_id, status, **({"uri": uri} if uri else {}))
    try:
        counters.write_counted(lambda now: [base.put_new(counters.tallied(item, now))],
                               [("fav", item)])
    except base.ConditionFailed:
        return False
    return True


def unfavourite(account_id: str, status_id: str) -> tuple[Edge | None, bool]:
    """Take a favourite back, and its count with it: (its record as it was, None if there was
    none; whether the count went down here — else it is the counters worker's, or the like
    was never counted)."""
    found = edge(FAVOURITE, account_id, status_id)
    if found is None:
        return None, False
    key = keys.favourite(account_id, status_id)
    try:
        return found, counters.write_counted(
            lambda now: [counters.delete_read(key, found) if now else
                         base.Op("Delete", key=key, condition="attribute_exists(PK)")],
            removed=[("fav", found)])
    except base.ConditionFailed:
        return None, False  # taken back concurrently


def bookmark(account_id: str, status: dict[str, Any]) -> bool:
    return _add(_edge_item(BOOKMARK, account_id, status))


# --- boosts -------------------------------------------------------------------------------------------
def _reblog_item(account_id: str, original: dict[str, Any], reblog_id: str, *,
                 visibility: str, uri: str, local: bool, created_at: str) -> dict[str, Any]:
    return {"id": reblog_id, "account_id": account_id, "reblog_of_id": original["id"],
            "reblog_of_account_id": original["account_id"], "visibility": visibility,
            "uri": uri, "url": None, "thread_id": reblog_id, "local": local,
            "created_at": created_at, "mention_ids": [], "tags": [], "media_ids": []}


def boost(account_id: str, original: dict[str, Any], reblog_id: str, *, visibility: str,
          uri: str, local: bool, created_at: str, also: Sequence[base.Op] = ()) -> bool:
    """A boost: the boost edge, the status item that is the reblog and its stats, with `also`
    (a remote boost's URI entry) and the counts (the original's reblogs, the booster's
    statuses) in one transaction. False when a condition failed — boosted already, or `also`
    refused — and nothing was written."""
    reblog = _reblog_item(account_id, original, reblog_id, visibility=visibility, uri=uri,
                          local=local, created_at=created_at)
    edge_item = _edge_item(BOOST, account_id, original, reblog_id=reblog_id)

    def build(now: bool) -> list[base.Op]:
        return [base.put_new(counters.tallied(edge_item, now)),
                base.put_new(statuses_repo.status_item(counters.tallied(reblog, now))),
                base.put_new(statuses_repo.stats_item(reblog_id)), *also]

    try:
        counters.write_counted(build, [("reblog", edge_item), ("status", reblog)])
    except base.ConditionFailed:
        return False
    return True


def unboost(account_id: str, original_id: str) -> tuple[Edge | None, bool]:
    """Undo the account's boost of a status — its edge, the reblog status and its stats, the
    reblog's URI entry where the URI index names it (a remote boost's Announce id) — and its
    counts: (the boost edge's record as it was, None if there was none; whether the counts
    went down here). Undone concurrently is no error: nothing is written."""
    found = edge(BOOST, account_id, original_id)
    if found is None:
        return None, False
    reblog_id = found["reblog_id"]
    reblog = statuses_repo.get(reblog_id)
    key = keys.reblog_edge(account_id, original_id)
    release = [uris.release_op(reblog["uri"], "status", reblog_id)] \
        if reblog is not None and reblog.get("uri") and \
        uris.find(reblog["uri"]) == ("status", reblog_id) else []

    def build(now: bool) -> list[base.Op]:
        return [counters.delete_read(key, found) if now else
                base.Op("Delete", key=key, condition="attribute_exists(PK)"),
                base.Op("Delete", key=keys.status(reblog_id)),
                base.Op("Delete", key=keys.status_stats(reblog_id)), *release]

    counted = [("reblog", found)] + ([("status", reblog)] if reblog is not None else [])
    try:
        return found, counters.write_counted(build, removed=counted)
    except base.ConditionFailed:
        return found, False


# --- pins ---------------------------------------------------------------------------------------------
def pin(account_id: str, status: dict[str, Any], *, max_pinned: int,
        on_duplicate: ApiError, on_full: ApiError) -> None:
    """Pin a status, in one transaction with the account's pin count, which stays within
    `max_pinned`; the API error of the condition that fails."""
    base.transact([
        base.put_new(_edge_item(PIN, account_id, status), on_conflict=on_duplicate),
        base.Op("Update", key=keys.account_stats(account_id), expression="ADD pins_count :one",
                condition="attribute_not_exists(pins_count) OR pins_count < :max",
                vals={":one": 1, ":max": max_pinned}, on_conflict=on_full)])


def unpin_ops(account_id: str, status_id: str) -> list[base.Op]:
    """Unpin: the pin (while it exists: never counted down twice) and the pin count."""
    return [base.Op("Delete", key=keys.pin(account_id, status_id),
                    condition="attribute_exists(PK)"),
            base.Op("Update", key=keys.account_stats(account_id),
                    expression="ADD pins_count :minus", vals={":minus": -1})]


def unpin(account_id: str, status_id: str) -> bool:
    """Unpin a status; False if it was not pinned (or unpinned concurrently)."""
    if edge(PIN, account_id, status_id) is None:
        return False
    try:
        base.transact(unpin_ops(account_id, status_id))
    except base.ConditionFailed:
        return False
    return True


# --- muted threads ------------------------------------------------------------------------------------
def mute_thread(account_id: str, thread_id: str) -> None:
    base.put({**keys.muted_thread(account_id, thread_id), "type": "conversation_mute",
              "account_id": account_id, "thread_id": thread_id})


def unmute_thread(account_id: str, thread_id: str) -> None:
    base.delete(keys.muted_thread(account_id, thread_id))


# --- lists --------------------------------------------------------------------------------------------
def by_status(kind: str, status_id: str, low: int | None, high: int | None, descending: bool
              ) -> Iterator[Edge]:
    """The edges of this kind to a status (who favourited, boosted it), by edge id between
    `low` and `high` (records)."""
    lo, hi = keys.id_range(low, high)
    return base.records(base.query(keys.edges_by_status(kind, status_id), index="GSI1",
                                   sk_between=(lo, hi), descending=descending))


def of_account(kind: str, account_id: str, low: int | None, high: int | None,
               descending: bool, *, budget: Budget | None = None, step: int = 100
               ) -> Iterator[Edge]:
    """An account's edges of this kind (its favourites, bookmarks, pins), by edge id
    (records)."""
    lo, hi = keys.id_range(low, high)
    return base.records(base.query(keys.edges_of(kind, account_id), index="GSI2",
                                   sk_between=(lo, hi), descending=descending, budget=budget,
                                   step=step))
