"""Reading accounts as others see them: whether an account is shown at all, its Account entity
(one or many in one batched read), and a shown account by id or by local username. Every use
case that names an account (follows, blocks, search, statuses, directory, federation) reads it
here."""

from __future__ import annotations

from typing import Any

from stratus.convert import accounts as convert
from stratus.core import ids
from stratus.core.errors import NotFound
from stratus.read import roles as roles_read
from stratus.repo import accounts as repo


def is_visible(bundle: dict[str, dict[str, Any]]) -> bool:
    """Whether an account (its PROFILE and USER items) is shown to others at all."""
    profile, user = bundle.get(repo.PROFILE), bundle.get(repo.USER)
    if profile is None:
        return False
    if profile.get("domain") is None:
        # Unconfirmed or unapproved local accounts are not shown (Mastodon hides them).
        return user is not None and bool(user.get("confirmed_at")) and user.get("approved", True)
    return True


def render_many(account_ids: list[str], keep=None) -> dict[str, dict[str, Any]]:
    """{id: Account} for the visible accounts among `account_ids` (and `keep(bundle)`), in one
    batched read."""
    found = repo.get_many(list(dict.fromkeys(account_ids)),
                          (repo.PROFILE, repo.STATS, repo.USER))
    return {a: render(bundle) for a, bundle in found.items()
            if is_visible(bundle) and (keep is None or keep(bundle))}


def render(bundle: dict[str, dict[str, Any]]) -> dict[str, Any]:
    user = bundle.get(repo.USER) or {}
    return convert.account(bundle[repo.PROFILE], bundle.get(repo.STATS),
                           roles_read.role_for(user.get("role_id")))


def get_account(account_id: str) -> dict[str, Any]:
    if not ids.is_id(account_id):
        raise NotFound("Record not found")
    bundle = repo.get_bundle(account_id)
    if not is_visible(bundle):
        raise NotFound("Record not found")
    return render(bundle)


def account_by_username(username: str) -> dict[str, dict[str, Any]] | None:
    account_id = repo.id_by_handle(username)
    if account_id is None:
        return None
    bundle = repo.get_bundle(account_id)
    return bundle if is_visible(bundle) else None
