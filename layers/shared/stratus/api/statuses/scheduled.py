"""Scheduled statuses: kept as items until their time (EventBridge Scheduler one-off schedule →
timers queue → workers/timers.publish_scheduled, exactly once); listed, moved and cancelled here."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from stratus.actions import posting
from stratus.convert import statuses as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.paging import Page
from stratus.model.viewer import Viewer
from stratus.read import statuses as statuses_read
from stratus.repo import scheduled as scheduled_repo
from stratus.repo import scheduler, transaction
from stratus.repo import statuses as repo

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


def schedule_name(scheduled_id: str) -> str:
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
    transaction.write(scheduled_repo.create_ops(
        item, prepared["media_ids"],
        media_taken=Unprocessable("Validation failed: Media attachments could not be found")))
    from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

    scheduler.schedule(schedule_name(scheduled_id), when,
                       jobs.PublishScheduled(scheduled_status_id=scheduled_id).to_dict())
    return render(item)


def _own(viewer: Viewer, scheduled_id: str) -> dict[str, Any]:
    item = scheduled_repo.get(scheduled_id) if ids.is_id(str(scheduled_id)) else None
    if item is None or item["account_id"] != viewer.account_id:
        raise NotFound()
    return item


def show(viewer: Viewer, scheduled_id: str) -> dict[str, Any]:
    return render(_own(viewer, scheduled_id))


def list_(viewer: Viewer, page: Page) -> list[dict[str, Any]]:
    items = scheduled_repo.page(viewer.account_id, *page.id_range(),
                                descending=not page.ascending, limit=page.limit)
    if page.ascending:
        items.reverse()
    return [render(item) for item in items]


def move(viewer: Viewer, scheduled_id: str, scheduled_at: Any) -> dict[str, Any]:
    item = _own(viewer, scheduled_id)
    when = _when(scheduled_at)
    scheduled_repo.move(scheduled_id, clock.iso(when))
    from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

    scheduler.schedule(schedule_name(scheduled_id), when,
                       jobs.PublishScheduled(scheduled_status_id=scheduled_id).to_dict())
    return render({**item, "scheduled_at": clock.iso(when)})


def cancel(viewer: Viewer, scheduled_id: str) -> None:
    item = _own(viewer, scheduled_id)
    expiry = int((clock.now() + timedelta(days=1)).timestamp())
    transaction.write([scheduled_repo.remove_op(scheduled_id, missing=NotFound()),
                       *scheduled_repo.release_media_ops(item["params"].get("media_ids") or [],
                                                         expiry)])
    scheduler.cancel(schedule_name(scheduled_id))

