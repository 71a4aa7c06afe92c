"""The Tag entity (with its week of history) and the FeaturedTag entity."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from stratus.core import clock
from stratus.core.config import settings
from stratus.model import tags as model

HISTORY_DAYS = 7


tag_id = model.tag_id


def history(stats: dict[str, Any] | None, now: datetime) -> list[dict[str, str]]:
    """Mastodon's Trends::History: the seven days up to `now`'s, that day first, each `day` the
    epoch second of its UTC midnight, `uses` and `accounts` as strings."""
    return [{"day": epoch,
             "accounts": str(int((stats or {}).get(model.history_attribute(model.ACCOUNTS, day),
                                                   0))),
             "uses": str(int((stats or {}).get(model.history_attribute(model.USES, day), 0)))}
            for epoch, day in history_days(now)]


def history_days(now: datetime) -> list[tuple[str, str]]:
    """The `HISTORY_DAYS` days of a history, `now`'s first: (the epoch second of its UTC
    midnight, as Mastodon's `day`; its day key)."""
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    moments = [today - timedelta(days=back) for back in range(HISTORY_DAYS)]
    return [(str(int(moment.timestamp())), clock.day_key(moment)) for moment in moments]


def hashtag(tag: str, name: str, stats: dict[str, Any] | None, following: bool | None,
            featuring: bool | None = None, *, now: datetime) -> dict[str, Any]:
    """REST::TagSerializer: `name` as the request wrote it (Mastodon's display name of a new
    tag; statuses keep tags normalised, so there is no first spelling to show), `following`
    and `featuring` (4.4) only for a signed-in user."""
    rendered = {"id": tag_id(tag), "name": name, "url": f"{settings().base_url}/tags/{tag}",
                "history": history(stats, now)}
    if following is not None:
        rendered["following"] = following
    if featuring is not None:
        rendered["featuring"] = featuring
    return rendered


def featured_tag(item: dict[str, Any], username: str, counters: dict[str, Any] | None
                 ) -> dict[str, Any]:
    """REST::FeaturedTagSerializer: `statuses_count` as a string, `last_status_at` a date."""
    last = (counters or {}).get("last_status_at")
    return {"id": item["id"], "name": item["name"],
            "url": f"{settings().base_url}/@{username}/tagged/{item['tag']}",
            "statuses_count": str(max(int((counters or {}).get("statuses_count", 0)), 0)),
            "last_status_at": clock.parse_iso(last).date().isoformat() if last else None}
