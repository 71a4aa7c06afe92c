"""What the public pages show of an account and a status: the API's entities (read/) turned into
what the templates print. Every piece of user HTML is sanitised again (text/sanitize.py) before
it is marked safe, custom emoji become images only in text (text/emojify.py), and the plain
summaries OpenGraph and the feeds carry are Mastodon's (`status_description`,
`account_description`)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from stratus.convert import instance as convert_instance
from stratus.core import clock
from stratus.core.config import settings
from stratus.read import custom_emojis
from stratus.read.filters import plain_text
from stratus.text import emojify, sanitize
from stratus.text.formatter import SHORTCODE

MEDIA_KINDS = {"image", "gifv", "video", "audio"}


def _safe(markup: str | None, emojis: list[dict[str, Any]]) -> Markup:
    return emojify.html(sanitize.clean(markup or ""), emojis)


def account_emojis(account: dict[str, Any]) -> list[dict[str, Any]]:
    """The custom emoji an account's name, bio and fields use: the entity's, or for a local
    account this server's enabled emoji named there (Mastodon's `CustomEmoji.from_text`)."""
    if account.get("emojis") or "@" in account.get("acct", ""):
        return list(account.get("emojis") or [])
    written = " ".join([account.get("display_name") or "", account.get("note") or "",
                        *(f"{f.get('name', '')} {f.get('value', '')}"
                          for f in account.get("fields", []))])
    codes = set(SHORTCODE.findall(written))
    if not codes:
        return []
    return [convert_instance.custom_emoji(e) for e in custom_emojis.stored()
            if e.get("shortcode") in codes and not e.get("disabled")]


def handle(account: dict[str, Any]) -> str:
    """`@user@domain`, for local accounts too (Mastodon's `acct` helper on its pages)."""
    acct = account.get("acct") or account.get("username", "")
    return f"@{acct}" if "@" in acct else f"@{acct}@{settings().domain}"


def name(account: dict[str, Any]) -> str:
    return account.get("display_name") or account.get("username", "")


def account(entity: dict[str, Any]) -> dict[str, Any]:
    emojis = account_emojis(entity)
    return {
        "id": entity["id"], "url": entity.get("url"), "uri": entity.get("uri"),
        "handle": handle(entity), "plain_name": name(entity),
        "name": emojify.text(name(entity), emojis),
        "avatar": entity.get("avatar_static") or entity.get("avatar"),
        "avatar_description": entity.get("avatar_description") or "",
        "header": entity.get("header_static") or entity.get("header"),
        "header_description": entity.get("header_description") or "",
        "note": _safe(entity.get("note"), emojis),
        "fields": [{"name": _safe(f.get("name"), emojis), "value": _safe(f.get("value"), emojis),
                    "verified": bool(f.get("verified_at"))} for f in entity.get("fields", [])],
        "statuses_count": entity.get("statuses_count", 0),
        "following_count": entity.get("following_count", 0),
        "followers_count": entity.get("followers_count", 0),
        "bot": bool(entity.get("bot")), "locked": bool(entity.get("locked")),
        "noindex": bool(entity.get("noindex")),
    }


def _media(item: dict[str, Any]) -> dict[str, Any]:
    original = (item.get("meta") or {}).get("original") or {}
    kind = item.get("type") if item.get("type") in MEDIA_KINDS else "unknown"
    url = item.get("url") or item.get("remote_url")
    return {"kind": kind, "url": url, "preview": item.get("preview_url") or url,
            "description": item.get("description") or "",
            "width": original.get("width"), "height": original.get("height"),
            "name": (url or "").rsplit("/", 1)[-1] or "attachment"}


def _poll(poll: dict[str, Any] | None, emojis: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not poll:
        return None
    total = int(poll.get("votes_count") or 0)
    shown = all(o.get("votes_count") is not None for o in poll.get("options", []))
    options = []
    for option in poll.get("options", []):
        votes = option.get("votes_count")
        options.append({"title": emojify.text(option.get("title", ""), emojis), "votes": votes,
                        "percent": round(100 * votes / total) if shown and total else 0})
    return {"options": options, "shown": shown, "multiple": bool(poll.get("multiple")),
            "expired": bool(poll.get("expired")), "expires_at": poll.get("expires_at"),
            "voters_count": poll.get("voters_count") or total}


def date(iso: str | None) -> str:
    """A status's time as the pages print it (UTC; the `<time>` element carries the ISO)."""
    if not iso:
        return ""
    return clock.parse_iso(iso).strftime("%b %d, %Y, %H:%M")


def status(entity: dict[str, Any]) -> dict[str, Any]:
    """A status as a card: a boost shows what it boosts, marked with who boosted it."""
    shown = entity.get("reblog") or entity
    emojis = list(shown.get("emojis") or [])
    card = shown.get("card") or None
    return {
        "id": shown["id"], "url": shown.get("url") or shown.get("uri"), "uri": shown.get("uri"),
        "created_at": shown["created_at"], "date": date(shown["created_at"]),
        "edited_at": shown.get("edited_at"), "edited": date(shown.get("edited_at")),
        "account": account(shown["account"]),
        "booster": account(entity["account"]) if entity.get("reblog") else None,
        "spoiler": emojify.text(shown.get("spoiler_text") or "", emojis),
        "content": _safe(shown.get("content"), emojis),
        "sensitive": bool(shown.get("sensitive")),
        "media": [_media(m) for m in shown.get("media_attachments", [])],
        "poll": _poll(shown.get("poll"), emojis),
        "card": {"url": card.get("url"), "title": card.get("title") or card.get("url"),
                 "description": card.get("description") or "",
                 "provider": card.get("provider_name") or ""} if card else None,
        "tags": shown.get("tags", []),
        "language": shown.get("language") or "",
        "visibility": shown.get("visibility"),
        "replies_count": shown.get("replies_count", 0),
        "reblogs_count": shown.get("reblogs_count", 0),
        "favourites_count": shown.get("favourites_count", 0),
        "in_reply_to_id": shown.get("in_reply_to_id"),
    }


def _count(value: int, one: str, many: str) -> str:
    """Rails' `number_to_human(precision: 3)` and the count's word, as Mastodon's stats."""
    number, unit = float(value), ""
    for larger in ("K", "M", "B"):
        if abs(number) < 999.5:
            break
        number, unit = number / 1000, larger
    text = f"{number:.3g}" if unit else str(int(number))
    return f"{text}{unit} {one if value == 1 else many}"


def account_description(entity: dict[str, Any]) -> str:
    stats = ", ".join([_count(entity.get("statuses_count", 0), "Post", "Posts"),
                       _count(entity.get("following_count", 0), "Following", "Following"),
                       _count(entity.get("followers_count", 0), "Follower", "Followers")])
    return f"{stats} · {plain_text(entity.get('note') or '')}"


def status_description(entity: dict[str, Any]) -> str:
    """Mastodon's `status_description`: what is attached and the content warning, then (without
    a warning) the text and the poll's options."""
    counts = {"image": 0, "video": 0, "audio": 0}
    for media in entity.get("media_attachments", []):
        kind = media.get("type")
        counts["video" if kind == "video" else "audio" if kind == "audio" else "image"] += 1
    attached = " · ".join(f"{n} {kind}{'' if n == 1 else 's'}"
                          for kind, n in counts.items() if n)
    head = " · ".join(p for p in (f"Attached: {attached}" if attached else "",
                                  f"Content warning: {entity['spoiler_text']}"
                                  if entity.get("spoiler_text") else "") if p)
    parts = [head]
    if not entity.get("spoiler_text"):
        parts.append(plain_text(entity.get("content") or ""))
        poll = entity.get("poll") or {}
        parts.append("\n".join(f"[ ] {o.get('title', '')}" for o in poll.get("options", [])))
    return "\n\n".join(p for p in parts if p)
