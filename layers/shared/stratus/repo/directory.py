"""The profile directory and follow suggestions, without a Scan.

Each account that may be listed has one `directory_entry` item in its partition
(`keys.directory_entry`), made by the effects worker from its profile, user and stats whenever
one of them changes (api/directory/directory.py). Its index keys order the directory by creation
(GSI1, `new`) and by last status (GSI2, `active`), local and remote apart, and local accounts by
followers (GSI3, popular suggestions). A dismissed suggestion is an edge in the viewer's
partition, read with the viewer's other edges in one batch.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from stratus.repo import base, keys

ENTRY, DISMISSED = "directory_entry", "suggestion_dismissal"
INDEX = {"new": "GSI1", "active": "GSI2"}


def entry_item(account_id: str, *, local: bool, last_status_at: str | None,
               followers: int | None) -> dict[str, Any]:
    """An account's directory entry as a record (what `account_state` reads back; `put_entry`
    writes it). `followers`: set only for accounts that may be suggested as popular (local
    ones)."""
    record = {"type": ENTRY, "account_id": account_id, "local": local,
              "last_status_at": last_status_at, "followers_count": followers}
    return {k: v for k, v in record.items() if v is not None}


def put_entry(record: dict[str, Any]) -> None:
    """Write an entry (from `entry_item`) with the index keys its fields order it by."""
    account_id = record["account_id"]
    index = keys.directory_index_keys(account_id, "LOCAL" if record["local"] else "REMOTE",
                                      record.get("last_status_at"),
                                      record.get("followers_count"))
    base.put({**keys.directory_entry(account_id), **record,
              **{k: v for k, v in index.items() if v is not None}})


def delete_entry(account_id: str) -> None:
    base.delete(keys.directory_entry(account_id))


def listing(order: str, scopes: list[str], limit: int) -> Iterator[str]:
    """Up to `limit` account ids of the directory, newest (`new`) or most recently active
    (`active`) first; local and remote scopes merged by the same order."""
    index = INDEX[order]
    streams = [base.query(keys.directory_partition(order, scope), index=index,
                          descending=True, limit=limit) for scope in scopes]
    merged = streams[0] if len(streams) == 1 else heapq.merge(
        *streams, key=lambda e: e[f"{index}SK"], reverse=True)
    for entry in merged:
        yield entry["account_id"]


def popular(limit: int) -> Iterator[str]:
    """Up to `limit` local accounts that may be suggested, most followed first."""
    for entry in base.query(keys.POPULAR, index="GSI3", descending=True, limit=limit):
        yield entry["account_id"]


# --- dismissed suggestions -------------------------------------------------------------------
def dismiss(account_id: str, target_id: str, created_at: str) -> None:
    base.put({**keys.dismissed_suggestion(account_id, target_id), "type": DISMISSED,
              "account_id": account_id, "target_id": target_id, "created_at": created_at})


def suggestion_keys(viewer_id: str, target_id: str) -> list[dict[str, str]]:
    """Keys relationships.load reads beside the viewer's edges for each candidate suggestion:
    the dismissal and a pending follow request of the viewer's (in the target's partition)."""
    return [keys.dismissed_suggestion(viewer_id, target_id),
            keys.follow_request(target_id, viewer_id)]


def account_state(account_id: str) -> dict[str, dict[str, Any]]:
    """What an account's directory entry is made from — its profile, stats, user and the entry
    itself — read consistently in one batch: {part: record}, the parts named as
    accounts.get_bundle names them and the entry `DIRECTORY`."""
    wanted = [keys.account_profile(account_id), keys.account_stats(account_id),
              keys.account_user(account_id), keys.directory_entry(account_id)]
    return {item["SK"]: base.record(item)  # type: ignore[misc]
            for item in base.batch_get(wanted, consistent=True)}
