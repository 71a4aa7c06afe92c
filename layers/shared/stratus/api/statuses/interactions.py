"""Favourites, boosts, bookmarks, pins and conversation mutes. Each is idempotent and returns
the status with fresh flags. Likes and boosts write only the viewer's own items (their counters
follow from the stream, workers/counters.py); pins check their limit in one transaction."""

from __future__ import annotations

from typing import Any

from stratus.api.statuses import statuses
from stratus.core import clock, ids, limits
from stratus.core.errors import Forbidden, NotFound, Unprocessable
from stratus.core.paging import Budget, Page, fill_page
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import relationships, status_views
from stratus.repo import base, keys
from stratus.repo import statuses as repo
from stratus.repo.base import ConditionFailed

NOT_ALLOWED = "This action is not allowed"


def _target(viewer: Viewer, status_id: str,
            relations: relationships.Loader | None = None) -> dict[str, Any]:
    """The visible status an interaction applies to (a boost's original)."""
    item = statuses.visible_item(status_id, viewer.account_id, relations)
    if item.get("reblog_of_id"):
        item = repo.get(item["reblog_of_id"])
    return item


def _edge_item(kind: str, key: dict[str, str], viewer_id: str, status: dict[str, Any],
               **extra: Any) -> dict[str, Any]:
    edge_id = ids.new_id()
    return {**key, "type": kind.lower(), "id": edge_id, "account_id": viewer_id,
            "status_id": status["id"], "status_account_id": status["account_id"],
            "created_at": clock.iso(clock.now()),
            **keys.edge_index_keys(kind, viewer_id, status["id"], edge_id), **extra}


def _put_edge(item: dict[str, Any]) -> bool:
    """Write an edge once; False if it already existed (the action is idempotent)."""
    return base.put(item, condition="attribute_not_exists(PK)")


def favourite(viewer: Viewer, status_id: str) -> dict[str, Any]:
    relations = relationships.loader(viewer.account_id)
    status = _target(viewer, status_id, relations)
    if not visibility.can_favourite(status, relations.statuses([status])):
        raise Forbidden(NOT_ALLOWED)  # Mastodon: not the statuses of accounts you block
    _put_edge(_edge_item("FAV", keys.favourite(viewer.account_id, status["id"]),
                         viewer.account_id, status))
    return statuses.show(viewer.account_id, status["id"])


def _remove(viewer: Viewer, status_id: str, key_for, counter: str | None) -> dict[str, Any]:
    """Undo an edge. If the viewer has it, no visibility check (Mastodon: works even after the
    author blocked you); otherwise the status must be visible (404) and nothing changes."""
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    if item is not None and item.get("reblog_of_id"):
        item = repo.get(item["reblog_of_id"])
    edge = repo.edge(key_for(viewer.account_id, item["id"])) if item else None
    if edge is None:
        return statuses.show(viewer.account_id, status_id)
    removed = repo.remove_edge(key_for(viewer.account_id, item["id"]))
    # The counter follows from the stream; show the viewer the count without their like.
    taken_back = {item["id"]: {counter: -1}} if counter and removed and removed.get("counted") \
        else None
    return status_views.render([repo.get(item["id"])], viewer.account_id, taken_back)[0]


def unfavourite(viewer: Viewer, status_id: str) -> dict[str, Any]:
    return _remove(viewer, status_id, keys.favourite, "favourites_count")


def bookmark(viewer: Viewer, status_id: str) -> dict[str, Any]:
    status = _target(viewer, status_id)
    _put_edge(_edge_item("BMK", keys.bookmark(viewer.account_id, status["id"]),
                         viewer.account_id, status))
    return statuses.show(viewer.account_id, status["id"])


def unbookmark(viewer: Viewer, status_id: str) -> dict[str, Any]:
    return _remove(viewer, status_id, keys.bookmark, None)


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
    existing = repo.edge(keys.reblog_edge(viewer.account_id, status["id"]))
    if existing is not None:
        return statuses.show(viewer.account_id, existing["reblog_id"])
    reblog_id = ids.new_id()
    username = viewer.account["username"]
    now = clock.iso(clock.now())
    item = {"id": reblog_id, "account_id": viewer.account_id, "reblog_of_id": status["id"],
            "reblog_of_account_id": status["account_id"],
            "visibility": reblog_visibility(viewer, status, visibility_param),
            "uri": f"{statuses.settings().base_url}/users/{username}/statuses/{reblog_id}/activity",
            "url": None, "thread_id": reblog_id, "local": True, "created_at": now,
            "mention_ids": [], "tags": [], "media_ids": []}
    # Only new items: boosts of one status by many accounts never touch a common item (the
    # counters follow from the stream).
    try:
        base.transact([
            base.put_new(_edge_item("REBLOG", keys.reblog_edge(viewer.account_id, status["id"]),
                                    viewer.account_id, status, reblog_id=reblog_id)),
            base.put_new(repo.status_item(item)),
            base.put_new(repo.stats_item(reblog_id))])
    except ConditionFailed:
        existing = repo.edge(keys.reblog_edge(viewer.account_id, status["id"]))
        return statuses.show(viewer.account_id, existing["reblog_id"])
    return statuses.show(viewer.account_id, reblog_id)


def unreblog(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    original_id = (item.get("reblog_of_id") or item["id"]) if item else None
    edge = repo.edge(keys.reblog_edge(viewer.account_id, original_id)) if original_id else None
    if edge is None:
        return statuses.show(viewer.account_id, status_id)
    try:
        base.transact([
            base.Op("Delete", key=keys.reblog_edge(viewer.account_id, original_id),
                    condition="attribute_exists(PK)"),
            base.Op("Delete", key=keys.status(edge["reblog_id"])),
            base.Op("Delete", key=keys.status_stats(edge["reblog_id"]))])
    except ConditionFailed:
        pass  # undone concurrently
    original = repo.get(original_id)
    if original is None:
        raise NotFound()
    taken_back = {original_id: {"reblogs_count": -1}} if edge.get("counted") else None
    return status_views.render([original], viewer.account_id, taken_back)[0]


def pin(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = statuses.visible_item(status_id, viewer.account_id)
    if item["account_id"] != viewer.account_id:
        raise Unprocessable("Validation failed: Someone else's post cannot be pinned")
    if item.get("reblog_of_id"):
        raise Unprocessable("Validation failed: Boosts cannot be pinned")
    if item.get("visibility") == "direct":
        raise Unprocessable("Validation failed: Posts that are only visible to mentioned users "
                            "cannot be pinned")
    base.transact([
        base.put_new(_edge_item("PIN", keys.pin(viewer.account_id, item["id"]),
                                viewer.account_id, item),
                     on_conflict=Unprocessable("Duplicate record")),
        base.Op("Update", key=keys.account_stats(viewer.account_id),
                expression="ADD pins_count :one",
                condition="attribute_not_exists(pins_count) OR pins_count < :max",
                vals={":one": 1, ":max": limits.MAX_PINNED_STATUSES},
                on_conflict=Unprocessable("Validation failed: You have already pinned the "
                                          "maximum number of posts"))])
    return statuses.show(viewer.account_id, item["id"])


def unpin(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = statuses.visible_item(status_id, viewer.account_id)
    if repo.edge(keys.pin(viewer.account_id, item["id"])) is not None:
        try:
            base.transact([base.Op("Delete", key=keys.pin(viewer.account_id, item["id"]),
                                   condition="attribute_exists(PK)"),
                           base.Op("Update", key=keys.account_stats(viewer.account_id),
                                   expression="ADD pins_count :minus", vals={":minus": -1})])
        except ConditionFailed:
            pass
    return statuses.show(viewer.account_id, item["id"])


def mute(viewer: Viewer, status_id: str, muted: bool) -> dict[str, Any]:
    item = _target(viewer, status_id)
    key = keys.muted_thread(viewer.account_id, item.get("thread_id") or item["id"])
    if muted:
        base.put({**key, "type": "conversation_mute", "account_id": viewer.account_id,
                  "thread_id": item.get("thread_id") or item["id"]})
    else:
        base.delete(key)
    return statuses.show(viewer.account_id, status_id)


# --- lists ---------------------------------------------------------------------------------------
def _bounds(page: Page) -> tuple[str, str, bool]:
    return (*keys.id_range(*page.id_range()), not page.ascending)


EDGE_KINDS = {"favourited": "FAV", "reblogged": "REBLOG", "bookmarked": "BMK"}


def actors(viewer_id: str | None, status_id: str, action: str, page: Page
           ) -> tuple[list[dict[str, Any]], list[str]]:
    """Who favourited or reblogged a status: (accounts, edge ids), newest first."""
    kind = EDGE_KINDS[action]
    item = statuses.visible_item(status_id, viewer_id)
    lo, hi, descending = _bounds(page)
    entries = []
    for entry in repo.edge_entries("GSI1", keys.edges_by_status(kind, item["id"]), lo, hi,
                                   descending):
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
    lo, hi, descending = _bounds(page)

    relations = relationships.loader(viewer.account_id)

    def hydrate(entries: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        found = repo.get_many([e["status_id"] for e in entries])
        candidates = [found[e["status_id"]] for e in entries if e["status_id"] in found]
        visible = {s["id"] for s in visibility.filter_visible(
            candidates, relations.statuses(candidates))}
        return [(e["id"], found[e["status_id"]]) for e in entries if e["status_id"] in visible]

    budget = Budget()
    filled = fill_page(repo.edge_entries("GSI2", keys.edges_of(kind, viewer.account_id), lo, hi,
                                         descending, budget=budget, step=page.step),
                       hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda pair: pair[0])
    rendered = status_views.render([s for _, s in filled.items], viewer.account_id,
                                   relations=relations)
    return rendered, filled.link_ids
