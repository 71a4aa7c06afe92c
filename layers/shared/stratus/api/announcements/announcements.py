"""Announcements: staff write them (admin API, stratusctl), users list, dismiss and react.

Mastodon's Announcement: `text` rendered like a status (mentions of known accounts, hashtags,
links, custom emoji listed), `starts_at`/`ends_at` (both or neither), `all_day`, published now
or at `scheduled_at` (a one-off schedule → the timers queue → workers/timers.py publishes it,
exactly once: a conditional write). Users see published announcements; a dismissal marks one read; reactions
are one item per user and name, counted per name by the counters worker from the stream (no
reactor ever writes a shared item), and the `announcement*` streaming events come from the
outbox (jobs/outbox.py). Design: docs/data-model.md, "Announcements".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stratus.core import clock, ids
from stratus.core.config import settings
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.read.announcements import render
from stratus.repo import announcements as repo
from stratus.repo import audit, scheduler, transaction
from stratus.repo import instance as instance_repo
from stratus.text import formatter, links

REACTION_LIMIT = 8  # distinct names per announcement (Mastodon's ReactionValidator::LIMIT)
UNRECOGNIZED = "Validation failed: Name is not a recognized emoji"
LIMIT_REACHED = "Validation failed: Limit of different reactions reached"


def _schedule_name(announcement_id: str) -> str:
    return f"announcement-{announcement_id}"


def _order(item: dict[str, Any]) -> str:
    """Mastodon's `chronological`: COALESCE(starts_at, scheduled_at, published_at, created_at)."""
    return next(item[k] for k in ("starts_at", "scheduled_at", "published_at", "created_at")
                if item.get(k))


# --- users -------------------------------------------------------------------------------------
def list_for(viewer: Viewer, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Published announcements, oldest first; dismissed ones only with `with_dismissed` (the
    documented parameter). Two Queries, then one batched rendering."""
    items, reactions = repo.everything()
    dismissed, reacted = repo.viewer_marks(viewer.account_id)
    wanted = [i for i in items if i.get("published")
              and (flag(params.get("with_dismissed")) or str(i["id"]) not in dismissed)]
    wanted.sort(key=_order)
    return render(wanted, reactions, viewer_id=viewer.account_id, dismissed=dismissed,
                  reacted=reacted)


def _published(announcement_id: str) -> dict[str, Any]:
    item = repo.get(announcement_id) if ids.is_id(str(announcement_id)) else None
    if item is None or not item.get("published"):
        raise NotFound()
    return item


def dismiss(viewer: Viewer, announcement_id: str) -> None:
    _published(announcement_id)
    repo.dismiss(viewer.account_id, str(announcement_id), clock.iso(clock.now()))


def _custom_emoji(name: str) -> dict[str, Any] | None:
    found = instance_repo.get_emoji(name) if formatter.SHORTCODE.fullmatch(f":{name}:") else None
    return found if found and not found.get("disabled") else None


def react(viewer: Viewer, announcement_id: str, name: str) -> None:
    """Mastodon's AnnouncementReaction: a unicode emoji or an enabled local custom emoji's
    shortcode; at most 8 different names per announcement."""
    if not ids.is_id(str(announcement_id)):
        raise NotFound()
    item, counters = repo.with_reactions(str(announcement_id))
    if item is None or not item.get("published"):
        raise NotFound()
    custom = _custom_emoji(name)
    import emoji as unicode_emoji  # lazy: its tables are ~25 ms of INIT

    if not name or (custom is None and not unicode_emoji.is_emoji(name)):
        raise Unprocessable(UNRECOGNIZED)
    others = {c["name"] for c in counters if int(c.get("count", 0)) > 0 and c["name"] != name}
    if name not in {c["name"] for c in counters if int(c.get("count", 0)) > 0} and \
            len(others) >= REACTION_LIMIT:
        raise Unprocessable(LIMIT_REACHED)
    repo.add_reaction(viewer.account_id, str(announcement_id), name, ids.new_id(),
                      name if custom else None, clock.iso(clock.now()))


def unreact(viewer: Viewer, announcement_id: str, name: str) -> None:
    _published(announcement_id)
    if not repo.remove_reaction(viewer.account_id, str(announcement_id), name):
        raise NotFound()


# --- staff -------------------------------------------------------------------------------------
def _time(params: dict[str, Any], name: str) -> str | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return clock.iso(clock.parse_iso(str(raw)))
    except ValueError:
        raise Unprocessable(f"Validation failed: {name.replace('_', ' ').capitalize()} "
                            "is invalid") from None


def admin_render_many(items: list[dict[str, Any]], reactions: dict[str, list[dict[str, Any]]]
                      ) -> list[dict[str, Any]]:
    """The staff view (beyond Mastodon, which has no admin API for announcements): the
    Announcement entity as users see it without a viewer, plus `text`, `published`,
    `scheduled_at` and `created_at`; one batched rendering for all of them."""
    return [{**entity, "text": item["text"], "published": bool(item.get("published")),
             "scheduled_at": item.get("scheduled_at"), "created_at": item["created_at"]}
            for item, entity in zip(items, render(items, reactions, viewer_id=None))]


def admin_render(item: dict[str, Any], reactions: list[dict[str, Any]] | None = None
                 ) -> dict[str, Any]:
    return admin_render_many([item], {str(item["id"]): reactions or []})[0]


def admin_list() -> list[dict[str, Any]]:
    """Every announcement, newest first (Mastodon's admin `reverse_chronological`)."""
    items, reactions = repo.everything()
    items.sort(key=_order, reverse=True)
    return admin_render_many(items, reactions)


def _existing(announcement_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if not ids.is_id(str(announcement_id)):
        raise NotFound()
    item, reactions = repo.with_reactions(str(announcement_id))
    if item is None:
        raise NotFound()
    return item, reactions


def admin_get(announcement_id: str) -> dict[str, Any]:
    return admin_render(*_existing(announcement_id))


def _validated(item: dict[str, Any]) -> None:
    if not str(item.get("text") or "").strip():
        raise Unprocessable("Validation failed: Text can't be blank")
    if item.get("ends_at") and not item.get("starts_at"):
        raise Unprocessable("Validation failed: Starts at can't be blank")
    if item.get("starts_at") and not item.get("ends_at"):
        raise Unprocessable("Validation failed: Ends at can't be blank")


def _apply(item: dict[str, Any], params: dict[str, Any], now: datetime) -> tuple[dict, str | None]:
    """The fields a request sets, and whether it publishes (`publish`/`unpublish`/None). Without
    `published`, Mastodon's rule: published at once unless `scheduled_at` is in the future."""
    changed = dict(item)
    if "text" in params:
        changed["text"] = str(params.get("text") or "")
    for name in ("starts_at", "ends_at", "scheduled_at"):
        if name in params:
            changed[name] = _time(params, name)
    if "all_day" in params:
        changed["all_day"] = flag(params.get("all_day"))
    _validated(changed)
    wanted: bool | None = flag(params["published"]) if "published" in params and \
        params["published"] not in (None, "") else None
    future = changed.get("scheduled_at") and clock.parse_iso(changed["scheduled_at"]) > now
    if wanted is None and "scheduled_at" in params:
        wanted = not future
    if wanted is None and not item.get("id"):
        wanted = True
    action = None
    if wanted is True and not item.get("published"):
        action = "publish"
        changed.update(published=True, published_at=clock.iso(now), scheduled_at=None)
    elif wanted is True:
        changed["scheduled_at"] = None
    elif wanted is False and item.get("published"):
        action = "unpublish"
        changed["published"] = False
        if "scheduled_at" not in params:
            changed["scheduled_at"] = None
    else:
        changed.setdefault("published", False)
    if changed.get("published"):
        # Local statuses the text links to, kept on the item when it is published.
        changed["status_ids"] = links.local_status_ids(changed["text"], settings().base_url)
    return changed, action


def _audit(actor: Viewer, action: str, item: dict[str, Any]) -> transaction.Op:
    return audit.entry_op({"id": ids.new_id(), "account_id": actor.account_id, "action": action,
                           "target_type": "Announcement", "target_id": str(item["id"]),
                           "human_identifier": item["text"][:200],
                           "created_at": clock.iso(clock.now())})


def _stored(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None}


def _reschedule(item: dict[str, Any], before: dict[str, Any] | None = None) -> None:
    """A one-off schedule for an unpublished announcement with a future `scheduled_at`; the
    earlier one cancelled when it no longer has one."""
    if not item.get("published") and item.get("scheduled_at"):
        from stratus.jobs import messages as jobs  # lazy: its job classes are ~25 ms of INIT

        scheduler.schedule(_schedule_name(item["id"]), clock.parse_iso(item["scheduled_at"]),
                           jobs.PublishAnnouncement(announcement_id=item["id"],
                                                    scheduled_at=item["scheduled_at"]).to_dict())
    elif before is not None and before.get("scheduled_at"):
        scheduler.cancel(_schedule_name(item["id"]))


def create(actor: Viewer | None, params: dict[str, Any]) -> dict[str, Any]:
    now = clock.now()
    fresh = {"text": "", "all_day": False, "published": False}
    item, action = _apply(fresh, params, now)
    if item.get("scheduled_at") and not item.get("published") and \
            clock.parse_iso(item["scheduled_at"]) <= now:
        raise Unprocessable("Validation failed: Scheduled at must be in the future")
    item.update(id=ids.new_id(), created_at=clock.iso(now), updated_at=clock.iso(now),
                version=1)
    item = _stored(item)
    ops = [repo.create_op(item)]
    if actor is not None:
        ops.append(_audit(actor, "create", item))
    transaction.write(ops)
    _reschedule(item)
    return admin_render(item)


def update(actor: Viewer | None, announcement_id: str, params: dict[str, Any]
           ) -> dict[str, Any]:
    current, reactions = _existing(announcement_id)
    item, action = _apply({k: v for k, v in current.items()}, params, clock.now())
    item.update(updated_at=clock.iso(clock.now()), version=int(current.get("version", 1)) + 1)
    item = _stored(item)
    ops = [repo.replace_op(item, int(current.get("version", 1)))]
    if actor is not None:
        ops.append(_audit(actor, "update", item))
        if action:
            ops.append(_audit(actor, action, item))
    try:
        transaction.write(ops)
    except transaction.ConditionFailed:
        raise Unprocessable("Validation failed: the announcement changed meanwhile; "
                            "try again") from None
    _reschedule(item, current)
    return admin_render(item, reactions)


def destroy(actor: Viewer | None, announcement_id: str) -> None:
    current, _ = _existing(announcement_id)
    ops = repo.delete_ops(str(current["id"]), int(current.get("version", 1)))
    if actor is not None:
        ops.append(_audit(actor, "destroy", current))
    try:
        transaction.write(ops)
    except transaction.ConditionFailed:
        raise Unprocessable("Validation failed: the announcement changed meanwhile; "
                            "try again") from None
    if current.get("scheduled_at"):
        scheduler.cancel(_schedule_name(current["id"]))
