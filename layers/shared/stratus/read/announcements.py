"""Announcement entities (Mastodon's REST::AnnouncementSerializer): what users list, the staff
view, and the `announcement` streaming event (rendered without a viewer) show.

`text` renders like a status's: mentions of known local accounts, hashtags, links; its custom
emoji and the announcement's reactions (counted per name by the counters worker) are listed.
What the texts of a list need is read once for all of them.
"""

from __future__ import annotations

from typing import Any

from stratus.convert import instance as convert_instance
from stratus.convert import statuses as convert_statuses
from stratus.core import hosts
from stratus.read import custom_emojis, status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import statuses as statuses_repo
from stratus.text import formatter


def _mentioned(text: str) -> dict[tuple[str, str | None], dict[str, Any]]:
    """Known local accounts the text mentions (Mastodon's Account.from_text), as written."""
    wanted: dict[tuple[str, str | None], str] = {}
    for username, domain in formatter.parse(text).mentions:
        if domain is None or hosts.ours(domain):
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
              for e in custom_emojis.stored() if not e.get("disabled")} \
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
            "content": convert_statuses.render_text(item["text"], "text/plain", mentions),
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
