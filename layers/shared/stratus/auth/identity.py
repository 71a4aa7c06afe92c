"""Token → viewer resolution and roles (shared by every authenticated route)."""

from __future__ import annotations

from dataclasses import replace

from stratus.auth.tokens import digest
from stratus.core import warm
from stratus.model import roles
from stratus.model.viewer import Viewer
from stratus.repo import accounts as accounts_repo
from stratus.repo import oauth as oauth_repo

# How long a warm Lambda trusts its copy of the role definitions: a changed or deleted role
# reaches other warm environments within this many seconds (the process that wrote it, at once).
ROLES_TTL = 15.0


def _load_roles() -> dict[str, roles.Role]:
    """Every role by id: the built-in ones, @everyone's stored permissions, the custom roles —
    one Query of the roles partition."""
    stored = {str(i["id"]): i for i in accounts_repo.list_roles() if i.get("id") is not None}
    everyone = roles.EVERYONE
    if roles.EVERYONE_ID in stored:
        everyone = replace(everyone, permissions=int(stored[roles.EVERYONE_ID]["permissions"]))
    table = {everyone.id: everyone}
    for role in roles.BUILT_IN.values():
        if role.id != everyone.id:
            table[role.id] = replace(role, inherited=everyone.permissions)
    for role_id, item in stored.items():
        table.setdefault(role_id, roles.from_item(item, everyone.permissions))
    return table


_roles = warm.Warm(_load_roles, ROLES_TTL)


def all_roles() -> dict[str, roles.Role]:
    return _roles.get()


def roles_changed() -> None:
    """Forget this process's copy after a role was written."""
    _roles.forget()


def role_for(role_id: str | None) -> roles.Role:
    """The role a user's `role_id` names (@everyone when none, or when the role is gone)."""
    table = _roles.get()
    return table.get(str(role_id), table[roles.EVERYONE_ID]) if role_id else \
        table[roles.EVERYONE_ID]


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
    granting = [r.id for r in all_roles().values() if not r.everyone and r.can(permission)]
    return accounts_repo.members_of_roles(granting)
