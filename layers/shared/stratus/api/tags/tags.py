"""Hashtags: the Tag entity (with a week of `history` and whether the viewer `following` it),
following and unfollowing tags, and the followed-tags list. The daily uses a tag's history
counts are recorded by the effects worker (workers/tags.py).

History without a Scan: a public original status counts one use of each of its tags on the day
it was posted, and the first use by an account that day writes a `tag_use` item that counts one
more distinct account; the counters worker adds both to the tag's STATS item from the stream
(workers/counters.py), exactly once. A Tag's history is then one item read, batched with the
viewer's followed-tag edge (docs/data-model.md, "Hashtags").
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from stratus.core import clock, ids
from stratus.core.config import settings
from stratus.core.errors import NotFound
from stratus.core.paging import Page
from stratus.http import ratelimit
from stratus.model.viewer import Viewer
from stratus.repo import tags as repo
from stratus.text import formatter

HISTORY_DAYS = 7


def normalized(raw: str) -> str:
    """The tag a path names, normalised; 404 when it is not a hashtag (Mastodon matches the
    raw name against HASHTAG_NAME_RE first)."""
    if not isinstance(raw, str) or not formatter.HASHTAG.fullmatch("#" + raw):
        raise NotFound()
    return formatter.normalize_tag(raw)


def tag_id(tag: str) -> str:
    """A tag's id: derived from its normalised name, so every tag — one nobody has used yet
    too — has the same id everywhere without a stored counter (a positive 63-bit integer)."""
    return str(int.from_bytes(hashlib.sha256(tag.encode()).digest()[:8], "big") >> 1 or 1)


def history(stats: dict[str, Any] | None) -> list[dict[str, str]]:
    """Mastodon's Trends::History: the last seven days, today first, each `day` the epoch
    second of its UTC midnight, `uses` and `accounts` as strings."""
    today = clock.now().replace(hour=0, minute=0, second=0, microsecond=0)
    days = []
    for back in range(HISTORY_DAYS):
        moment = today - timedelta(days=back)
        day = clock.day_key(moment)
        days.append({"day": str(int(moment.timestamp())),
                     "accounts": str(int((stats or {}).get(
                         repo.history_attribute(repo.ACCOUNTS, day), 0))),
                     "uses": str(int((stats or {}).get(repo.history_attribute(repo.USES, day),
                                                        0)))})
    return days


def entity(tag: str, name: str, stats: dict[str, Any] | None, following: bool | None,
           featuring: bool | None = None) -> dict[str, Any]:
    """REST::TagSerializer: `name` as the request wrote it (Mastodon's display name of a new
    tag; statuses keep tags normalised, so there is no first spelling to show), `following`
    and `featuring` (4.4) only for a signed-in user."""
    rendered = {"id": tag_id(tag), "name": name, "url": f"{settings().base_url}/tags/{tag}",
                "history": history(stats)}
    if following is not None:
        rendered["following"] = following
    if featuring is not None:
        rendered["featuring"] = featuring
    return rendered


def _user_id(viewer: Viewer | None) -> str | None:
    return viewer.account_id if viewer is not None and viewer.user is not None else None


def show(viewer: Viewer | None, raw: str) -> dict[str, Any]:
    """GET /api/v1/tags/:name: any valid name, used or not (Mastodon renders a new tag)."""
    tag = normalized(raw)
    me = _user_id(viewer)
    stats, edges, featured = repo.load_for_viewer([tag], me)
    return entity(tag, raw, stats.get(tag), (tag in edges) if me else None,
                  (tag in featured) if me else None)


def follow(viewer: Viewer, raw: str) -> tuple[dict[str, Any], dict[str, str]]:
    """POST /api/v1/tags/:name/follow: (Tag, rate-limit headers). Following again changes
    nothing; a new follow counts against the account's daily follows (Mastodon's TagFollow
    is rate-limited with account follows)."""
    tag = normalized(raw)
    me = viewer.account_id
    stats, edges, featured = repo.load_for_viewer([tag], me, consistent=True)
    headers: dict[str, str] = {}
    if tag not in edges:
        headers = ratelimit.check(ratelimit.FOLLOWS, me)
        repo.follow(repo.followed_item(ids.new_id(), me, tag, clock.iso(clock.now())))
    return entity(tag, raw, stats.get(tag), True, tag in featured), headers


def unfollow(viewer: Viewer, raw: str) -> dict[str, Any]:
    """POST /api/v1/tags/:name/unfollow: following or not, answers the Tag."""
    tag = normalized(raw)
    repo.unfollow(viewer.account_id, tag)
    stats, _, featured = repo.load_for_viewer([tag], viewer.account_id)
    return entity(tag, raw, stats.get(tag), False, tag in featured)


def followed(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/followed_tags: the viewer's followed tags, newest follow first, and the
    follow ids the Link header continues from."""
    entries = repo.followed_entries(viewer.account_id, *page.id_range(), not page.ascending,
                                    page.limit)
    if page.ascending:
        entries.reverse()
    stats, _ = repo.load([e["tag"] for e in entries], None)
    rendered = [entity(e["tag"], e["tag"], stats.get(e["tag"]), True) for e in entries]
    return rendered, [entries[0]["id"], entries[-1]["id"]] if entries else []
