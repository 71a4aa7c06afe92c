"""What happens to a notification about to be created, as Mastodon's NotifyService decides it:
dropped (never created), filtered (kept out of the lists, into a notification request) or
accepted — and for an accepted one of a groupable type, the group it joins.

The recipient's notification policy (`for_not_following`, `for_not_followers`,
`for_new_accounts`, `for_private_mentions`, `for_limited_accounts`: accept, filter or drop)
applies to the filterable types only, never to a sender the recipient accepted a request from,
and never to a private message from staff who outrank the recipient. Everything the decision
reads comes in one batched read (a conversation mute and a private mention's thread cost more
reads, only when they matter). Suppression from blocked and muted accounts is the social graph's
rule and is applied before this one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from stratus.core import clock
from stratus.model import roles
from stratus.read import roles as roles_read
from stratus.repo import notifications as repo

ACCEPT, FILTER, DROP = "accept", "filter", "drop"
POLICY_FIELDS = ("for_not_following", "for_not_followers", "for_new_accounts",
                 "for_private_mentions", "for_limited_accounts")
DEFAULT_POLICY = {"for_not_following": ACCEPT, "for_not_followers": ACCEPT,
                  "for_new_accounts": ACCEPT, "for_private_mentions": FILTER,
                  "for_limited_accounts": FILTER}
FILTERABLE = frozenset({"mention", "reblog", "follow", "follow_request", "favourite"})
WITH_STATUS = frozenset({"mention", "status", "reblog", "favourite", "poll", "update"})
# Mastodon 4.3 groups these (4.4 adds admin.sign_up): a favourite or a boost by status, follows
# all together; a group takes new members while it spans less than twelve hours.
GROUPED = frozenset({"favourite", "reblog", "follow"})
MAXIMUM_GROUP_SPAN_HOURS = 12
NEW_ACCOUNT = timedelta(days=30)
NEW_FOLLOWER = timedelta(days=3)
PRIVATE_MENTION_DEPTH = 100
# Mastodon's moderation permissions: a role with any of them, highlighted and placed above the
# recipient's, may message the recipient past their filters.
MODERATION = (roles.Permission.VIEW_DASHBOARD | roles.Permission.VIEW_AUDIT_LOG
              | roles.Permission.MANAGE_USERS | roles.Permission.MANAGE_USER_ACCESS
              | roles.Permission.DELETE_USER_DATA | roles.Permission.MANAGE_REPORTS
              | roles.Permission.MANAGE_APPEALS | roles.Permission.MANAGE_FEDERATION
              | roles.Permission.MANAGE_BLOCKS | roles.Permission.MANAGE_TAXONOMIES
              | roles.Permission.MANAGE_INVITES)


@dataclass(frozen=True)
class Decision:
    drop: bool = False
    filtered: bool = False
    group_key: str | None = None
    request_status_id: str | None = None  # a filtered mention opens a notification request


def policy_of(item: dict[str, Any] | None) -> dict[str, str]:
    item = item or {}
    return {name: item.get(name) or default for name, default in DEFAULT_POLICY.items()}


def _older_than(item: dict[str, Any] | None, age: timedelta) -> bool:
    """Whether an item was created more than `age` ago (an item without a date counts as old)."""
    created = (item or {}).get("created_at")
    return not created or clock.parse_iso(created) <= clock.now() - age


def _from_staff(sender_user: dict[str, Any] | None, recipient_user: dict[str, Any] | None
                ) -> bool:
    """Mastodon's `bypass_block?`: a highlighted moderation role above the recipient's."""
    if sender_user is None:
        return False
    sender = roles_read.role_for(sender_user.get("role_id"))
    recipient = roles_read.role_for((recipient_user or {}).get("role_id"))
    return sender.highlighted and sender.position > recipient.position and (
        bool(sender.permissions & roles.Permission.ADMINISTRATOR)
        or bool(sender.permissions & MODERATION))


def _answers_recipient(status: dict[str, Any], recipient_id: str, sender_id: str) -> bool:
    """A private mention that replies to a private mention of the sender by the recipient,
    somewhere up its thread (Mastodon looks 100 statuses up)."""
    parent_id = status.get("in_reply_to_id")
    for _ in range(PRIVATE_MENTION_DEPTH):
        if not parent_id:
            return False
        parent = repo.status(parent_id)
        if parent is None:
            return False
        if parent["account_id"] == recipient_id and parent.get("visibility") == "direct" and \
                sender_id in parent.get("mention_ids", []):
            return True
        parent_id = parent.get("in_reply_to_id")
    return False


def _verdict(kind: str, recipient_id: str, sender_id: str, inputs: dict[str, Any]) -> str:
    """The strictest answer of the policy's rules that apply to this sender."""
    policy = policy_of(inputs["policy"])
    sender = inputs["sender"] or {}
    status = inputs.get("status") or {}
    not_following = inputs["following"] is None
    not_follower = inputs["follower"] is None or not _older_than(inputs["follower"], NEW_FOLLOWER)
    applies = {
        "for_limited_accounts": bool(sender.get("silenced_at")) and not_following,
        "for_not_following": not_following,
        "for_not_followers": not_follower,
        "for_new_accounts": not _older_than(sender, NEW_ACCOUNT) and not_following,
    }
    answers = {policy[name] for name, hit in applies.items() if hit}
    if DROP not in answers and policy["for_private_mentions"] != ACCEPT and not_following and \
            kind == "mention" and status.get("visibility") == "direct" and \
            not _answers_recipient(status, recipient_id, sender_id):
        answers.add(policy["for_private_mentions"])
    return DROP if DROP in answers else FILTER if FILTER in answers else ACCEPT


def group_key_for(recipient_id: str, kind: str, status_id: str | None) -> str | None:
    """`<type>-<status id>-<hour>` for favourites and boosts, `follow-<hour>` for follows: the
    hour a group started, reused while the group spans less than twelve hours."""
    if kind not in GROUPED:
        return None
    prefix = f"{kind}-{status_id}" if kind != "follow" else kind
    bucket = int(clock.now().timestamp()) // 3600
    latest = repo.latest_group_key(recipient_id, prefix + "-")
    if latest is not None:
        previous = int(latest[len(prefix) + 1:])
        if bucket < previous + MAXIMUM_GROUP_SPAN_HOURS:
            bucket = previous
    return f"{prefix}-{bucket}"


def decide(recipient_id: str, kind: str, sender_id: str, status_id: str | None) -> Decision:
    """Drop, filter or accept a notification of `kind` from `sender_id` about `status_id`."""
    filterable = kind in FILTERABLE
    if not filterable and not (status_id and kind in WITH_STATUS):
        return Decision(group_key=group_key_for(recipient_id, kind, status_id))
    inputs = repo.policy_inputs(recipient_id, sender_id, status_id)
    if inputs["recipient_user"] is None:
        # no one here to tell: a remote account (its server hears of it by federation, e.g.
        # mentioned in a local post, the author of a status favourited here) or a gone one
        return Decision(drop=True)
    status = inputs.get("status")
    message = kind == "mention"
    from_staff = message and _from_staff(inputs["sender_user"], inputs["recipient_user"])
    if status is not None and not from_staff and repo.conversation_muted(
            recipient_id, status.get("thread_id") or status["id"]):
        return Decision(drop=True)
    verdict = ACCEPT
    if filterable and inputs["permission"] is None and not from_staff:
        verdict = _verdict(kind, recipient_id, sender_id, inputs)
    if verdict == DROP:
        return Decision(drop=True)
    if verdict == FILTER:
        return Decision(filtered=True, request_status_id=status_id if message else None)
    return Decision(group_key=group_key_for(recipient_id, kind, status_id))
