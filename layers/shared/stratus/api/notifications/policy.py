"""The notification policy (GET and PATCH /api/v2/notifications/policy): what is accepted,
filtered into requests or dropped, with a summary of the pending requests."""

from __future__ import annotations

from typing import Any

from stratus.convert import notifications as convert
from stratus.core import clock
from stratus.core.errors import Unprocessable
from stratus.model.viewer import Viewer
from stratus.read import notification_rules
from stratus.repo import notifications as repo

REQUEST_SUMMARY_LIMIT = 100  # Mastodon's NotificationPolicy::MAX_MEANINGFUL_COUNT


def _requests_summary(viewer: Viewer) -> tuple[int, int]:
    requests = repo.requests(viewer.account_id, None, None, True, limit=REQUEST_SUMMARY_LIMIT)
    return len(requests), sum(max(int(r.get("notifications_count", 0)), 0) for r in requests)


def get_policy(viewer: Viewer) -> dict[str, Any]:
    values = notification_rules.policy_of(repo.get_policy(viewer.account_id))
    return convert.policy(values, *_requests_summary(viewer))


def update_policy(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    changes = {}
    for name in notification_rules.POLICY_FIELDS:
        value = params.get(name)
        if value is None:
            continue
        if value not in (notification_rules.ACCEPT, notification_rules.FILTER,
                         notification_rules.DROP):
            label = name.replace("_", " ").capitalize()
            raise Unprocessable(f"Validation failed: {label} is not included in the list")
        changes[name] = value
    if changes:
        repo.set_policy(viewer.account_id, changes, clock.iso(clock.now()))
    return get_policy(viewer)
