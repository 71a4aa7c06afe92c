"""Trends through the public API: the trending hashtags, statuses and links, best first, as the
schedule ranked them (api/trends/ranking.py) and once staff allowed them (or by default, by
setting: read/trends.py). Staff review them through api/admin/trends.py."""

from __future__ import annotations

from typing import Any

from stratus.convert import tags as convert_tags
from stratus.convert import trends as convert_trends
from stratus.core import clock
from stratus.read import trends as trends_read
from stratus.read.trends import LINKS, STATUSES, TAGS
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as tags_repo


def trending_tags(viewer_id: str | None, offset: int, limit: int) -> list[dict[str, Any]]:
    """GET /api/v1/trends/tags: Tag entities with their history, best first."""
    names = [i["name"] for i in trends_read.allowed_ids(TAGS)[offset:offset + limit]]
    stats, edges, featured = tags_repo.load_for_viewer(names, viewer_id)
    now = clock.now()
    return [convert_tags.hashtag(n, n, stats.get(n), (n in edges) if viewer_id else None,
                                 (n in featured) if viewer_id else None, now=now)
            for n in names]


def trending_statuses(viewer_id: str | None, offset: int, limit: int) -> list[dict[str, Any]]:
    """GET /api/v1/trends/statuses: best first, without what the viewer may not see or
    excluded (blocks, mutes, domain blocks), the viewer's filters applied (context public);
    `offset` counts statuses after that exclusion, as Mastodon's query does."""
    from stratus.policy import visibility
    from stratus.read import filters, relationships, status_views

    relations = relationships.loader(viewer_id)
    matcher = filters.compiled(viewer_id, "public")
    wanted = offset + limit
    ids_ = [i["id"] for i in trends_read.allowed_ids(STATUSES)]
    shown: list[dict[str, Any]] = []
    for start in range(0, len(ids_), max(wanted, 20)):
        chunk = ids_[start:start + max(wanted, 20)]
        found = statuses_repo.get_many(chunk)
        items = [found[i] for i in chunk if i in found]
        view = relations.statuses(items)
        shown += visibility.without_hidden(items, view)
        if len(shown) >= wanted:
            break
    page = shown[offset:wanted]
    return status_views.render(page, viewer_id, relations=relations, matcher=matcher)


# --- links ---------------------------------------------------------------------------------
def link_entities(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    from stratus.repo import cards as cards_repo

    urls = [i["url"] for i in items]
    cards, stats = cards_repo.get_many(urls), cards_repo.stats(urls)
    now = clock.now()
    return [(i, convert_trends.link(cards[i["url"]], stats.get(i["url"]), now))
            for i in items if i["url"] in cards]


def trending_links(offset: int, limit: int) -> list[dict[str, Any]]:
    """GET /api/v1/trends/links."""
    items = trends_read.allowed_ids(LINKS)[offset:offset + limit]
    return [entity for _, entity in link_entities(items)]
