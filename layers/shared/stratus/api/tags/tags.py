"""Hashtags: a tag shown (the Tag entity, convert/tags.py, with a week of `history` and whether
the viewer `following` it), following and unfollowing tags, and the followed-tags list. The
daily uses a tag's history counts are recorded by the effects worker (workers/tags.py).

History without a Scan: a public original status counts one use of each of its tags on the day
it was posted, and the first use by an account that day writes a `tag_use` item that counts one
more distinct account; the counters worker adds both to the tag's STATS item from the stream
(workers/counters.py), exactly once. A Tag's history is then one item read, batched with the
viewer's followed-tag edge (docs/data-model.md, "Hashtags").
"""

from __future__ import annotations

from typing import Any

from stratus.convert import tags as convert
from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.core.paging import Page
from stratus.http import ratelimit
from stratus.model.viewer import Viewer
from stratus.repo import tags as repo
from stratus.text import formatter


def normalized(raw: str) -> str:
    """The tag a path names, normalised; 404 when it is not a hashtag (Mastodon matches the
    raw name against HASHTAG_NAME_RE first)."""
    if not isinstance(raw, str) or not formatter.HASHTAG.fullmatch("#" + raw):
        raise NotFound()
    return formatter.normalize_tag(raw)


def _user_id(viewer: Viewer | None) -> str | None:
    return viewer.account_id if viewer is not None and viewer.user is not None else None


def show(viewer: Viewer | None, raw: str) -> dict[str, Any]:
    """GET /api/v1/tags/:name: any valid name, used or not (Mastodon renders a new tag)."""
    tag = normalized(raw)
    me = _user_id(viewer)
    stats, edges, featured = repo.load_for_viewer([tag], me)
    return convert.hashtag(tag, raw, stats.get(tag), (tag in edges) if me else None,
                           (tag in featured) if me else None, now=clock.now())


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
    return convert.hashtag(tag, raw, stats.get(tag), True, tag in featured,
                           now=clock.now()), headers


def unfollow(viewer: Viewer, raw: str) -> dict[str, Any]:
    """POST /api/v1/tags/:name/unfollow: following or not, answers the Tag."""
    tag = normalized(raw)
    repo.unfollow(viewer.account_id, tag)
    stats, _, featured = repo.load_for_viewer([tag], viewer.account_id)
    return convert.hashtag(tag, raw, stats.get(tag), False, tag in featured, now=clock.now())


def followed(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/followed_tags: the viewer's followed tags, newest follow first, and the
    follow ids the Link header continues from."""
    entries = repo.followed_entries(viewer.account_id, *page.id_range(), not page.ascending,
                                    page.limit)
    if page.ascending:
        entries.reverse()
    stats, _ = repo.load([e["tag"] for e in entries], None)
    now = clock.now()
    rendered = [convert.hashtag(e["tag"], e["tag"], stats.get(e["tag"]), True, now=now)
                for e in entries]
    return rendered, [entries[0]["id"], entries[-1]["id"]] if entries else []
