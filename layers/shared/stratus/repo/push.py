"""Web push subscriptions (one per access token, in its user's partition) and the push worker's
reads: the recipient's subscriptions, the follow edges its policies ask about, and the
once-sentinels that make a redelivered job push nothing twice."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, dedupe, keys
from stratus.repo.client import dynamodb


def _item(subscription: dict[str, Any]) -> dict[str, Any]:
    return {**keys.push_subscription(subscription["account_id"], subscription["token_hash"]),
            "type": "push_subscription", **subscription}


def replace(subscription: dict[str, Any]) -> None:
    """The token's subscription, replacing the one it had (Mastodon: POST deletes the old)."""
    base.put(_item(subscription))


def get(account_id: str, token_hash: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.push_subscription(account_id, token_hash),
                                consistent=True))


def update_data(account_id: str, token_hash: str, alerts: dict[str, bool], policy: str
                ) -> dict[str, Any] | None:
    """Replace the alerts and the policy of the token's subscription; None if it has none."""
    try:
        return base.record(base.update(keys.push_subscription(account_id, token_hash),
                                       "SET alerts = :alerts, #policy = :policy",
                                       names={"#policy": "policy"},
                                       vals={":alerts": alerts, ":policy": policy},
                                       condition="attribute_exists(PK)"))
    except dynamodb().exceptions.ConditionalCheckFailedException:
        return None


def delete(account_id: str, token_hash: str) -> None:
    base.delete(keys.push_subscription(account_id, token_hash))


def delete_op(account_id: str, token_hash: str) -> base.Op:
    """The subscription goes with its token (in the token's deletion transaction)."""
    return base.Op("Delete", key=keys.push_subscription(account_id, token_hash))


def remove_gone(subscription: dict[str, Any]) -> bool:
    """Delete a subscription the push service says is gone, unless it was replaced since it
    was read (a new POST under the same token keeps its new endpoint)."""
    try:
        dynamodb().delete_item(
            TableName=base.table(), Key=base.serialize(
                keys.push_subscription(subscription["account_id"], subscription["token_hash"])),
            ConditionExpression="id = :id",
            ExpressionAttributeValues=base.values({":id": subscription["id"]}))
    except dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    return True


def of_account(account_id: str) -> list[dict[str, Any]]:
    """Every subscription of a user: one Query of their partition."""
    partition, prefix = keys.push_subscriptions_of(account_id)
    return list(base.records(base.query(partition, sk_prefix=prefix)))


def _sent_id(notification_id: str, subscription_id: str) -> str:
    return f"{notification_id}/{subscription_id}"


def already_sent(notification_id: str, subscription_ids: list[str]) -> set[str]:
    """The subscriptions this notification was pushed to already."""
    done = dedupe.marked("push", [_sent_id(notification_id, s) for s in subscription_ids])
    return {s for s in subscription_ids if _sent_id(notification_id, s) in done}


def mark_sent(notification_id: str, subscription_id: str) -> None:
    dedupe.mark("push", _sent_id(notification_id, subscription_id))
