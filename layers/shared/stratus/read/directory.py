"""Who the profile directory lists (Mastodon's Account.discoverable): the rule the directory
listing and popular suggestions (api/directory/) check as they render, and the effects worker's
directory index (workers/directory.py) keeps its entries by."""

from __future__ import annotations

from typing import Any

from stratus.read import accounts as accounts_read
from stratus.repo import accounts as accounts_repo


def listable(bundle: dict[str, dict[str, Any]]) -> bool:
    """Mastodon's Account.discoverable: searchable (approved, not suspended, not moved), not
    silenced, and opted in."""
    profile = bundle.get(accounts_repo.PROFILE)
    if profile is None or not accounts_read.is_visible(bundle):
        return False
    return bool(profile.get("discoverable")) and not profile.get("suspended_at") \
        and not profile.get("silenced_at") and not profile.get("moved_to_account_id")
