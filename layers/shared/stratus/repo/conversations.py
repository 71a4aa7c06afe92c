"""Conversations (Mastodon's AccountConversation): one item per user and conversation, in the
user's partition under the conversation's id, listed by GSI1 in the order of their last status.

The effects worker changes an item by reading it and writing it back on the condition that its
`version` is still the one it read (Mastodon's `lock_version`): concurrent deliveries of two
statuses of one conversation never lose one. The API only flips `unread` or deletes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys
from stratus.repo.client import dynamodb
from stratus.repo.relationships import BLOCK, DOMAIN_BLOCK, FOLLOW, MUTE

CONVERSATION = "account_conversation"
THREAD_MUTE = "conversation_mute"  # a muted thread (POST /api/v1/statuses/:id/mute)


def get(account_id: str, conversation_id: str, *, consistent: bool = False
        ) -> dict[str, Any] | None:
    return base.record(base.get(keys.conversation(account_id, conversation_id),
                                consistent=consistent))


def create(account_id: str, conversation_id: str, thread_id: str, participant_ids: list[str],
           status_ids: list[str], unread: bool) -> bool:
    """Write a new conversation (`status_ids` in id order); False if one with its id exists
    (made concurrently)."""
    return base.put({**keys.conversation(account_id, conversation_id), "type": CONVERSATION,
                     "id": conversation_id, "account_id": account_id, "thread_id": thread_id,
                     "participant_ids": participant_ids, "status_ids": status_ids,
                     "last_status_id": status_ids[-1], "unread": unread, "version": 1,
                     **keys.conversation_index_keys(account_id, status_ids[-1])},
                    condition="attribute_not_exists(PK)")


def _conditional(call: Any, **kwargs: Any) -> bool:
    try:
        call(TableName=base.table(), **kwargs)
    except dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


def _key(current: dict[str, Any]) -> dict[str, str]:
    return keys.conversation(current["account_id"], current["id"])


def set_statuses(current: dict[str, Any], status_ids: list[str], unread: bool) -> bool:
    """Replace a conversation's statuses (id order) if it is still at the version read; False
    when it changed or went meanwhile (read it again)."""
    last = status_ids[-1]
    return _conditional(
        dynamodb().update_item, Key=base.serialize(_key(current)),
        UpdateExpression="SET status_ids = :ids, last_status_id = :last, unread = :unread, "
                         "#v = :next, GSI1SK = :sk",
        ConditionExpression="#v = :read",
        ExpressionAttributeNames={"#v": "version"},
        ExpressionAttributeValues=base.values({
            ":ids": status_ids, ":last": last, ":unread": unread,
            ":next": int(current["version"]) + 1, ":read": int(current["version"]),
            ":sk": keys.conversation_index_keys(current["account_id"], last)["GSI1SK"]}))


def remove(current: dict[str, Any]) -> bool:
    """Delete a conversation if it is still at the version read."""
    return _conditional(
        dynamodb().delete_item, Key=base.serialize(_key(current)),
        ConditionExpression="#v = :read", ExpressionAttributeNames={"#v": "version"},
        ExpressionAttributeValues=base.values({":read": int(current["version"])}))


def delete(account_id: str, conversation_id: str) -> bool:
    """Delete a user's conversation; False if there was none."""
    return base.delete(keys.conversation(account_id, conversation_id), returning=True) is not None


def set_unread(account_id: str, conversation_id: str, unread: bool) -> dict[str, Any] | None:
    """Mark a user's conversation (un)read; returns it, or None if there is none."""
    found: list[dict[str, Any]] = []
    key = base.serialize(keys.conversation(account_id, conversation_id))

    def update(**kwargs: Any) -> None:
        found.append(base.deserialize(dynamodb().update_item(**kwargs)["Attributes"]))

    if not _conditional(update, Key=key, UpdateExpression="SET unread = :unread",
                        ConditionExpression="attribute_exists(PK)",
                        ExpressionAttributeValues=base.values({":unread": unread}),
                        ReturnValues="ALL_NEW"):
        return None
    return base.record(found[0])


def page(account_id: str, low: int | None, high: int | None, descending: bool, limit: int
         ) -> list[dict[str, Any]]:
    """Up to `limit` of a user's conversations whose last status id lies in [low, high] (None:
    unbounded), newest last status first (or oldest, not `descending`): one Query, one batched
    read."""
    entries = list(base.query(keys.conversations_of(account_id), index="GSI1",
                              sk_between=keys.id_range(low, high), descending=descending,
                              limit=limit))
    found = {i["id"]: i for i in base.batch_get(
        [keys.conversation(account_id, e["id"]) for e in entries])}
    return [base.record(found[e["id"]]) for e in entries if e["id"] in found]


# --- who receives a direct status -----------------------------------------------------------------
@dataclass
class Recipient:
    """What a mentioned account has to do with a direct status: whether it is a usable local
    user, the accounts it blocks or mutes with notifications among those involved, whether it
    muted the thread, follows the author or blocks the author's domain."""

    user: bool = False
    excluded: set[str] = field(default_factory=set)
    muted_thread: bool = False
    follows_author: bool = False
    blocks_domain: bool = False


def recipients(recipient_ids: Iterable[str], author_id: str, involved: Iterable[str],
               thread_id: str, author_domain: str | None) -> dict[str, Recipient]:
    """One batched read for every recipient: their account and user, their blocks and mutes
    of the `involved` accounts (the author, the mentioned, the replied-to), their mute of the
    thread, their follow of the author and their block of its domain."""
    wanted = list(dict.fromkeys(recipient_ids))
    others = [a for a in dict.fromkeys(involved) if a]
    item_keys = accounts_repo.bundle_keys(wanted, (accounts_repo.PROFILE, accounts_repo.USER))
    for r in wanted:
        item_keys += [keys.muted_thread(r, thread_id), keys.follow(r, author_id)]
        item_keys += [k for a in others if a != r for k in (keys.block(r, a), keys.mute(r, a))]
        if author_domain:
            item_keys.append(keys.user_domain_block(r, author_domain))
    found = {r: Recipient() for r in wanted}
    for owner, bundle in accounts_repo.bundles(base.batch_get(item_keys)).items():
        seen = found.get(owner)
        if seen is None:
            continue
        profile = bundle.get(accounts_repo.PROFILE) or {}
        seen.user = accounts_repo.USER in bundle and bool(profile) and \
            not profile.get("domain") and not profile.get("suspended_at")
        for entry in bundle.values():
            kind = entry.get("type")
            if kind == BLOCK or (kind == MUTE and entry.get("hide_notifications", True)):
                seen.excluded.add(entry["target_id"])
            elif kind == DOMAIN_BLOCK:
                seen.blocks_domain = True
            elif kind == FOLLOW:
                seen.follows_author = True
            elif kind == THREAD_MUTE:
                seen.muted_thread = True
    return found
