"""Staff review of trends (Mastodon's Api::V1::Admin::Trends::*): every ranked hashtag, status,
link and publisher, allowed or not, and approving or rejecting one — recorded on its trend
record, shown in the ranking at once, and written to the audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stratus.api.trends.ranking import link_id
from stratus.api.trends.trends import link_entities
from stratus.convert import admin as convert_admin
from stratus.convert import tags as convert_tags
from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.read import status_views
from stratus.read import trends as trends_read
from stratus.read.trends import LINKS, PUBLISHERS, STATUSES, TAGS
from stratus.repo import audit, transaction
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as tags_repo
from stratus.repo import trends as repo


def _admin_tag(record: dict[str, Any], stats: dict[str, Any] | None, now: datetime
               ) -> dict[str, Any]:
    name = record["name"]
    return {**convert_tags.hashtag(name, name, stats, None, now=now),
            "trendable": trends_read.allowed(record),
            "usable": True, "listable": True,
            "requires_review": bool(record.get("requested_review_at"))
            and not record.get("reviewed_at")}


def admin_tags(offset: int, limit: int) -> list[dict[str, Any]]:
    """Every ranked hashtag, allowed or not, best first (Admin::Tag)."""
    items = trends_read.ranked(TAGS)[offset:offset + limit]
    records = repo.records(TAGS, [i["id"] for i in items])
    stats, _ = tags_repo.load([i["name"] for i in items], None)
    now = clock.now()
    return [_admin_tag(records.get(i["id"]) or {"name": i["name"]}, stats.get(i["name"]), now)
            for i in items]


def admin_statuses(viewer_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
    """Every ranked status, allowed or not, best first (Status entities)."""
    wanted = [i["id"] for i in trends_read.ranked(STATUSES)[offset:offset + limit]]
    found = statuses_repo.get_many(wanted)
    return status_views.render([found[i] for i in wanted if i in found], viewer_id)


def _decide(actor: Any, kind: str, ident: str, allowed: bool, extra: dict[str, Any],
            target_type: str, human: str) -> None:
    """The review and its audit log entry in one transaction; then the ranking shows it (the
    next refresh would anyway)."""
    transaction.write([repo.review_op(kind, ident, allowed, clock.iso(clock.now()), extra),
                       _log_op(actor, allowed, target_type, ident, human)])
    repo.set_allowed(kind, ident, allowed)


def review_tag(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    """Approve or reject a hashtag for trends (it must have been seen trending)."""
    record = repo.record(TAGS, ident) if ids.is_id(ident) else None
    if record is None or not record.get("name"):
        raise NotFound()
    _decide(actor, TAGS, ident, allowed, {}, "Tag", record["name"])
    stats, _ = tags_repo.load([record["name"]], None)
    return _admin_tag(repo.record(TAGS, ident) or record, stats.get(record["name"]), clock.now())


def review_status(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    """Approve or reject a status for trends (any status that exists)."""
    status = statuses_repo.get(ident) if ids.is_id(ident) else None
    if status is None:
        raise NotFound()
    _decide(actor, STATUSES, ident, allowed, {"account_id": status["account_id"]}, "Status",
            status.get("uri") or ident)
    return status_views.render_one(status, actor.account_id)


def _log_op(actor: Any, allowed: bool, target_type: str, target_id: str, human: str
            ) -> transaction.Op:
    return audit.entry_op({
        "id": ids.new_id(), "account_id": actor.account_id,
        "action": "approve" if allowed else "reject", "target_type": target_type,
        "target_id": target_id, "human_identifier": human,
        "created_at": clock.iso(clock.now())})


# --- links and publishers ------------------------------------------------------------------
def admin_links(offset: int, limit: int) -> list[dict[str, Any]]:
    """Every ranked link, allowed or not, with its id and whether it awaits review."""
    items = trends_read.ranked(LINKS)[offset:offset + limit]
    records = repo.records(LINKS, [i["id"] for i in items])
    return [{**entity, "id": item["id"],
             "requires_review": convert_admin.requires_review(records.get(item["id"]))}
            for item, entity in link_entities(items)]


def review_link(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    record = repo.record(LINKS, ident) if ids.is_id(ident) else None
    if record is None or not record.get("url"):
        raise NotFound()
    _decide(actor, LINKS, ident, allowed, {}, "PreviewCard", record["url"])
    (item, entity), = link_entities([{"id": ident, "url": record["url"]}]) or [(None, None)]
    if entity is None:
        raise NotFound()
    return {**entity, "id": ident, "requires_review": False}


def admin_publishers(offset: int, limit: int) -> list[dict[str, Any]]:
    """The publishers of ranked links."""
    idents = list(dict.fromkeys(link_id(i["publisher"]) for i in trends_read.ranked(LINKS)))
    records = repo.records(PUBLISHERS, idents[offset:offset + limit])
    return [convert_admin.publisher(records[i]) for i in idents[offset:offset + limit]
            if i in records]


def review_publisher(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    """Approving a publisher lets its links trend unless a link was itself rejected."""
    record = repo.record(PUBLISHERS, ident) if ids.is_id(ident) else None
    if record is None or not record.get("domain"):
        raise NotFound()
    transaction.write([repo.review_op(PUBLISHERS, ident, allowed, clock.iso(clock.now())),
                       _log_op(actor, allowed, "PreviewCardProvider", ident, record["domain"])])
    own = repo.records(LINKS, [i["id"] for i in trends_read.ranked(LINKS)
                               if link_id(i["publisher"]) == ident])
    for item in trends_read.ranked(LINKS):
        if link_id(item["publisher"]) == ident and (own.get(item["id"]) or {}).get(
                "trendable") is None:
            repo.set_allowed(LINKS, item["id"], allowed)
    return convert_admin.publisher(repo.record(PUBLISHERS, ident) or record)
