"""The profile directory (`GET /api/v1/directory`, Mastodon's Api::V1::DirectoriesController)
and the entries it and popular suggestions read.

An account is listed while it is discoverable (read/directory.py). The effects worker keeps
one entry per listed account from the stream (workers/directory.py), ordered by creation
(`new`), by last status (`active`) and, for local accounts, by followers (popular
suggestions). A listing reads the index and checks each account again as it renders it,
so an entry left behind for a moment never shows an account that may not be.
"""

from __future__ import annotations

from typing import Any

from stratus.core.errors import NotFound
from stratus.core.params import flag, to_i
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import directory as directory_read
from stratus.read import relationships
from stratus.read import settings as settings_service
from stratus.repo import accounts as accounts_repo
from stratus.repo import directory as repo

DEFAULT_LIMIT, MAX_LIMIT = 40, 80
EXTRA_EXAMINED = 400  # entries a listing may read beyond offset + limit (left-out accounts)


def page_params(params: dict[str, Any]) -> tuple[int, int]:
    """(offset, limit): Rails' to_i, limit 40 by default and at most 80."""
    offset = max(to_i(params.get("offset")) or 0, 0)
    limit = to_i(params.get("limit")) or DEFAULT_LIMIT
    return offset, min(max(limit, 1), MAX_LIMIT)


def listing(viewer: Viewer | None, params: dict[str, Any]) -> list[dict[str, Any]]:
    """GET /api/v1/directory: `order` active (default) or new, `local`, `offset`, `limit`.
    A signed-in viewer does not see accounts it blocks, is blocked by or mutes, nor (without
    `local`) those of domains it blocks. 404 when the operator turned the directory off."""
    if not settings_service.current()["profile_directory"]:
        raise NotFound()
    order = "new" if params.get("order") == "new" else "active"
    scopes = ["LOCAL"] if flag(params.get("local")) else ["LOCAL", "REMOTE"]
    offset, limit = page_params(params)
    wanted = offset + limit
    viewer_id = viewer.account_id if viewer is not None and viewer.account else None
    relations = relationships.loader(viewer_id)
    kept: list[dict[str, Any]] = []
    batch: list[str] = []

    def take(ids_: list[str]) -> None:
        found = accounts_repo.get_many(ids_, (accounts_repo.PROFILE, accounts_repo.STATS,
                                              accounts_repo.USER))
        view = relations.accounts(ids_, [b[accounts_repo.PROFILE].get("domain") or ""
                                         for b in found.values()
                                         if accounts_repo.PROFILE in b])
        for account_id in ids_:
            bundle = found.get(account_id)
            if bundle is None or not directory_read.listable(bundle) or view.excludes(account_id):
                continue
            if len(scopes) > 1 and view.blocks_domain(bundle[accounts_repo.PROFILE]
                                                      .get("domain")):
                continue
            kept.append(accounts_read.render(bundle))

    for account_id in repo.listing(order, scopes, wanted + EXTRA_EXAMINED):
        batch.append(account_id)
        if len(batch) == DEFAULT_LIMIT:
            take(batch)
            batch = []
            if len(kept) >= wanted:
                break
    if batch and len(kept) < wanted:
        take(batch)
    return kept[offset:wanted]
