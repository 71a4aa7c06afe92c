"""Status, MediaAttachment, Poll, StatusEdit, StatusSource, ScheduledStatus entities, and a
status's (or an announcement's) text rendered to HTML."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stratus.convert import remote_media
from stratus.core import clock
from stratus.core.config import settings as env
from stratus.model.edges import ViewerEdges
from stratus.text import formatter


def media_attachment(item: dict[str, Any]) -> dict[str, Any]:
    base = env().media_base_url
    if item.get("remote_url"):
        # A remote status's attachment: our copy, or our proxy until there is one
        # (convert/remote_media.py); `remote_url` keeps the original, as Mastodon's does.
        # Only images are copied (what our pipeline re-encodes): anything else is `unknown`,
        # Mastodon's type for media it has no file of, which clients show as a link.
        url, preview = remote_media.attachment_urls(item)
        kind = "image" if item.get("media_type") == "image" else "unknown"
        return {"id": str(item["id"]), "type": kind, "url": url, "preview_url": preview,
                "remote_url": item["remote_url"], "preview_remote_url": None, "text_url": None,
                "meta": item.get("meta") or {}, "description": item.get("description"),
                "blurhash": item.get("blurhash")}
    return {
        "id": str(item["id"]),
        "type": item.get("media_type", "image"),
        "url": f"{base}/{item['file_key']}" if item.get("file_key") and
        not item.get("processing") else None,
        "preview_url": f"{base}/{item['small_key']}" if item.get("small_key") else None,
        "remote_url": None,
        "preview_remote_url": None,
        "text_url": None,
        "meta": item.get("meta") or {},
        "description": item.get("description"),
        "blurhash": item.get("blurhash"),
    }


def _expired(poll: dict[str, Any], now: datetime) -> bool:
    return bool(poll.get("closed")) or (bool(poll.get("expires_at")) and
                                        clock.parse_iso(poll["expires_at"]) <= now)


def poll(item: dict[str, Any], vote: dict[str, Any] | None, *, viewer_id: str | None,
         emojis: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
    expired = _expired(item, now)
    # Mastodon's Poll#show_totals_now?: hidden totals stay hidden until the end, from the
    # author too; the poll's own votes_count and voters_count are always shown.
    hide = bool(item.get("hide_totals")) and not expired
    votes = [int(v) for v in item.get("votes", [])]
    entity: dict[str, Any] = {
        "id": str(item["id"]),
        "expires_at": item.get("expires_at"),
        "expired": expired,
        "multiple": bool(item.get("multiple")),
        "votes_count": sum(votes),
        "voters_count": int(item.get("voters_count", 0)),
        "options": [{"title": title, "votes_count": None if hide else votes[i]}
                    for i, title in enumerate(item["options"])],
        "emojis": emojis,
    }
    if viewer_id is not None:
        entity["voted"] = vote is not None or viewer_id == item["account_id"]
        entity["own_votes"] = [int(c) for c in (vote or {}).get("choices", [])]
    return entity


def mention(account: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(account["id"]), "username": account["username"],
            "url": account["url"], "acct": account["acct"]}


def remote_emoji(emoji: dict[str, Any], status_id: str, copy: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    """A remote status's custom emoji (not in our picker): our copy of its image, or our proxy
    until there is one (`copy`: its copy item, convert/remote_media.py)."""
    url, static = remote_media.emoji_urls(emoji, str(status_id), copy)
    return {"shortcode": emoji["shortcode"], "url": url, "static_url": static,
            "visible_in_picker": False, "category": None}


def render_text(text: str, content_type: str,
                mentions: dict[tuple[str, str | None], dict[str, Any]]) -> str:
    """The HTML of a status's text (plain or Markdown): its mentions of `mentions` (keyed by
    (username, domain) as written, lower-cased) linked to the accounts, hashtags to their
    pages here."""
    def lookup(username: str, domain: str | None):
        return mentions.get((username.lower(), domain.lower() if domain else None))

    def tag_url(name: str) -> str:
        return f"{env().base_url}/tags/{name}"

    if content_type == "text/markdown":
        return formatter.render_markdown(text, lookup, tag_url)
    return formatter.render_plain(text, lookup, tag_url)


def tag(name: str) -> dict[str, Any]:
    return {"name": name, "url": f"{env().base_url}/tags/{name}"}


def status(item: dict[str, Any], *, account: dict[str, Any], stats: dict[str, Any],
           media: list[dict[str, Any]], poll_entity: dict[str, Any] | None,
           mentions: list[dict[str, Any]], emojis: list[dict[str, Any]],
           reblog: dict[str, Any] | None, viewer_id: str | None,
           edges: ViewerEdges, card: dict[str, Any] | None = None) -> dict[str, Any]:
    sid = str(item["id"])
    thread = str(item.get("thread_id") or sid)
    pending = edges.pending.get(sid, {})

    def count(name: str) -> int:
        return max(int(stats.get(name, 0)) + pending.get(name, 0), 0)

    entity: dict[str, Any] = {
        "id": sid,
        "created_at": item["created_at"],
        "in_reply_to_id": item.get("in_reply_to_id"),
        "in_reply_to_account_id": item.get("in_reply_to_account_id"),
        "sensitive": bool(item.get("sensitive", False)),
        "spoiler_text": item.get("spoiler_text", ""),
        "visibility": item.get("visibility", "public"),
        "language": item.get("language"),
        "uri": item["uri"],
        "url": item.get("url"),
        "replies_count": count("replies_count"),
        "reblogs_count": count("reblogs_count"),
        "favourites_count": count("favourites_count"),
        "quotes_count": 0,
        "edited_at": item.get("edited_at"),
        "content": item.get("content", ""),
        "reblog": reblog,
        # Mastodon shows the posting app unless the author turned `show_application` off.
        "application": item.get("application"),
        "account": account,
        "media_attachments": media,
        "mentions": mentions,
        "tags": [tag(t) for t in item.get("tags", [])],
        "emojis": emojis,
        "card": card,  # a PreviewCard (convert/cards.py) or None
        "poll": poll_entity,
        "quote": None,
        "filtered": [],
    }
    if item.get("reblog_of_id"):
        entity.update(content="", spoiler_text="", sensitive=False, language=None, url=None,
                      media_attachments=[], mentions=[], tags=[], emojis=[], poll=None)
    if viewer_id is not None:
        if reblog is not None:
            # A boost shows the viewer's flags of what it boosts.
            for flag in ("favourited", "reblogged", "bookmarked", "muted"):
                entity[flag] = reblog.get(flag, False)
        else:
            entity["favourited"] = sid in edges.favourited
            entity["reblogged"] = sid in edges.reblogged
            entity["muted"] = thread in edges.muted_threads
            entity["bookmarked"] = sid in edges.bookmarked
            if item["account_id"] == viewer_id:
                entity["pinned"] = sid in edges.pinned
    return entity


def status_edit(version: dict[str, Any], *, account: dict[str, Any],
                media: list[dict[str, Any]], emojis: list[dict[str, Any]]) -> dict[str, Any]:
    entity = {
        "content": version.get("content", ""),
        "spoiler_text": version.get("spoiler_text", ""),
        "sensitive": bool(version.get("sensitive", False)),
        "created_at": version["created_at"],
        "account": account,
        "poll": ({"options": [{"title": t} for t in version["poll_options"]]}
                 if version.get("poll_options") else None),
        "media_attachments": media,
        "emojis": emojis,
    }
    return entity


def scheduled_status(item: dict[str, Any], media: list[dict[str, Any]]) -> dict[str, Any]:
    params = item["params"]
    return {
        "id": str(item["id"]),
        "scheduled_at": item["scheduled_at"],
        "params": {
            "text": params.get("status") or "",
            "poll": params.get("poll"),
            "media_ids": params.get("media_ids") or None,
            "sensitive": params.get("sensitive"),
            "spoiler_text": params.get("spoiler_text") or None,
            "visibility": params.get("visibility") or "public",
            "in_reply_to_id": params.get("in_reply_to_id"),
            "language": params.get("language"),
            "application_id": int(params["application_id"]) if params.get("application_id") else None,
            "scheduled_at": None,
            "idempotency": None,
            "with_rate_limit": False,
        },
        "media_attachments": media,
    }
