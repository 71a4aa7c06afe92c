"""Follow suggestions (Mastodon 4.x AccountSuggestions): accounts staff feature, then popular
ones, less those the viewer should not be offered.

Sources, in Mastodon's order:
- `featured` (SettingSource): the local accounts named in the `bootstrap_timeline_accounts`
  setting (`stratusctl settings set bootstrap_timeline_accounts alice,bob`), in that order;
- `most_followed` (GlobalSource): local accounts by followers, from the directory's followers
  index (kept on write by the effects worker, workers/directory.py), among those that posted
  within the last 30 days (Mastodon's FollowRecommendation ranks accounts active that month).
Both only offer listable accounts (discoverable, usable, neither suspended nor silenced) and
never the viewer, accounts it follows or asked to follow, blocks, is blocked by or mutes, nor
ones it dismissed (`DELETE /api/v1/suggestions/:account_id`, remembered for good).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from stratus.core import clock, ids
from stratus.core.errors import NotFound
from stratus.core.params import to_i
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import directory as directory_read
from stratus.read import settings as settings_service
from stratus.repo import accounts as accounts_repo
from stratus.repo import directory as repo
from stratus.repo import relationships as relationships_repo

DEFAULT_LIMIT, MAX_LIMIT = 40, 80
POPULAR_EXAMINED = 400  # popular accounts read per request, at most
ACTIVE_DAYS = 30
LEGACY_SOURCE = {"featured": "staff", "most_followed": "global"}


def _limit(params: dict[str, Any]) -> int:
    return min(max(to_i(params.get("limit")) or DEFAULT_LIMIT, 1), MAX_LIMIT)


def _featured_ids() -> list[str]:
    names = settings_service.current()["bootstrap_timeline_accounts"]
    found = []
    for name in str(names or "").split(","):
        username = name.strip().removeprefix("@")
        account_id = accounts_repo.id_by_handle(username) if username else None
        if account_id:
            found.append(account_id)
    return list(dict.fromkeys(found))


def _excluded(me: str, candidates: list[str]) -> set[str]:
    """The candidates this viewer is not offered: itself, followed, requested, blocked either
    way, muted, dismissed — read in one batch with the viewer's edges."""
    others = [c for c in candidates if c != me]
    view, alongside = relationships_repo.load(me, others, full=False, suggestions=True)
    gone = {me} | {c for c in others if c in view.following or view.excludes(c)}
    return gone | alongside.dismissed | alongside.requested


def get(viewer: Viewer, limit: int) -> list[tuple[dict[str, Any], list[str]]]:
    """Up to `limit` (Account, sources) pairs, featured first, then most followed."""
    me = viewer.account_id
    sources: dict[str, list[str]] = {}
    for account_id in _featured_ids():
        sources.setdefault(account_id, []).append("featured")
    chosen: list[tuple[dict[str, Any], list[str]]] = []
    seen: set[str] = set()
    since = clock.iso(clock.now() - timedelta(days=ACTIVE_DAYS))

    def take(batch: list[str], popular: bool) -> None:
        fresh = [a for a in batch if a not in seen]
        seen.update(fresh)
        if not fresh:
            return
        gone = _excluded(me, fresh)
        found = accounts_repo.get_many([a for a in fresh if a not in gone],
                                       (accounts_repo.PROFILE, accounts_repo.STATS,
                                        accounts_repo.USER))
        for account_id in fresh:
            bundle = found.get(account_id)
            if bundle is None or not directory_read.listable(bundle) or len(chosen) >= limit:
                continue
            if popular:
                stats = bundle.get(accounts_repo.STATS) or {}
                if (stats.get("last_status_at") or "") < since:
                    continue
                sources.setdefault(account_id, []).append("most_followed")
            chosen.append((accounts_read.render(bundle), sources[account_id]))

    take(list(sources), popular=False)
    batch: list[str] = []
    for account_id in repo.popular(POPULAR_EXAMINED):
        if len(chosen) >= limit:
            break
        if account_id in sources:  # featured and popular: one suggestion, both sources
            sources[account_id].append("most_followed")
            continue
        batch.append(account_id)
        if len(batch) == DEFAULT_LIMIT:
            take(batch, popular=True)
            batch = []
    if batch and len(chosen) < limit:
        take(batch, popular=True)
    return chosen


def v2(viewer: Viewer, params: dict[str, Any]) -> list[dict[str, Any]]:
    """GET /api/v2/suggestions: Suggestion entities (`source` is the deprecated one-word
    form of the first of `sources`)."""
    return [{"source": LEGACY_SOURCE[found[0]], "sources": list(found), "account": account}
            for account, found in get(viewer, _limit(params))]


def v1(viewer: Viewer, params: dict[str, Any]) -> list[dict[str, Any]]:
    """GET /api/v1/suggestions: the same accounts, as Accounts."""
    return [account for account, _ in get(viewer, _limit(params))]


def dismiss(viewer: Viewer, account_id: str) -> dict[str, Any]:
    """DELETE /api/v1/suggestions/:account_id: never suggest that account again; `{}`."""
    if not ids.is_id(account_id) or accounts_repo.get_profile(account_id) is None:
        raise NotFound()
    repo.dismiss(viewer.account_id, account_id, clock.iso(clock.now()))
    return {}
