"""The permission walk: every route of the Admin function, from the app's route table (so
routes added in any `functions/admin/*.py` module are covered once merged), declares the
permission it needs, and refuses a staff role that holds everything but that permission —
as well as a token without an admin scope and no token at all."""

from __future__ import annotations

import re

import pytest
from stratus.auth import scopes
from stratus.model import roles
from stratus.model.roles import Permission
from stratus.repo import base
from stratus.repo import roles as roles_repo

from local.routes import route_table
from tests.rig import auth, make_app, make_user, user_token

ADMIN_SCOPES = ("admin:read", "admin:write")
NOT_ALLOWED = {"error": "This action is not allowed"}
OUT_OF_SCOPE = {"error": "This action is outside the authorized scopes"}
INVALID_TOKEN = {"error": "The access token is invalid"}
PERMISSIONS = {value for name, value in vars(Permission).items()
               if name.isupper() and name != "ALL"}


def _concrete(path: str, objects: dict[str, str]) -> str:
    # Unknown parameters get a placeholder id: the permission is checked before any lookup.
    return re.sub(r"\{([^}]+)\}", lambda m: objects.get(m.group(1), "1"), path)


@pytest.fixture
def walk(client, runtime):
    app = make_app(client, scopes=" ".join(scopes.TOP_LEVEL))
    table = [r for r in route_table(runtime.stack) if r.function == "AdminFunction"]
    low_role = {"id": "100", "name": "Low", "color": "", "position": 1, "highlighted": False,
                "permissions": 0}
    base.transact([roles_repo.put_op(low_role, new=False)])
    holders: dict[int, dict[str, str]] = {}

    def lacking(permission: int) -> dict[str, str]:
        """A token of a user whose role holds every permission except `permission`."""
        if permission not in holders:
            role_id = str(1000 + len(holders))
            base.transact([roles_repo.put_op({
                "id": role_id, "name": f"All but {permission:#x}", "color": "", "position": 500,
                "highlighted": False,
                "permissions": Permission.ALL & ~permission & ~Permission.ADMINISTRATOR},
                new=False)])
            account = make_user(f"lacks{len(holders)}")
            base.transact([roles_repo.assign_op(account, role_id, current=None)])
            holders[permission] = auth(user_token(app, account, scopes=ADMIN_SCOPES))
        return holders[permission]

    objects = {"account_id": make_user("someone"), "role_id": low_role["id"]}
    return {"app": app, "table": table, "lacking": lacking, "objects": objects}


def test_every_admin_route_declares_a_known_permission(walk):
    table = walk["table"]
    assert len(table) >= 20  # accounts, roles, e-mail and IP blocks at the least
    undeclared = [f"{r.method} {r.path}" for r in table
                  if r.declared is None or r.declared.kind != "permission"
                  or r.declared.permission not in PERMISSIONS]
    assert undeclared == []
    assert all(any(s.startswith("admin:") for s in r.declared.scopes) for r in table)


def test_a_role_lacking_the_routes_permission_is_refused(client, walk):
    failures = []
    for route in walk["table"]:
        path = _concrete(route.path, walk["objects"])
        headers = walk["lacking"](route.declared.permission)
        response = client.request(route.method, path, headers=headers)
        if response.status_code != 403 or response.json() != NOT_ALLOWED:
            failures.append(f"{route.method} {route.path}: {response.status_code} "
                            f"{response.text[:80]}")
    assert failures == []


def test_the_same_role_with_the_permission_gets_through(client, walk):
    """The control: a read with the permission added is not refused, so the refusals above
    come from the permission and not from something else."""
    owner = auth(user_token(walk["app"], make_user("owner", role="Owner"), scopes=ADMIN_SCOPES))
    reads = [r for r in walk["table"] if r.method == "GET"]
    assert reads
    for route in reads:
        response = client.get(_concrete(route.path, walk["objects"]), headers=owner)
        assert response.status_code != 403, (route.path, response.text)


def test_without_an_admin_scope_and_without_a_token(client, walk):
    plain_scopes = ("read", "write", "follow", "push")
    owner_account = make_user("boss", role="Owner")
    no_admin = auth(user_token(walk["app"], owner_account, scopes=plain_scopes))
    failures = []
    for route in walk["table"]:
        path = _concrete(route.path, walk["objects"])
        response = client.request(route.method, path, headers=no_admin)
        if response.status_code != 403 or response.json() != OUT_OF_SCOPE:
            failures.append(f"{route.method} {route.path} (no admin scope): {response.status_code}")
        anonymous = client.request(route.method, path)
        if anonymous.status_code != 401 or anonymous.json() != INVALID_TOKEN:
            failures.append(f"{route.method} {route.path} (no token): {anonymous.status_code}")
    assert failures == []


def test_built_in_roles_hold_what_mastodon_gives_them():
    assert roles.OWNER.can(Permission.MANAGE_ROLES) and roles.OWNER.can(Permission.DEVOPS)
    assert not roles.MODERATOR.can(Permission.MANAGE_BLOCKS)
    assert not roles.EVERYONE.can(Permission.MANAGE_USERS)
