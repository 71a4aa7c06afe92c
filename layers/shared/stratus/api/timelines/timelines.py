"""Timelines: home (the viewer's feed, fed by fan-out), public (local and remote, spread over
hour buckets and shards) and hashtag timelines, each a page of ids read from an index, then
read, passed through the visibility policy and rendered in batches.

The viewer's filters are compiled once per request for the timeline's context (home and lists:
`home`; public and hashtags: `public`) and applied to each batch as it is rendered, so a status a
`hide` filter removes does not leave the page short: the page fills from further entries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stratus.api.lists import lists
from stratus.auth import activity
from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.core.paging import Budget, Page, fill_page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import feeds
from stratus.repo import statuses as repo
from stratus.text import formatter

MAX_EXTRA_TAGS = 4  # Mastodon takes at most 4 tags from each of any[], all[], none[]
REFRESH_RETRY_SECONDS = 3


def _shown(statuses: list[dict[str, Any]], relations: relationships.Loader
           ) -> list[dict[str, Any]]:
    """What a timeline shows the viewer: visible, and not by (or boosting) accounts the viewer
    blocks, is blocked by or mutes."""
    view = relations.statuses(statuses)
    return [s for s in visibility.without_hidden(statuses, view)
            if not visibility.boosts_excluded(s, view)]


def _hydrate_ids(entries: list[dict[str, Any]], relations: relationships.Loader,
                 keep=lambda status: True) -> list[dict[str, Any]]:
    found = repo.get_many([e["id"] for e in entries])
    return _shown([found[e["id"]] for e in entries if e["id"] in found and keep(found[e["id"]])],
                  relations)


def _renderer(viewer_id: str | None, relations: relationships.Loader, context: str,
              keep=lambda status: True):
    """Read, check and render a batch of entries with the viewer's filters for `context`
    (compiled here, once for the request)."""
    matcher = filters.compiled(viewer_id, context)

    def hydrate(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rendered = status_views.render(_hydrate_ids(entries, relations, keep), viewer_id,
                                       relations=relations, matcher=matcher)
        if context == "public":
            # Mastodon's PublicFeed leaves silenced ("limited") accounts out, for everyone.
            rendered = [s for s in rendered if not s["account"].get("limited")]
        return rendered

    return hydrate


# --- home --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Refresh:
    """A feed being rebuilt in the background (Mastodon's AsyncRefresh, 4.4)."""

    id: str
    running: bool


def refresh_id(account_id: str) -> str:
    return f"home-{account_id}"


def _home_state(viewer: Viewer) -> Refresh | None:
    """The rebuild of the viewer's feed in progress, if any. The viewer's first request of the
    day has the fan-out worker keep the feed active, and rebuild it if it was idle
    (auth/activity.py); a feed still found idle here (that job has not run yet) is marked and
    rebuilt the same way."""
    meta = feeds.meta(feeds.home(viewer.account_id)) or {}
    now = clock.epoch()
    if int(meta.get("active_until", 0)) <= now:
        activity.keep_home_fed(viewer.account_id, now)
        return Refresh(refresh_id(viewer.account_id), True)
    if meta.get("state") == "regenerating":
        return Refresh(refresh_id(viewer.account_id), True)
    return None


def home(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str], Refresh | None]:
    """A page of the viewer's home feed, its Link ids, and the rebuild in progress if any
    (Mastodon answers 206 then)."""
    refresh = _home_state(viewer)
    relations = relationships.loader(viewer.account_id)
    budget = Budget()
    entries = feeds.entries(feeds.home(viewer.account_id), *page.id_range(), not page.ascending,
                            budget=budget, step=page.step)
    filled = fill_page(({"id": e["status_id"]} for e in entries),
                       _renderer(viewer.account_id, relations, "home"), page,
                       budget=budget, id_of=lambda e: e["id"], result_id=lambda s: s["id"])
    return filled.items, filled.link_ids, refresh


def list_timeline(viewer: Viewer, list_id: str, page: Page
                  ) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of one of the viewer's lists (fed by fan-out like home)."""
    lists.own(viewer, list_id)
    relations = relationships.loader(viewer.account_id)
    budget = Budget()
    entries = feeds.entries(feeds.of_list(list_id), *page.id_range(), not page.ascending,
                            budget=budget, step=page.step)
    filled = fill_page(({"id": e["status_id"]} for e in entries),
                       _renderer(viewer.account_id, relations, "home"), page,
                       budget=budget, id_of=lambda e: e["id"], result_id=lambda s: s["id"])
    return filled.items, filled.link_ids


def refresh_status(viewer: Viewer, wanted_id: str) -> dict[str, Any]:
    """GET /api/v1_alpha/async_refreshes/:id for the viewer's own home rebuild."""
    if wanted_id != refresh_id(viewer.account_id):
        raise NotFound()
    meta = feeds.meta(feeds.home(viewer.account_id)) or {}
    running = meta.get("state") == "regenerating"
    return {"async_refresh": {"id": wanted_id, "status": "running" if running else "finished",
                              "result_count": None}}


# --- public ------------------------------------------------------------------------------------
def _scopes(params: dict[str, Any]) -> list[str]:
    local, remote = flag(params.get("local")), flag(params.get("remote"))
    if local and not remote:
        return ["LOCAL"]
    if remote and not local:
        return ["REMOTE"]
    return ["LOCAL", "REMOTE"]


def _now_id() -> int:
    return int(ids.id_at(int(clock.now().timestamp() * 1000), upper=True))


def _public_candidates(scope: str, page: Page, only_media: bool, budget: Budget,
                       hydrate) -> list[dict[str, Any]]:
    """Up to a page of visible public statuses of one scope (rendered, filters applied),
    walking hour buckets from the page's edge (newest first, or oldest first for a `min_id`
    page)."""
    low, high = page.id_range()
    low = low if low is not None else 0
    high = high if high is not None else _now_id()
    if low > high:
        return []
    descending = not page.ascending
    found: list[dict[str, Any]] = []
    for hour in repo.public_hours(scope, low, high, descending):
        if len(found) >= page.limit or budget.spent:
            break
        entries = repo.public_bucket_entries(scope, hour, low, high, descending,
                                             limit=page.limit - len(found),
                                             only_media=only_media, budget=budget)
        found += hydrate(entries)
    return found


def public(viewer_id: str | None, params: dict[str, Any], page: Page
           ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/timelines/public: `local`, `remote`, `only_media`, cursors."""
    only_media = flag(params.get("only_media"))
    budget = Budget()
    hydrate = _renderer(viewer_id, relationships.loader(viewer_id), "public")
    found: list[dict[str, Any]] = []
    for scope in _scopes(params):
        found += _public_candidates(scope, page, only_media, budget, hydrate)
    found.sort(key=lambda s: int(s["id"]), reverse=not page.ascending)
    found = found[:page.limit]
    if page.ascending:
        found.reverse()
    ids_ = [s["id"] for s in found]
    return found, [ids_[0], ids_[-1]] if ids_ else []


# --- hashtags ----------------------------------------------------------------------------------
def _tag_list(raw: Any) -> list[str]:
    values = raw if isinstance(raw, list) else ([raw] if raw else [])
    names = [formatter.normalize_tag(str(v).lstrip("#")) for v in values if isinstance(v, str)]
    return [n for n in dict.fromkeys(names) if n][:MAX_EXTRA_TAGS]


def tag(viewer_id: str | None, name: str, params: dict[str, Any], page: Page
        ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/timelines/tag/:hashtag: public statuses with the tag or any of `any[]`,
    having all of `all[]` and none of `none[]`; `local`, `remote`, `only_media`, cursors."""
    import heapq

    first = formatter.normalize_tag(name.lstrip("#"))
    if not first:
        return [], []
    anyof = [first, *[t for t in _tag_list(params.get("any[]") or params.get("any"))
                      if t != first]]
    allof = _tag_list(params.get("all[]") or params.get("all"))
    noneof = set(_tag_list(params.get("none[]") or params.get("none")))
    local = True if flag(params.get("local")) else (False if flag(params.get("remote")) else None)
    low, high = page.id_range()
    descending = not page.ascending
    budget = Budget()
    streams = [repo.tag_entries(t, low, high, descending,
                                only_media=flag(params.get("only_media")), local=local,
                                budget=budget, step=page.step)
               for t in anyof]
    merged = heapq.merge(*streams, key=lambda e: int(e["id"]), reverse=descending)

    def unique(entries):
        seen: set[str] = set()
        for entry in entries:
            if entry["id"] not in seen:
                seen.add(entry["id"])
                yield entry

    def keep(status: dict[str, Any]) -> bool:
        tags = set(status.get("tags", []))
        return all(t in tags for t in allof) and not (tags & noneof)

    hydrate = _renderer(viewer_id, relationships.loader(viewer_id), "public", keep)
    filled = fill_page(unique(merged), hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda s: s["id"])
    return filled.items, filled.link_ids
