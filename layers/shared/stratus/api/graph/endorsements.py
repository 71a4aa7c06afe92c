"""Endorsements (featured accounts): endorse and unendorse an account the viewer follows, the
viewer's own list and an account's list. Unfollowing, a block or a removed follower ends the
endorsement that depended on the follow (in the same transaction)."""

from __future__ import annotations

from typing import Any

from stratus.api.graph import follows
from stratus.core import ids
from stratus.core.errors import Unprocessable
from stratus.core.paging import Budget, Page
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import relationships
from stratus.repo import relationships as repo

MUST_FOLLOW = "Validation failed: You must be already following the person you want to endorse"


def endorse(viewer: Viewer, target_id: str) -> dict[str, Any]:
    """POST /api/v1/accounts/:id/endorse (and the older /pin)."""
    target = relationships.subject(viewer, target_id)
    me = viewer.account_id
    if target.id not in target.relations.following:
        raise Unprocessable(MUST_FOLLOW)
    repo.endorse(ids.new_id(), me, target.id, not_following=Unprocessable(MUST_FOLLOW))
    target.relations.endorsed.add(target.id)
    return target.entity()


def unendorse(viewer: Viewer, target_id: str) -> dict[str, Any]:
    """POST /api/v1/accounts/:id/unendorse (and the older /unpin)."""
    target = relationships.subject(viewer, target_id)
    if target.id in target.relations.endorsed:
        repo.unendorse(viewer.account_id, target.id)
    target.relations.endorsed.discard(target.id)
    return target.entity()


def _page(owner_id: str, page: Page, relations: relationships.Loader | None = None
          ) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of an account's endorsements; with `relations`, without the accounts the viewer
    blocks, is blocked by or mutes."""
    budget = Budget()
    entries = repo.endorsements(owner_id, *page.id_range(), not page.ascending, budget=budget,
                                step=page.step)
    account_of = lambda e: e["target_id"]  # noqa: E731
    if relations is None:
        return follows.account_page(entries, account_of, page, budget)
    return follows.account_page(follows.preloading(entries, account_of, relations), account_of,
                                page, budget, keep=lambda a: not relations.view.excludes(a))


def mine(viewer: Viewer, page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/endorsements."""
    return _page(viewer.account_id, page)


def of_account(viewer: Viewer | None, account_id: str, page: Page
               ) -> tuple[list[dict[str, Any]], list[str]]:
    """GET /api/v1/accounts/:id/endorsements: nothing when the account blocks the viewer;
    others do not see accounts they block, are blocked by or mute."""
    owner = accounts_read.get_account(account_id)
    viewer_id = viewer.account_id if viewer else None
    relations = relationships.loader(viewer_id)
    if owner["id"] in relations.accounts([owner["id"]]).blocked_by or owner.get("suspended"):
        return [], []
    if viewer_id is None or viewer_id == owner["id"]:
        return _page(owner["id"], page)
    return _page(owner["id"], page, relations)
