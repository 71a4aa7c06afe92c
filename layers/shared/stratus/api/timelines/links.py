"""The link timeline (GET /api/v1/timelines/link?url=, Mastodon 4.3): public statuses whose
preview card would be made from a URL, newest first, and the index that feeds it.

The effects worker indexes, for every public original status, the link its card comes from
(stratus.text.links.card_link: Mastodon's first non-local http(s) URL, normalised; whether or
not api/statuses/cards.py can make a card of it), and moves the entry when an edit changes that
link or the status goes. A new entry is also a share of the link, counted for link trends. Reading checks each status again (it still links the URL, is public, its author opted
into discovery as Mastodon's LinkFeed requires), so an entry left behind by deliveries that
arrived out of order shows nothing. Deviation: Mastodon answers only for links that are
trending and approved (it has a trends pipeline; we have none), and 404 for any other URL; we
answer for every link a status has carried, and 404 for a URL no status ever linked.
"""

from __future__ import annotations

from typing import Any

from stratus.api.tags.tags import use_day
from stratus.core import clock
from stratus.core.config import settings
from stratus.core.errors import NotFound
from stratus.core.paging import Budget, Page, fill_page
from stratus.jobs import messages as jobs
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import cards as cards_repo
from stratus.repo import keys
from stratus.repo import links as repo
from stratus.repo import statuses as statuses_repo
from stratus.text.links import card_link, normalize


def _card_link(text: str | None) -> str | None:
    return card_link(text, settings().domain) if text is not None else None


def links_changed(job: jobs.LinksChanged) -> int:
    """Move a status's link index entry to the link its text now has; idempotent. A new entry
    is also a share of the link (cards area: what link trends will rank), counted when the
    author may be discovered."""
    old, new = _card_link(job.old_text), _card_link(job.new_text)
    if old == new:
        return 0
    changed = 0
    if old is not None:
        repo.unindex(old, job.status_id)
        changed += 1
    if new is not None:
        # A post shares the link on the day it was posted, an edit on the day of the edit.
        day = use_day(job.status_id) if job.old_text is None else clock.day_key(clock.now())
        shared = _counts_shares(job.account_id)
        repo.index(new, job.status_id, {"account_id": job.account_id, "local": job.local,
                                        "url": new, "day": day, "shared": shared})
        if shared:
            cards_repo.record_use(new, day, job.account_id,
                                  int(clock.now().timestamp()) + cards_repo.USE_TTL)
        changed += 1
    return changed


def _counts_shares(account_id: str) -> bool:
    """Whether an account's links count towards link trends: it opted into discovery (as
    Mastodon's link feeds require) and is neither silenced nor suspended (Trends::Links)."""
    profile = accounts_repo.get_profile(account_id) or {}
    return profile.get("discoverable") is True and not profile.get("silenced_at") \
        and not profile.get("suspended_at")


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
    lo, hi = keys.id_range(*page.id_range())
    budget = Budget()
    entries = repo.entries(url, lo, hi, not page.ascending, budget=budget,
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
