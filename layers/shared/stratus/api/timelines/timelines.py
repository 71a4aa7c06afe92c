"""Timelines: home (the viewer's feed, fed by fan-out), public (local and remote, spread over
hour buckets and shards) and hashtag timelines, each a page of ids read from an index, then
read, passed through the visibility policy and rendered in batches.

The viewer's filters are compiled once per request for the timeline's context (home and lists:
`home`; public and hashtags: `public`) and applied to each batch as it is rendered, so a status a
`hide` filter removes does not leave the page short: the page fills from further entries."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterator
from typing import Any

from stratus.api.lists import lists
from stratus.auth import activity
from stratus.core import clock, ids, parallel, warm
from stratus.core.errors import NotFound
from stratus.core.paging import Budget, Page, begun, fill_page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import feeds
from stratus.repo import statuses as repo
from stratus.text import formatter

MAX_EXTRA_TAGS = 4  # Mastodon takes at most 4 tags from each of any[], all[], none[]
REFRESH_RETRY_SECONDS = 3
HOURS_LISTED = 48  # hours with public statuses one Query lists ahead of a public page
HOURS_AT_ONCE = 3  # further hours of each scope a public page reads at once
RECENT_HOURS_TTL = 60  # seconds a process keeps its copy of the newest hours' directory

_recent_hours = {scope: warm.Warm(lambda scope=scope: repo.newest_public_hours(scope,
                                                                                HOURS_LISTED),
                                  RECENT_HOURS_TTL) for scope in ("LOCAL", "REMOTE")}


def _shown(statuses: list[dict[str, Any]], relations: relationships.Loader
           ) -> list[dict[str, Any]]:
    """What a timeline shows the viewer: visible, and not by (or boosting) accounts the viewer
    blocks, is blocked by or mutes."""
    view = relations.statuses(statuses)
    return [s for s in visibility.without_hidden(statuses, view)
            if not visibility.boosts_excluded(s, view)]


def _renderer(viewer_id: str | None, relations: relationships.Loader, context: str,
              keep=lambda status: True):
    """Read, check and render a batch of entries with the viewer's filters for `context`
    (compiled once for the request, beside its first index read). A batch takes two round
    trips (status_views.read_batch)."""
    matcher = parallel.start(lambda: filters.compiled(viewer_id, context))

    def hydrate(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        batch = status_views.read_batch(entries, viewer_id, relations, keep)
        rendered = status_views.render(_shown(batch.statuses, relations), viewer_id,
                                       relations=relations, matcher=matcher.result(),
                                       originals=batch.originals, loaded=batch.loaded)
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
    # The feed's state, its first entries and the viewer's filters: one round trip.
    state = parallel.start(lambda: _home_state(viewer))
    hydrate = _renderer(viewer.account_id, relationships.loader(viewer.account_id), "home")
    budget = Budget()
    entries = feeds.entries(feeds.home(viewer.account_id), *page.id_range(), not page.ascending,
                            budget=budget, step=page.step)
    filled = fill_page((_feed_entry(e) for e in entries), hydrate, page, budget=budget,
                       id_of=lambda e: e["id"], result_id=lambda s: s["id"])
    return filled.items, filled.link_ids, state.result()


def _feed_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A feed entry as a batch of entries to hydrate: the status, its author and what it
    boosts."""
    return {"id": entry["status_id"], "author_id": entry.get("author_id"),
            "reblog_of_id": entry.get("reblog_of_id")}


def list_timeline(viewer: Viewer, list_id: str, page: Page
                  ) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of one of the viewer's lists (fed by fan-out like home)."""
    # Whose list it is, its first entries and the viewer's filters: one round trip (the
    # entries are not looked at before the list is known to be the viewer's).
    if not ids.is_id(str(list_id)):
        lists.own(viewer, list_id)  # 404
    owned = parallel.start(lambda: lists.own(viewer, list_id))
    hydrate = _renderer(viewer.account_id, relationships.loader(viewer.account_id), "home")
    budget = Budget()
    entries = begun(feeds.entries(feeds.of_list(list_id), *page.id_range(),
                                  not page.ascending, budget=budget, step=page.step))
    owned.result()
    filled = fill_page((_feed_entry(e) for e in entries), hydrate, page, budget=budget,
                       id_of=lambda e: e["id"], result_id=lambda s: s["id"])
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


def _public_batches(scopes: list[str], low: int, high: int, descending: bool, limit: int,
                    only_media: bool, budget: Budget, newest: bool = False
                    ) -> Iterator[list[dict[str, Any]]]:
    """Batches of public index entries of `scopes` with ids in [low, high], newest (or, for a
    `min_id` page, oldest) first, each at most `limit` long, walking hour buckets from the
    page's edge. The first batch is the edge's own hour, read beside the list of the hours
    that have statuses (for the `newest` page, with the nearest listed hours, from a warm
    copy of the list); then `HOURS_AT_ONCE` further hours of every scope at once."""
    def read(pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
        parts = parallel.gather(*(lambda s=s, h=h: repo.public_bucket_entries(
            s, h, low, high, descending, limit=limit, only_media=only_media, budget=budget)
            for s, h in pairs))
        merged = sorted((e for part in parts for e in part), key=lambda e: int(e["id"]),
                        reverse=descending)
        return merged[:limit]

    def listing(scope: str, after: str | None) -> list[str]:
        return repo.public_hours(scope, low, high, descending, HOURS_LISTED, after)

    edge = repo.edge_public_hour(low, high, descending)
    if newest:
        # The newest page: the hours that have statuses come from this process's warm copy of
        # the directory, so the first wave needs no listing first. The edge's hour and the one
        # before it are read whatever the copy says (the effects worker registers a new hour
        # a moment after its first post).
        recent = {s: _recent_hours[s].get() for s in scopes}
        before = repo.hour_before(edge)
        bottom = repo.edge_public_hour(low, high, not descending)
        hours = {s: [h for h in recent[s] if h not in (edge, before) and bottom <= h <= edge]
                 for s in scopes}
        more = {s: recent[s][-1] for s in scopes
                if len(recent[s]) >= HOURS_LISTED and recent[s][-1] >= bottom}
        first = [(s, h) for s in scopes for h in (edge, before, *hours[s][:HOURS_AT_ONCE - 1])]
        for s in scopes:
            del hours[s][:HOURS_AT_ONCE - 1]
        yield read(first)
    else:
        listed = {s: parallel.start(lambda s=s: listing(s, None)) for s in scopes}
        yield read([(s, edge) for s in scopes])
        hours = {s: [h for h in future.result() if h != edge] for s, future in listed.items()}
        # Every listing that came back full may go on after its last hour.
        more = {s: h[-1] for s, h in hours.items() if h and len(h) >= HOURS_LISTED - 1}
    while not budget.spent:
        # Across scopes, nearest hours first (a wave reads the same hours of every scope).
        # Not past the last hour of a listing that goes on: its next hours come first.
        frontier = (max if descending else min)(more.values()) if more else None
        queue = sorted(((s, h) for s, listed_hours in hours.items() for h in listed_hours
                        if frontier is None or (h >= frontier if descending else h <= frontier)),
                       key=lambda pair: pair[1], reverse=descending)
        if not queue:
            if not more:
                return
            for s, after in list(more.items()):
                if after == frontier:
                    got = listing(s, after)
                    hours[s] = hours.get(s, []) + got
                    if len(got) >= HOURS_LISTED:
                        more[s] = got[-1]
                    else:
                        del more[s]
            continue
        wave = queue[:HOURS_AT_ONCE * len(scopes)]
        for s, h in wave:
            hours[s].remove(h)
        yield read(wave)


def public(viewer_id: str | None, params: dict[str, Any], page: Page
           ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/timelines/public: `local`, `remote`, `only_media`, cursors."""
    only_media = flag(params.get("only_media"))
    budget = Budget()
    hydrate = _renderer(viewer_id, relationships.loader(viewer_id), "public")
    low, high = page.id_range()
    low = low if low is not None else 0
    high = high if high is not None else _now_id()
    found: list[dict[str, Any]] = []
    if low <= high:
        for batch in _public_batches(_scopes(params), low, high, not page.ascending,
                                     page.limit, only_media, budget,
                                     newest=page.id_range()[1] is None and not page.ascending):
            found += hydrate(batch[:page.limit - len(found)])
            if len(found) >= page.limit or budget.spent:
                break
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
