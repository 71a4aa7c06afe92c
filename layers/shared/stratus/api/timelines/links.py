"""The link timeline (GET /api/v1/timelines/link?url=, Mastodon 4.3): public statuses whose
preview card would be made from a URL, newest first.

The effects worker indexes, for every public original status, the link its card comes from
(workers/links.py; whether or not workers/cards.py can make a card of it). Reading
checks each status again (it still links the URL, is public, its author opted into discovery
as Mastodon's LinkFeed requires), so an entry left behind by deliveries that arrived out of
order shows nothing. Deviation: Mastodon answers only for links that are
trending and approved (it has a trends pipeline; we have none), and 404 for any other URL; we
answer for every link a status has carried, and 404 for a URL no status ever linked.
"""

from __future__ import annotations

from typing import Any

from stratus.core.config import settings
from stratus.core.errors import NotFound
from stratus.core.paging import Budget, Page, fill_page
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import links as repo
from stratus.repo import statuses as statuses_repo
from stratus.text.links import card_link, normalize


def _card_link(text: str | None) -> str | None:
    return card_link(text, settings().domain) if text is not None else None


def _linking(status: dict[str, Any], url: str) -> bool:
    return (status.get("visibility") == "public" and not status.get("reblog_of_id")
            and _card_link(status.get("text")) == url)


def timeline(viewer_id: str | None, params: dict[str, Any], page: Page
             ) -> tuple[list[dict[str, Any]], list[str]]:
    """Public statuses linking `url`, by discoverable accounts, without those the viewer
    blocks, is blocked by or mutes; cursors as every timeline. 404 for a URL no status linked."""
    raw = params.get("url")
    url = normalize(raw) if isinstance(raw, str) else None
    if url is None:
        raise NotFound()
    relations = relationships.loader(viewer_id)
    matcher = filters.compiled(viewer_id, "public")
    budget = Budget()
    entries = repo.entries(url, *page.id_range(), not page.ascending, budget=budget,
                           step=page.step)

    def hydrate(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = statuses_repo.get_many([e["id"] for e in batch])
        linking = [found[e["id"]] for e in batch if e["id"] in found
                   and _linking(found[e["id"]], url)]
        shown = visibility.without_hidden(linking, relations.statuses(linking))
        return [s for s in status_views.render(shown, viewer_id, relations=relations,
                                               matcher=matcher)
                if s["account"].get("discoverable") is True and not s["account"].get("limited")]

    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda s: s["id"])
    if not filled.items and not repo.known(url):
        raise NotFound()
    return filled.items, filled.link_ids
