"""Flag: another server reports local accounts and statuses to our moderators (Mastodon's
ActivityPub::Activity::Flag).

Each local account among the objects gets a report filed by the Flag's actor (a remote
account, usually the other server's instance actor), with the reported statuses among the
objects that are that account's, the Flag's `content` as comment (5,000 characters at most)
and its id as `uri`. It is staff's like any report: the `admin.report` notification follows
from the stream. Nothing is filed for a domain whose reports are rejected (`reject_reports`),
or against suspended accounts."""

from __future__ import annotations

from typing import Any

from stratus.core import clock, ids
from stratus.federation.inbox.common import (
    Context,
    domain,
    local_account_id,
    local_status_id,
    object_id,
)
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import reports as reports_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import transaction

COMMENT_LIMIT = 5000  # Mastodon's Flag#report_comment


def _objects(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [found for v in values if (found := object_id(v))]


def handle(ctx: Context) -> None:
    if domain_blocks.policy_for(domain(ctx.actor["uri"]) or "").reject_reports:
        return
    uris = _objects(ctx.object)
    targets = list(dict.fromkeys(a for a in map(local_account_id, uris) if a))
    status_ids = [s for s in map(local_status_id, uris) if s]
    statuses = statuses_repo.get_many(status_ids) if status_ids else {}
    profiles = {t: accounts_repo.get_profile(t) for t in targets}
    comment = ctx.activity.get("content")
    comment = comment[:COMMENT_LIMIT] if isinstance(comment, str) else ""
    now = clock.iso(clock.now())
    ops = []
    for target_id in targets:
        profile = profiles.get(target_id)
        if profile is None or profile.get("suspended_at"):
            continue
        report = {"id": ids.new_id(), "account_id": ctx.actor_id, "target_id": target_id,
                  "status_ids": [s for s, item in statuses.items()
                                 if item["account_id"] == target_id],
                  "comment": comment, "category": "other", "forward": False,
                  "forwarded": False, "uri": ctx.activity["id"],
                  "notify_staff": not reports_repo.has_open_against(target_id),
                  "created_at": now, "updated_at": now}
        ops.append(reports_repo.create_op(report))
    if ops:
        transaction.write(ops)
