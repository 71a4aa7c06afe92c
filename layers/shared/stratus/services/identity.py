"""Token → viewer resolution and roles (shared by every authenticated route)."""

from __future__ import annotations

from ..domain.viewer import Viewer
from ..auth.tokens import digest
from ..domain import roles
from ..repo import accounts as accounts_repo
from ..repo import base, keys
from ..repo import oauth as oauth_repo


def role_for(role_id: str | None) -> roles.Role:
    if not role_id:
        return roles.EVERYONE
    built_in = roles.BUILT_IN.get(str(role_id))
    if built_in is not None:
        return built_in
    item = base.get(keys.role(str(role_id)))
    return roles.from_item(item) if item else roles.EVERYONE


def viewer_for_account(account_id: str, token: dict | None = None) -> Viewer | None:
    """The local account acting (with `token`, or by itself for jobs); None if it is gone."""
    bundle = accounts_repo.get_bundle(account_id)
    account, user = bundle.get(accounts_repo.PROFILE), bundle.get(accounts_repo.USER)
    if account is None or user is None:
        return None
    return Viewer(token=token or {"client_id": None}, account=account, user=user,
                  stats=bundle.get(accounts_repo.STATS), role=role_for(user.get("role_id")))


def viewer_for_token(raw: str) -> Viewer | None:
    token = oauth_repo.get_token(digest(raw))
    if token is None:
        return None
    if token.get("account_id"):
        return viewer_for_account(token["account_id"], token)  # None: tokens die with accounts
    return Viewer(token=token)


def accounts_who_can(permission: int) -> list[str]:
    """Local users whose role grants `permission` (built-in and custom roles), through the
    index of users by role: no Scan."""
    granting = [r.id for r in roles.BUILT_IN.values()
                if r.id != roles.EVERYONE.id and r.can(permission)]
    for item in accounts_repo.list_roles():
        if item.get("id") is not None and roles.from_item(item).can(permission):
            granting.append(str(item["id"]))
    return accounts_repo.members_of_roles(granting)
