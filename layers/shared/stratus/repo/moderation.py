"""Moderation in the Main table: the staff index entries that follow an account's moderation
state, warnings (Mastodon's strikes), purge requests, and the bounded reads a purge walks.

The moderation state itself is attributes of the PROFILE item (`suspended_at`,
`suspension_origin`, `silenced_at`, `sensitized_at`, `deletion_requested_at`) and of the USER
item (`disabled`), so every read that renders an account already has it."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys
from stratus.repo.accounts import admin_item

# States an account can be in besides its main listing status; each has its own index entry.
FLAGS = {"silenced": "silenced_at", "sensitized": "sensitized_at"}


def admin_flag_item(account_id: str, origin: str, flag: str) -> dict[str, Any]:
    return {**keys.account_admin_flag(account_id, flag), "type": "admin_index",
            "account_id": account_id, "origin": origin, "status": flag,
            **keys.admin_flag_index_keys(account_id, origin, flag)}


def index_ops(account_id: str, origin: str, status: str, flags: set[str]) -> list[base.Op]:
    """Put the account's main staff index entry and exactly the flag entries it should have."""
    ops = [base.Op("Put", item=admin_item(account_id, origin, status))]
    for flag in FLAGS:
        if flag in flags:
            ops.append(base.Op("Put", item=admin_flag_item(account_id, origin, flag)))
        else:
            ops.append(base.Op("Delete", key=keys.account_admin_flag(account_id, flag)))
    return ops


def flag_keys(account_id: str) -> list[dict[str, str]]:
    return [keys.account_admin_flag(account_id, flag) for flag in FLAGS]


# --- warnings ---------------------------------------------------------------------------------
def warning_op(warning: dict[str, Any]) -> base.Op:
    return base.put_new({**keys.account_warning(warning["target_account_id"], warning["id"]),
                         "type": "account_warning", **warning})


def get_warning(account_id: str, warning_id: str) -> dict[str, Any] | None:
    return base.get(keys.account_warning(account_id, warning_id))


# --- purge requests -----------------------------------------------------------------------------
def purge_request_op(request: dict[str, Any]) -> base.Op:
    """The request item; a second request while one is pending fails its condition."""
    return base.put_new({**keys.purge_request(request["account_id"]), "type": "purge_request",
                         **request})


def get_purge_request(account_id: str) -> dict[str, Any] | None:
    return base.get(keys.purge_request(account_id), consistent=True)


def delete_purge_request_op(account_id: str) -> base.Op:
    return base.Op("Delete", key=keys.purge_request(account_id))


# --- what a purge walks: each read returns the first `limit` of what is left -----------------
def status_entries(account_id: str, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """The account's statuses (boosts included): how many index entries were found (an index
    lags its table: an entry may still name a status just deleted) and the full items."""
    entries = list(base.query(keys.account_statuses(account_id), index="GSI1", limit=limit))
    return len(entries), base.batch_get([{"PK": e["PK"], "SK": e["SK"]} for e in entries])


def get_media(media_ids: list[str]) -> list[dict[str, Any]]:
    return base.batch_get([keys.media(m) for m in media_ids])


KEPT_IN_PARTITION = ("PROFILE", "STATS", "USER", "ADMIN")


def partition_keys(account_id: str, limit: int) -> list[dict[str, str]]:
    """Keys of the account's own items a purge deletes: its edges (follows, requests to it,
    blocks, mutes, domain blocks, endorsements, likes, bookmarks, boosts, pins, notes), lists,
    filters, markers, warnings, push subscriptions... — all but the profile shell and the staff
    index entries (the user goes last)."""
    found = []
    for item in base.query(keys.account_pk(account_id), projection="PK, SK"):
        if item["SK"] in KEPT_IN_PARTITION or item["SK"].startswith(keys.ADMIN_FLAG_PREFIX):
            continue
        found.append({"PK": item["PK"], "SK": item["SK"]})
        if len(found) >= limit:
            break
    return found


def follower_edge_keys(account_id: str, limit: int) -> list[dict[str, str]]:
    """Follow edges to the account (they live in the followers' partitions)."""
    return [{"PK": e["PK"], "SK": e["SK"]}
            for e in base.query(keys.followers_of(account_id), index="GSI1", limit=limit)]


def list_membership_keys(account_id: str, limit: int) -> list[dict[str, str]]:
    """The account's entries in other users' lists."""
    return [{"PK": e["PK"], "SK": e["SK"]}
            for e in base.query(keys.lists_containing(account_id), index="GSI1", limit=limit)]


def notification_keys(account_id: str, limit: int) -> list[dict[str, str]]:
    return [{"PK": e["PK"], "SK": e["SK"]}
            for e in base.query(keys.notifications_of(account_id), limit=limit,
                                projection="PK, SK")]


def token_items(account_id: str, limit: int) -> list[dict[str, Any]]:
    entries = list(base.query(keys.tokens_of(account_id), index="GSI1", limit=limit))
    return base.batch_get([{"PK": e["PK"], "SK": e["SK"]} for e in entries])


def notification_group_keys(account_id: str, limit: int) -> list[dict[str, str]]:
    return [{"PK": e["PK"], "SK": e["SK"]}
            for e in base.query(keys.notification_groups_of(account_id), limit=limit,
                                projection="PK, SK")]
