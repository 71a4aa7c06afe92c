"""Lists: a user's lists of accounts they follow (title, replies policy, exclusive), their
members, and the lists an account is in. The list timelines are fed by fan-out
(workers/fanout.py) and read by api/timelines/timelines.py."""

from __future__ import annotations

from typing import Any

from stratus.convert import lists as convert_lists
from stratus.core import ids
from stratus.core.errors import NotFound, Unprocessable, ValidationFailed
from stratus.core.paging import Page
from stratus.core.params import flag
from stratus.model.viewer import Viewer
from stratus.read import status_views
from stratus.repo import lists as repo
from stratus.repo import relationships as graph

REPLIES_POLICIES = ("list", "followed", "none")
MAX_LISTS = 50  # Mastodon's List::LIMIT
MAX_TITLE = 256


def own(viewer: Viewer, list_id: str) -> dict[str, Any]:
    """The viewer's list, else 404 (someone else's lists do not exist for them)."""
    item = repo.get(viewer.account_id, list_id) if ids.is_id(str(list_id)) else None
    if item is None:
        raise NotFound()
    return item


def all_of(viewer: Viewer) -> list[dict[str, Any]]:
    return [convert_lists.user_list(i)
            for i in sorted(repo.of_owner(viewer.account_id), key=lambda i: int(i["id"]))]


def show(viewer: Viewer, list_id: str) -> dict[str, Any]:
    return convert_lists.user_list(own(viewer, list_id))


def _fields(params: dict[str, Any], current: dict[str, Any] | None) -> dict[str, Any]:
    title = params.get("title")
    title = title.strip() if isinstance(title, str) else ""
    details: dict[str, list[tuple[str, str]]] = {}
    if not title:
        details["title"] = [("ERR_BLANK", "can't be blank")]
    elif len(title) > MAX_TITLE:
        details["title"] = [("ERR_TOO_LONG", f"is too long (maximum is {MAX_TITLE} characters)")]
    policy = params.get("replies_policy", (current or {}).get("replies_policy", "list"))
    if policy not in REPLIES_POLICIES:
        details["replies_policy"] = [("ERR_INCLUSION", "is not included in the list")]
    if details:
        raise ValidationFailed(details)
    exclusive = flag(params.get("exclusive"), bool((current or {}).get("exclusive", False)))
    return {"title": title, "replies_policy": policy, "exclusive": exclusive}


def create(viewer: Viewer, params: dict[str, Any]) -> dict[str, Any]:
    fields = _fields(params, None)
    if len(repo.of_owner(viewer.account_id)) >= MAX_LISTS:
        raise Unprocessable("Validation failed: You have reached the maximum number of lists")
    item = repo.list_item(viewer.account_id, ids.new_id(), fields)
    repo.create(item)
    return convert_lists.user_list(item)


def update(viewer: Viewer, list_id: str, params: dict[str, Any]) -> dict[str, Any]:
    current = own(viewer, list_id)
    fields = _fields({**current, **params}, current)
    repo.update(viewer.account_id, list_id, fields)
    return convert_lists.user_list({**current, **fields})


def delete(viewer: Viewer, list_id: str) -> dict[str, Any]:
    """Its members and timeline follow it out (the outbox's list removal rule)."""
    own(viewer, list_id)
    repo.delete(viewer.account_id, list_id)
    return {}


def accounts(viewer: Viewer, list_id: str, page: Page, everything: bool
             ) -> tuple[list[dict[str, Any]], list[str]]:
    """The members, by account id newest first (Mastodon paginates them by account id);
    `limit=0` is everything, unpaginated."""
    own(viewer, list_id)
    members = [m["account_id"] for m in repo.members(list_id)]
    low, high = page.id_range()
    chosen = sorted((a for a in members if (low is None or int(a) >= low) and
                     (high is None or int(a) <= high)), key=int, reverse=not page.ascending)
    if not everything:
        chosen = chosen[:page.limit]
    if page.ascending:
        chosen.reverse()
    found = status_views.load_accounts(chosen)
    shown = [found[a] for a in chosen if a in found]
    return shown, ([] if everything else [a["id"] for a in shown])


def _account_ids(raw: Any) -> list[str]:
    values = raw if isinstance(raw, list) else ([raw] if raw not in (None, "") else [])
    return list(dict.fromkeys(str(v) for v in values))


def add(viewer: Viewer, list_id: str, raw_ids: Any) -> dict[str, Any]:
    """Add followed accounts (404 for any the viewer does not follow; 422 for a member)."""
    item = own(viewer, list_id)
    wanted = _account_ids(raw_ids)
    if not wanted or not all(ids.is_id(a) for a in wanted):
        raise NotFound()
    followed = graph.following_among(viewer.account_id, wanted)
    if any(a not in followed for a in wanted):
        raise NotFound()
    if repo.memberships(list_id, wanted):
        raise ValidationFailed({"account_id": [("ERR_TAKEN", "has already been taken")]})
    repo.add_members([repo.member_item(list_id, item["owner_id"], a, ids.new_id())
                      for a in wanted])
    return {}


def remove(viewer: Viewer, list_id: str, raw_ids: Any) -> dict[str, Any]:
    own(viewer, list_id)
    wanted = [a for a in _account_ids(raw_ids) if ids.is_id(a)]
    repo.remove_members(list_id, wanted)
    return {}


def containing(viewer: Viewer, account_id: str) -> list[dict[str, Any]]:
    """GET /api/v1/accounts/:id/lists: the viewer's lists the account is in."""
    if not ids.is_id(str(account_id)):
        raise NotFound()
    mine = []
    after = None
    while True:
        entries, after = repo.lists_containing(account_id, after, 500)
        mine += [(viewer.account_id, e["list_id"]) for e in entries
                 if e["owner_id"] == viewer.account_id]
        if after is None:
            break
    return [convert_lists.user_list(i)
            for i in sorted(repo.get_many(mine), key=lambda i: int(i["id"]))]
