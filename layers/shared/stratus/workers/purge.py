"""Purging a suspended account (Mastodon's DeleteAccountService as an admin deletion runs it:
the username and e-mail stay reserved, an empty suspended account remains), as steps a Step
Functions state machine drives (statemachines/purge_account.asl.json, the handler in
functions/workers/moderation).

`step(state)` takes the state the previous step returned and returns the next one; the machine
loops until `done`. Every step deletes one bounded batch of what is *left* (it reads before it
deletes), so a step run twice, or killed midway and run again, deletes nothing twice: deleting
an item that is gone is a no-op, and what a step did not get to is found again by the next read.
Statuses go through the existing deletion cascade: removing a status item is what the outbox
turns into the removal of its likes, boosts, notifications, feed entries and counters."""

from __future__ import annotations

from typing import Any

from stratus.auth import identity
from stratus.repo import accounts as accounts_repo
from stratus.repo import media
from stratus.repo import moderation as repo
from stratus.repo import oauth as oauth_repo

# What a step deletes, in order; each phase runs until a read finds nothing left.
PHASES = ("statuses", "followers", "list_memberships", "notifications", "notification_groups",
          "tokens", "partition", "finish")
STATUSES_PER_STEP = 25
ITEMS_PER_STEP = 100


def start(state: dict[str, Any]) -> dict[str, Any]:
    """The execution's input (the purge request's change): go on only while the request stands
    and the account is still suspended (an unsuspension in between cancels the purge)."""
    account_id = str(state["account_id"])
    request = repo.get_purge_request(account_id)
    profile = accounts_repo.get_profile(account_id)
    if request is None or profile is None or not profile.get("suspended_at"):
        return {"step": "purge", "account_id": account_id, "done": True, "purged": False}
    return {"step": "purge", "account_id": account_id, "cursor": {"phase": PHASES[0]},
            "done": False}


def _statuses(account_id: str) -> int:
    entries, found = repo.status_entries(account_id, STATUSES_PER_STEP)
    media_items = repo.get_media([m for s in found for m in s.get("media_ids", [])])
    for item in media_items:
        for key in (item.get("file_key"), item.get("small_key")):
            if key:
                media.delete_object(key)
    repo.remove_statuses(found, media_items)  # the statuses last: the cascade starts there
    return entries


def _tokens(account_id: str) -> int:
    tokens = repo.token_items(account_id, ITEMS_PER_STEP)
    for token in tokens:
        oauth_repo.delete_token(token)
    identity.forget()
    return len(tokens)


def _deleting(read) -> Any:
    def run(account_id: str) -> int:
        found = read(account_id, ITEMS_PER_STEP)
        repo.remove(found)
        return len(found)
    return run


def _finish(account_id: str) -> int:
    """The account becomes an empty suspended shell: profile fields and images gone, the user
    gone (its handle and e-mail sentinels stay: both remain reserved), the request done."""
    bundle = accounts_repo.get_bundle(account_id, (accounts_repo.PROFILE, accounts_repo.USER))
    profile = bundle.get(accounts_repo.PROFILE)
    if profile is None:
        return 0
    for attribute in ("avatar_key", "avatar_static_key", "header_key", "header_static_key"):
        if profile.get(attribute):
            media.delete_object(profile[attribute])
    repo.leave_shell(profile)
    return 1


WORK = {
    "statuses": _statuses,
    "followers": _deleting(repo.follower_edge_deletions),
    "list_memberships": _deleting(repo.list_membership_deletions),
    "notifications": _deleting(repo.notification_deletions),
    "notification_groups": _deleting(repo.notification_group_deletions),
    "tokens": _tokens,
    "partition": _deleting(repo.partition_deletions),
}


def purge(state: dict[str, Any]) -> dict[str, Any]:
    account_id = str(state["account_id"])
    phase = (state.get("cursor") or {}).get("phase", PHASES[0])
    if phase not in PHASES:
        raise ValueError(f"unknown purge phase {phase!r}")
    if phase == "finish":
        _finish(account_id)
        return {"step": "purge", "account_id": account_id, "done": True, "purged": True}
    done_now = WORK[phase](account_id)
    if not done_now:  # nothing was left in this phase: the next one
        phase = PHASES[PHASES.index(phase) + 1]
    return {"step": "purge", "account_id": account_id, "cursor": {"phase": phase},
            "done": False}


STEPS = {"start": start, "purge": purge}


def step(state: dict[str, Any]) -> dict[str, Any]:
    """One step of the purge machine. An input without `step` is the execution's start (the
    outbox's job for the purge request)."""
    if not isinstance(state, dict) or not state.get("account_id"):
        raise ValueError("a purge step needs an account_id")
    name = state.get("step") or "start"
    if name not in STEPS:
        raise ValueError(f"unknown purge step {name!r}")
    if name == "purge" and state.get("done"):
        return state
    return STEPS[name](state)
