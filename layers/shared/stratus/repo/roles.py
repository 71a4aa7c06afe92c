"""Stored roles (custom roles and @everyone's permissions) and who holds them.

The built-in roles live in code (model/roles.py); `accounts.list_roles` reads this partition
in one Query, which `read.roles` keeps per warm Lambda."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys
from stratus.repo.accounts import _role_index


def _item(role: dict[str, Any]) -> dict[str, Any]:
    return {**keys.role(role["id"]), "type": "role", **role}


def get(role_id: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.role(role_id), consistent=True))


def put_op(role: dict[str, Any], *, new: bool, on_conflict: Exception | None = None) -> base.Op:
    """Write a role's fields (`id`, `name`, `permissions` ...): a new one (`on_conflict` when
    the id is taken) or over the stored one."""
    if new:
        return base.put_new(_item(role), on_conflict=on_conflict)
    return base.Op("Put", item=_item(role))


def delete_op(role_id: str) -> base.Op:
    return base.Op("Delete", key=keys.role(role_id))


def holders(role_id: str, limit: int = 100) -> list[str]:
    """Ids of (up to `limit`) local users holding the role, through the index of users by role."""
    return [i["account_id"] for i in base.query(keys.role_members(role_id), index="GSI1",
                                                limit=limit)]


def assign_op(account_id: str, role_id: str | None, *, current: str | None,
              on_conflict: Exception | None = None) -> base.Op:
    """Give a user a role (None: @everyone), if it still holds `current` (no lost update)."""
    changes: dict[str, Any] = {"role_id": role_id, **_role_index(account_id, role_id)}
    if current is None:
        condition = "attribute_exists(PK) AND attribute_not_exists(role_id)"
        vals: dict[str, Any] = {}
    else:
        condition = "role_id = :current"
        vals = {":current": current}
    op = base.set_op(keys.account_user(account_id), changes, condition=condition)
    op.on_conflict = on_conflict
    return op.with_vals(vals)
