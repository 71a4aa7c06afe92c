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

import emoji as unicode_emoji

from stratus.actions.posting import render_text
from stratus.convert import instance as convert_instance
from stratus.convert import statuses as convert_statuses
from stratus.core import clock, ids
from stratus.core.config import settings
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.params import flag
from stratus.jobs import messages as jobs
from stratus.model.viewer import Viewer
from stratus.read import status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import announcements as repo
from stratus.repo import audit, scheduler, transaction
from stratus.repo import instance as instance_repo
from stratus.repo import statuses as statuses_repo
from stratus.text import formatter, links

REACTION_LIMIT = 8  # distinct names per announcement (Mastodon's ReactionValidator::LIMIT)
UNRECOGNIZED = "Validation failed: Name is not a recognized emoji"
LIMIT_REACHED = "Validation failed: Limit of different reactions reached"


def _schedule_name(announcement_id: str) -> str:
    return f"announcement-{announcement_id}"


# --- rendering ---------------------------------------------------------------------------------
def _mentioned(text: str) -> dict[tuple[str, str | None], dict[str, Any]]:
    """Known local accounts the text mentions (Mastodon's Account.from_text), as written."""
    local = settings().domain.lower()
    wanted: dict[tuple[str, str | None], str] = {}
    for username, domain in formatter.parse(text).mentions:
        if domain is None or domain.lower() == local:
            account_id = accounts_repo.id_by_handle(username)
            if account_id:
                wanted[(username.lower(), domain.lower() if domain else None)] = account_id
    rendered = status_views.load_accounts(list(wanted.values()))
    return {k: rendered[a] for k, a in wanted.items() if a in rendered}


def _reaction(counter: dict[str, Any], emojis: dict[str, dict[str, Any]], *,
              me: bool | None, pending: int = 0) -> dict[str, Any]:
    entity: dict[str, Any] = {"name": counter["name"],
                              "count": max(int(counter.get("count", 0)) + pending, 0)}
    if me is not None:
        entity["me"] = me
    custom = emojis.get(counter["name"]) if counter.get("custom_emoji") else None
    if custom:
        entity["url"], entity["static_url"] = custom["url"], custom["static_url"]
    return entity


def render(items: list[dict[str, Any]], reactions: dict[str, list[dict[str, Any]]], *,
           viewer_id: str | None, dismissed: set[str] = frozenset(),
           reacted: dict[str, dict[str, dict[str, Any]]] | None = None
           ) -> list[dict[str, Any]]:
    """REST::AnnouncementSerializer for a list: `read` and reactions' `me` only with a viewer
    (the streaming event has none). What the texts need is read once for all of them."""
    reacted = reacted or {}
    texts = [i["text"] for i in items]
    mentions = _mentioned("\n".join(texts)) if texts else {}
    status_ids = list(dict.fromkeys(s for i in items for s in i.get("status_ids", [])))
    statuses = {str(i): s for i, s in statuses_repo.bodies(status_ids).items()} \
        if status_ids else {}
    shortcodes = {c for t in texts for c in formatter.parse(t).shortcodes}
    shortcodes |= {r["name"] for rs in reactions.values() for r in rs if r.get("custom_emoji")}
    emojis = {e["shortcode"]: convert_instance.custom_emoji(e)
              for e in instance_repo.list_emojis() if not e.get("disabled")} \
        if shortcodes else {}
    rendered = []
    for item in items:
        aid = str(item["id"])
        parsed = formatter.parse(item["text"])
        mine = reacted.get(aid, {})
        counters = {r["name"]: r for r in reactions.get(aid, [])}
        # The viewer's own reaction shows at once, before the counters worker counted it.
        for name, edge in mine.items():
            counters.setdefault(name, {"name": name, "count": 0,
                                       "custom_emoji": edge.get("custom_emoji"),
                                       "first_id": edge["id"]})
        ordered = sorted(counters.values(), key=lambda r: int(r.get("first_id") or 0))
        shown = []
        for counter in ordered:
            edge = mine.get(counter["name"])
            pending = 1 if edge is not None and not edge.get("counted") else 0
            entity = _reaction(counter, emojis, me=(edge is not None) if viewer_id else None,
                               pending=pending)
            if entity["count"] > 0:
                shown.append(entity)
        entity: dict[str, Any] = {
            "id": aid,
            "content": render_text(item["text"], "text/plain", mentions),
            "starts_at": item.get("starts_at"),
            "ends_at": item.get("ends_at"),
            "all_day": bool(item.get("all_day")),
            "published_at": item.get("published_at"),
            "updated_at": item["updated_at"],
        }
        if viewer_id is not None:
            entity["read"] = aid in dismissed
        entity["mentions"] = [
            convert_statuses.mention(mentions[(u.lower(), d.lower() if d else None)])
            for u, d in parsed.mentions
            if (u.lower(), d.lower() if d else None) in mentions]
        entity["statuses"] = [{"id": s, "url": statuses[s].get("url") or statuses[s]["uri"]}
                              for s in item.get("status_ids", []) if s in statuses
                              and statuses[s].get("visibility") in ("public", "unlisted")]
        entity["tags"] = [convert_statuses.tag(formatter.normalize_tag(t)) for t in parsed.tags]
        entity["emojis"] = [emojis[c] for c in parsed.shortcodes if c in emojis]
        entity["reactions"] = shown
        rendered.append(entity)
    return rendered


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
