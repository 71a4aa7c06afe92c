"""Favourites, boosts, bookmarks, pins and conversation mutes. Each is idempotent and returns
the status with fresh flags. Likes and boosts are counted with the edge they write, so the
next request sees the count (repo/counters.write_counted); pins check their limit in one
transaction."""

from __future__ import annotations

from typing import Any

from stratus.core import clock, ids, limits
from stratus.core.config import settings
from stratus.core.errors import Forbidden, NotFound, Unprocessable
from stratus.core.paging import Budget, Page, fill_page
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import relationships, status_views
from stratus.read import statuses as statuses_read
from stratus.repo import interactions as interactions_repo
from stratus.repo import statuses as repo

NOT_ALLOWED = "This action is not allowed"


def _target(viewer: Viewer, status_id: str,
            relations: relationships.Loader | None = None) -> dict[str, Any]:
    """The visible status an interaction applies to (a boost's original)."""
    item = statuses_read.visible_item(status_id, viewer.account_id, relations)
    if item.get("reblog_of_id"):
        item = repo.get(item["reblog_of_id"])
    return item


def favourite(viewer: Viewer, status_id: str) -> dict[str, Any]:
    relations = relationships.loader(viewer.account_id)
    status = _target(viewer, status_id, relations)
    if not visibility.can_favourite(status, relations.statuses([status])):
        raise Forbidden(NOT_ALLOWED)  # Mastodon: not the statuses of accounts you block
    interactions_repo.favourite(viewer.account_id, status)
    return statuses_read.show(viewer.account_id, status["id"])


def _remove(viewer: Viewer, status_id: str, kind: str) -> dict[str, Any]:
    """Undo an edge. If the viewer has it, no visibility check (Mastodon: works even after the
    author blocked you); otherwise the status must be visible (404) and nothing changes."""
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    if item is not None and item.get("reblog_of_id"):
        item = repo.get(item["reblog_of_id"])
    edge = interactions_repo.edge(kind, viewer.account_id, item["id"]) if item else None
    if edge is None:
        return statuses_read.show(viewer.account_id, status_id)
    taken_back = None
    if kind == interactions_repo.FAVOURITE:
        removed, counted_here = interactions_repo.unfavourite(viewer.account_id, item["id"])
        taken_back = _not_yet_taken_back(item["id"], "favourites_count", removed, counted_here)
    else:
        interactions_repo.remove(kind, viewer.account_id, item["id"])
    return status_views.render([repo.get(item["id"])], viewer.account_id, taken_back)[0]


def _not_yet_taken_back(status_id: str, counter: str, removed: dict[str, Any] | None,
                        counted_here: bool) -> dict[str, dict[str, int]] | None:
    """An undone like or boost whose count the counters worker has still to take back (its
    count was contended): the viewer is shown the count without it already."""
    if removed is None or counted_here or not (removed.get("tallied") or removed.get("counted")):
        return None
    return {status_id: {counter: -1}}


def unfavourite(viewer: Viewer, status_id: str) -> dict[str, Any]:
    return _remove(viewer, status_id, interactions_repo.FAVOURITE)


def bookmark(viewer: Viewer, status_id: str) -> dict[str, Any]:
    status = _target(viewer, status_id)
    interactions_repo.bookmark(viewer.account_id, status)
    return statuses_read.show(viewer.account_id, status["id"])


def unbookmark(viewer: Viewer, status_id: str) -> dict[str, Any]:
    return _remove(viewer, status_id, interactions_repo.BOOKMARK)


def reblog_visibility(viewer: Viewer, original: dict[str, Any], requested: Any) -> str:
    """Mastodon: a boost of a private status (only its author may boost it) stays private;
    otherwise the requested visibility, else the user's default; never direct."""
    if original.get("visibility") in ("private", "direct"):
        return original["visibility"]
    wanted = requested if requested in ("public", "unlisted", "private") else \
        viewer.user.get("settings", {}).get("default_privacy", "public")
    return "public" if wanted == "direct" else wanted


def reblog(viewer: Viewer, status_id: str, visibility_param: Any) -> dict[str, Any]:
    relations = relationships.loader(viewer.account_id)
    status = _target(viewer, status_id, relations)
    if not visibility.can_reblog(status, relations.statuses([status])):
        raise Forbidden(NOT_ALLOWED)
    existing = interactions_repo.edge(interactions_repo.BOOST, viewer.account_id, status["id"])
    if existing is not None:
        return statuses_read.show(viewer.account_id, existing["reblog_id"])
    reblog_id = ids.new_id()
    username = viewer.account["username"]
    if not interactions_repo.boost(
            viewer.account_id, status, reblog_id,
            visibility=reblog_visibility(viewer, status, visibility_param),
            uri=f"{settings().base_url}/users/{username}/statuses/{reblog_id}/activity",
            local=True, created_at=clock.iso(clock.now())):
        existing = interactions_repo.edge(interactions_repo.BOOST, viewer.account_id,
                                          status["id"])  # boosted concurrently
        return statuses_read.show(viewer.account_id, existing["reblog_id"])
    return statuses_read.show(viewer.account_id, reblog_id)


def unreblog(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    original_id = (item.get("reblog_of_id") or item["id"]) if item else None
    edge, counted_here = interactions_repo.unboost(viewer.account_id, original_id) \
        if original_id else (None, False)
    if edge is None:
        return statuses_read.show(viewer.account_id, status_id)
    original = repo.get(original_id)
    if original is None:
        raise NotFound()
    taken_back = _not_yet_taken_back(original_id, "reblogs_count", edge, counted_here)
    return status_views.render([original], viewer.account_id, taken_back)[0]


def pin(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = statuses_read.visible_item(status_id, viewer.account_id)
    if item["account_id"] != viewer.account_id:
        raise Unprocessable("Validation failed: Someone else's post cannot be pinned")
    if item.get("reblog_of_id"):
        raise Unprocessable("Validation failed: Boosts cannot be pinned")
    if item.get("visibility") == "direct":
        raise Unprocessable("Validation failed: Posts that are only visible to mentioned users "
                            "cannot be pinned")
    interactions_repo.pin(viewer.account_id, item, max_pinned=limits.MAX_PINNED_STATUSES,
                          on_duplicate=Unprocessable("Duplicate record"),
                          on_full=Unprocessable("Validation failed: You have already pinned "
                                                "the maximum number of posts"))
    return statuses_read.show(viewer.account_id, item["id"])


def unpin(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = statuses_read.visible_item(status_id, viewer.account_id)
    interactions_repo.unpin(viewer.account_id, item["id"])
    return statuses_read.show(viewer.account_id, item["id"])


def mute(viewer: Viewer, status_id: str, muted: bool) -> dict[str, Any]:
    item = _target(viewer, status_id)
    thread_id = item.get("thread_id") or item["id"]
    if muted:
        interactions_repo.mute_thread(viewer.account_id, thread_id)
    else:
        interactions_repo.unmute_thread(viewer.account_id, thread_id)
    return statuses_read.show(viewer.account_id, status_id)


# --- lists ---------------------------------------------------------------------------------------
EDGE_KINDS = {"favourited": interactions_repo.FAVOURITE, "reblogged": interactions_repo.BOOST,
              "bookmarked": interactions_repo.BOOKMARK}


def actors(viewer_id: str | None, status_id: str, action: str, page: Page
           ) -> tuple[list[dict[str, Any]], list[str]]:
    """Who favourited or reblogged a status: (accounts, edge ids), newest first."""
    kind = EDGE_KINDS[action]
    item = statuses_read.visible_item(status_id, viewer_id)
    descending = not page.ascending
    entries = []
    for entry in interactions_repo.by_status(kind, item["id"], *page.id_range(), descending):
        entries.append(entry)
        if len(entries) >= page.limit:
            break
    if not descending:
        entries.reverse()
    accounts = status_views.load_accounts([e["account_id"] for e in entries])
    # Mastodon leaves out accounts the viewer blocks, is blocked by or mutes.
    view = relationships.loader(viewer_id).accounts([e["account_id"] for e in entries])
    kept = [e for e in entries
            if e["account_id"] in accounts and not view.excludes(e["account_id"])]
    return [accounts[e["account_id"]] for e in kept], [e["id"] for e in kept]


def own_list(viewer: Viewer, action: str, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """The viewer's favourites or bookmarks: (statuses, edge ids), by when they were made."""
    kind = EDGE_KINDS[action]
    descending = not page.ascending
    relations = relationships.loader(viewer.account_id)

    def hydrate(entries: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        found = repo.get_many([e["status_id"] for e in entries])
        candidates = [found[e["status_id"]] for e in entries if e["status_id"] in found]
        visible = {s["id"] for s in visibility.filter_visible(
            candidates, relations.statuses(candidates))}
        return [(e["id"], found[e["status_id"]]) for e in entries if e["status_id"] in visible]

    budget = Budget()
    filled = fill_page(interactions_repo.of_account(kind, viewer.account_id, *page.id_range(),
                                                    descending, budget=budget, step=page.step),
                       hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda pair: pair[0])
    rendered = status_views.render([s for _, s in filled.items], viewer.account_id,
                                   relations=relations)
    return rendered, filled.link_ids
