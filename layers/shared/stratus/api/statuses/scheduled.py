"""Scheduled statuses: kept as items until their time, then published exactly once by the
timer job (EventBridge Scheduler one-off schedule → timers queue → worker)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from stratus.api.statuses import post as posting
from stratus.convert import statuses as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.paging import Page
from stratus.jobs import messages as jobs
from stratus.model.viewer import Viewer
from stratus.read import statuses as statuses_read
from stratus.repo import base, keys, scheduler
from stratus.repo import statuses as repo
from stratus.repo.base import ConditionFailed

MINIMUM_DELAY = timedelta(minutes=5)
TOO_SOON = "Validation failed: Scheduled at The scheduled date must be in the future"


def _when(raw: Any, invalid: str = "Validation failed: Scheduled at is invalid") -> datetime:
    try:
        when = clock.parse_iso(str(raw))
    except ValueError:
        raise Unprocessable(invalid) from None
    if when < clock.now() + MINIMUM_DELAY:
        raise Unprocessable(TOO_SOON)
    return when


def _name(scheduled_id: str) -> str:
    return f"scheduled-status-{scheduled_id}"


def render(item: dict[str, Any]) -> dict[str, Any]:
    media = repo.get_media(item["params"].get("media_ids") or [])
    return convert.scheduled_status(item, [convert.media_attachment(media[m])
                                           for m in item["params"].get("media_ids") or []
                                           if m in media])


def create(viewer: Viewer, params: dict[str, Any], scheduled_at: Any) -> dict[str, Any]:
    # PostStatusService turns an unparseable date into a bare ActiveRecord::RecordInvalid.
    when = _when(scheduled_at, invalid="Record invalid")
    prepared = posting.prepare(viewer, params)
    if prepared.get("in_reply_to_id"):
        statuses_read.visible_item(str(prepared["in_reply_to_id"]), viewer.account_id)
    scheduled_id = ids.new_id()
    from stratus.api.oauth import oauth

    app = oauth.get_app(viewer.token.get("client_id"))
    stored = {k: v for k, v in prepared.items() if k != "allowed_mentions"}
    stored["application_id"] = app["id"] if app else None
    item = {"id": scheduled_id, "account_id": viewer.account_id,
            "scheduled_at": clock.iso(when), "params": stored,
            "application": {"name": app["name"], "website": app.get("website")} if app else None}
    ops = [base.put_new({**keys.scheduled_status(scheduled_id), "type": "scheduled_status",
                         **keys.scheduled_index_keys(viewer.account_id, scheduled_id), **item})]
    for media_id in prepared["media_ids"]:
        ops.append(base.Op("Update", key=keys.media(media_id),
                           expression="SET scheduled_status_id = :s REMOVE #ttl",
                           condition="account_id = :me AND attribute_not_exists(status_id) "
                                     "AND attribute_not_exists(scheduled_status_id)",
                           names={"#ttl": "ttl"}, vals={":s": scheduled_id,
                                                        ":me": viewer.account_id},
                           on_conflict=Unprocessable("Validation failed: Media attachments "
                                                     "could not be found")))
    base.transact(ops)
    scheduler.schedule(_name(scheduled_id), when,
                       jobs.PublishScheduled(scheduled_status_id=scheduled_id).to_dict())
    return render(item)


def _own(viewer: Viewer, scheduled_id: str) -> dict[str, Any]:
    item = repo.get_scheduled(scheduled_id) if ids.is_id(str(scheduled_id)) else None
    if item is None or item["account_id"] != viewer.account_id:
        raise NotFound()
    return item


def show(viewer: Viewer, scheduled_id: str) -> dict[str, Any]:
    return render(_own(viewer, scheduled_id))


def list_(viewer: Viewer, page: Page) -> list[dict[str, Any]]:
    lo, hi = keys.id_range(*page.id_range())
    entries = []
    for entry in repo.scheduled_entries(viewer.account_id, lo, hi, descending=not page.ascending):
        entries.append(entry)
        if len(entries) >= page.limit:
            break
    if page.ascending:
        entries.reverse()
    items = repo.get_items([{"PK": e["PK"], "SK": e["SK"]} for e in entries])
    by_id = {i["id"]: i for i in items}
    return [render(by_id[e["id"]]) for e in entries if e["id"] in by_id]


def move(viewer: Viewer, scheduled_id: str, scheduled_at: Any) -> dict[str, Any]:
    item = _own(viewer, scheduled_id)
    when = _when(scheduled_at)
    base.transact([base.set_op(keys.scheduled_status(scheduled_id),
                               {"scheduled_at": clock.iso(when)})])
    scheduler.schedule(_name(scheduled_id), when,
                       jobs.PublishScheduled(scheduled_status_id=scheduled_id).to_dict())
    return render({**item, "scheduled_at": clock.iso(when)})


def cancel(viewer: Viewer, scheduled_id: str) -> None:
    item = _own(viewer, scheduled_id)
    expiry = int((clock.now() + timedelta(days=1)).timestamp())
    ops = [base.Op("Delete", key=keys.scheduled_status(scheduled_id),
                   condition="attribute_exists(PK)", on_conflict=NotFound())]
    for media_id in item["params"].get("media_ids") or []:
        ops.append(base.Op("Update", key=keys.media(media_id),
                           expression="REMOVE scheduled_status_id SET #ttl = :ttl",
                           names={"#ttl": "ttl"}, vals={":ttl": expiry}))
    base.transact(ops)
    scheduler.cancel(_name(scheduled_id))


def publish(scheduled_id: str) -> str | None:
    """Publish a scheduled status (timer job). Exactly once: the scheduled item's conditional
    delete is part of the transaction that creates the status; a repeat finds nothing."""
    item = repo.get_scheduled(scheduled_id)
    if item is None:
        return None
    from stratus.auth import identity

    viewer = identity.viewer_for_account(item["account_id"])
    if viewer is None:  # the account is gone, and its schedule with it
        base.transact([base.Op("Delete", key=keys.scheduled_status(scheduled_id))])
        return None
    status_item, ops = posting.build(viewer, dict(item["params"]),
                                      application=item.get("application"),
                                      scheduled_id=scheduled_id)
    ops = [base.Op("Delete", key=keys.scheduled_status(scheduled_id),
                   condition="attribute_exists(PK)"), *ops]
    try:
        base.transact(ops)
    except ConditionFailed:
        return None  # already published by an earlier delivery
    posting.after_create(status_item)
    return status_item["id"]
