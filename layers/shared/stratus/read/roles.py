"""Roles as stored and held: every role by id (built-in, @everyone's stored permissions, custom
ones), kept per warm Lambda; the role a user's `role_id` names; who holds a permission. Reads
only: the token → viewer resolution (auth/identity.py) and every rule that weighs a sender's
role (notifications, relationships, moderation) look roles up here."""

from __future__ import annotations

from dataclasses import replace

from stratus.core import warm
from stratus.model import roles
from stratus.repo import accounts as accounts_repo

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


def accounts_who_can(permission: int) -> list[str]:
    """Local users whose role grants `permission` (built-in and custom roles), through the
    index of users by role: no Scan."""
    granting = [r.id for r in all_roles().values() if not r.everyone and r.can(permission)]
    return accounts_repo.members_of_roles(granting)
