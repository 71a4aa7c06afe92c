"""The WebPushSubscription entity (REST::WebPushSubscriptionSerializer)."""

from __future__ import annotations

from typing import Any

# The alert types of the documented WebPushSubscription entity, always rendered (false unless
# chosen). Mastodon accepts an alert for every notification type; the two it added in 4.5 are
# kept and rendered when a client sends them.
ALERT_TYPES = ("mention", "status", "reblog", "follow", "follow_request", "favourite", "poll",
               "update", "admin.sign_up", "admin.report")
MORE_ALERT_TYPES = ("quote", "quoted_update")


def subscription(item: dict[str, Any], server_key: str) -> dict[str, Any]:
    """id, endpoint, standard, alerts, server_key (the instance's VAPID public key), policy."""
    stored = item.get("alerts") or {}
    alerts = {kind: bool(stored.get(kind, False)) for kind in ALERT_TYPES}
    alerts.update({kind: bool(stored[kind]) for kind in MORE_ALERT_TYPES if kind in stored})
    return {"id": str(item["id"]), "endpoint": item["endpoint"],
            "standard": bool(item.get("standard", False)), "alerts": alerts,
            "server_key": server_key,
            "policy": item.get("policy") or "all"}
