"""Notification group heads, settled after the counters worker counted a batch: each head
carries its group's newest members (Mastodon's sample of 8 accounts) and sits at the newest
one's id in the grouped listing, so a page of groups needs no read per group.

A batch that only adds members merges them into the head's sample; one that removes any
(an undone like, a dismissal, a deleted status) rebuilds the sample from the group's members;
a head whose count reached zero is deleted (a new member recreates it). Heads are rewritten
under an optimistic lock (`sample_version`), so concurrent workers retry rather than lose a
member; everything here is idempotent, and runs for redelivered jobs too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stratus.jobs.messages import Count
from stratus.repo import notifications as repo

SAMPLE_ACCOUNTS = 8  # Mastodon's NotificationGroup::SAMPLE_ACCOUNTS_SIZE
ATTEMPTS = 5


@dataclass
class _Touched:
    added: dict[str, dict[str, Any]] = field(default_factory=dict)
    removed: bool = False


def member(item: dict[str, Any]) -> dict[str, Any]:
    """What a head keeps of a member notification."""
    return {"id": item["id"], "from_account_id": item["from_account_id"],
            "created_at": item.get("created_at")}


def _newest(members: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    unique = {m["id"]: m for m in members}
    return sorted(unique.values(), key=lambda m: int(m["id"]), reverse=True)[:SAMPLE_ACCOUNTS]


def settle(jobs: Sequence[Count]) -> None:
    touched: dict[tuple[str, str], _Touched] = {}
    for job in jobs:
        item = job.item
        if job.item_type != "notification" or not item.get("group_key"):
            continue
        change = touched.setdefault((item["account_id"], item["group_key"]), _Touched())
        if job.event == "INSERT":
            change.added[item["id"]] = member(item)
        else:
            change.removed = True
    for (account_id, group_key), change in touched.items():
        settle_group(account_id, group_key, change)


def settle_group(account_id: str, group_key: str, change: _Touched) -> None:
    for _ in range(ATTEMPTS):
        head = repo.group_for_update(account_id, group_key)
        if head is None:
            return  # not counted yet (a later delivery settles it), or gone with its members
        if int(head.get("notifications_count", 0)) <= 0:
            repo.prune_group(account_id, group_key)
            return
        if change.removed:
            alive = {m["id"] for m in repo.existing(account_id, list(change.added))}
            current = [member(m) for m in repo.members(account_id, group_key,
                                                       limit=SAMPLE_ACCOUNTS)]
            sample = _newest(current + [m for i, m in change.added.items() if i in alive])
        else:
            sample = _newest(list(head.get("samples", [])) + list(change.added.values()))
        if not sample or sample == head.get("samples"):
            return
        if repo.write_group(account_id, group_key, sample, head.get("sample_version")):
            return
