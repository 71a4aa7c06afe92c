"""Custom roles through the API and role assignment: what a role may grant, where it may sit,
@everyone, deletion, assignment, the audit log, and the cost of resolving roles per request."""

from __future__ import annotations

import pytest
from stratus.model.roles import Permission as P
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import audit

from tests.rig import auth, count_dynamodb_calls, make_app, make_user, user_token

ADMIN_SCOPES = ("admin:read", "admin:write")
NOT_ALLOWED = {"error": "This action is not allowed"}


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write admin:read admin:write")


@pytest.fixture
def owner(app):
    return auth(user_token(app, make_user("boss", role="Owner"), scopes=ADMIN_SCOPES))


def create(client, headers, **fields):
    response = client.post("/api/v1/admin/roles", headers=headers, json=fields)
    assert response.status_code == 200, response.text
    return response.json()


def member(client, app, owner, name, role_id):
    """A user holding `role_id` (assigned by the owner) and its admin-scoped token."""
    account = make_user(name)
    if role_id is not None:
        response = client.post(f"/api/v1/admin/accounts/{account}/role", headers=owner,
                               json={"role_id": role_id})
        assert response.status_code == 200, response.text
    return account, auth(user_token(app, account, scopes=ADMIN_SCOPES))


@pytest.fixture
def manager(client, app, owner):
    """A staff member whose role (position 50) may manage roles and users, nothing else."""
    role = create(client, owner, name="Manager", position=50,
                  permissions=str(P.MANAGE_ROLES | P.MANAGE_USERS))
    account, headers = member(client, app, owner, "manager", role["id"])
    return {"role": role, "account": account, "headers": headers}


def test_create_list_show_and_audit(client, owner, entity):
    body = create(client, owner, name="Helpers", permissions=str(P.MANAGE_REPORTS | P.VIEW_DASHBOARD),
                  color="#ff8800", highlighted=True, position=5)
    entity("Role", body)
    assert body["name"] == "Helpers" and body["color"] == "#ff8800" and body["highlighted"] is True
    assert body["permissions"] == str(P.MANAGE_REPORTS | P.VIEW_DASHBOARD)
    assert body["position"] == 5
    assert client.get(f"/api/v1/admin/roles/{body['id']}", headers=owner).json() == body
    listing = client.get("/api/v1/admin/roles", headers=owner).json()
    assert [r["name"] for r in listing] == ["Owner", "Admin", "Moderator", "Helpers", ""]
    assert listing[-1]["id"] == "-99"
    [entry] = audit.by_target("UserRole", body["id"])
    assert entry["action"] == "create" and entry["human_identifier"] == "Helpers"
    assert client.get("/api/v1/admin/roles/12345", headers=owner).status_code == 404
    assert client.get("/api/v1/admin/roles/nope", headers=owner).status_code == 404


def test_validation(client, owner):
    cases = [({"permissions": "1"}, "name"), ({"name": "x", "color": "red"}, "color"),
             ({"name": "x", "permissions": "abc"}, "permissions"),
             ({"name": "x", "permissions": str(1 << 40)}, "permissions"),
             ({"name": "x", "position": "high"}, "position"),
             ({"name": "x" * 256}, "name")]
    for fields, field in cases:
        response = client.post("/api/v1/admin/roles", headers=owner, json=fields)
        assert response.status_code == 422, (fields, response.text)
        assert field in response.json()["details"], (fields, response.json())
        assert response.json()["error"].startswith("Validation failed: ")


def test_a_role_grants_its_permissions_and_loses_them(client, app, owner):
    role = create(client, owner, name="Support", permissions=str(P.MANAGE_USERS), position=1)
    account, headers = member(client, app, owner, "helper", role["id"])
    assert client.get("/api/v1/admin/accounts", headers=headers).status_code == 200
    shown = client.get(f"/api/v1/admin/accounts/{account}", headers=owner).json()
    assert shown["role"]["id"] == role["id"] and shown["role"]["name"] == "Support"
    changed = client.put(f"/api/v1/admin/roles/{role['id']}", headers=owner,
                         json={"permissions": str(P.MANAGE_REPORTS), "name": "Reports"})
    assert changed.status_code == 200 and changed.json()["name"] == "Reports"
    denied = client.get("/api/v1/admin/accounts", headers=headers)
    assert denied.status_code == 403 and denied.json() == NOT_ALLOWED
    assert [e["action"] for e in audit.by_target("UserRole", role["id"])] == ["create", "update"]


def test_a_role_grants_only_what_the_actor_holds(client, manager):
    headers = manager["headers"]
    elevated = client.post("/api/v1/admin/roles", headers=headers,
                           json={"name": "Mods", "permissions": str(P.MANAGE_REPORTS),
                                 "position": 10})
    assert elevated.status_code == 422
    assert elevated.json()["details"]["permissions"][0]["error"] == "ERR_ELEVATED"
    administrator = client.post("/api/v1/admin/roles", headers=headers,
                                json={"name": "Root", "permissions": str(P.ADMINISTRATOR),
                                      "position": 10})
    assert administrator.status_code == 422
    allowed = create(client, headers, name="Users", permissions=str(P.MANAGE_USERS), position=10)
    raising = client.put(f"/api/v1/admin/roles/{allowed['id']}", headers=headers,
                         json={"permissions": str(P.MANAGE_USERS | P.MANAGE_BLOCKS)})
    assert raising.status_code == 422
    assert raising.json()["details"]["permissions"][0]["error"] == "ERR_ELEVATED"


def test_a_role_holding_more_than_the_actor_cannot_be_edited_by_it(client, owner, manager):
    """Mastodon validates a role's whole permission set on every save, so a rename is refused
    too when the role holds something the actor does not."""
    blocks = create(client, owner, name="Blocks", permissions=str(P.MANAGE_BLOCKS), position=10)
    renamed = client.put(f"/api/v1/admin/roles/{blocks['id']}", headers=manager["headers"],
                         json={"name": "Renamed"})
    assert renamed.status_code == 422
    assert renamed.json()["details"]["permissions"][0]["error"] == "ERR_ELEVATED"
    assert client.put(f"/api/v1/admin/roles/{blocks['id']}", headers=owner,
                      json={"name": "Renamed"}).json()["name"] == "Renamed"


def test_roles_are_managed_only_below_ones_own_position(client, owner, manager):
    headers = manager["headers"]
    for position in (50, 60):
        response = client.post("/api/v1/admin/roles", headers=headers,
                               json={"name": "Peer", "position": position})
        assert response.status_code == 422
        assert response.json()["details"]["position"][0]["error"] == "ERR_ELEVATED"
    below = create(client, headers, name="Below", position=49)
    assert client.put(f"/api/v1/admin/roles/{below['id']}", headers=headers,
                      json={"position": 50}).status_code == 422
    above = create(client, owner, name="Above", position=70)
    own = manager["role"]["id"]
    for role_id in (above["id"], own, "1", "2", "3"):
        update = client.put(f"/api/v1/admin/roles/{role_id}", headers=headers, json={"name": "x"})
        assert update.status_code == 403 and update.json() == NOT_ALLOWED, role_id
        assert client.delete(f"/api/v1/admin/roles/{role_id}", headers=headers).status_code == 403
    # Built-in roles are fixed, even for the owner.
    assert client.put("/api/v1/admin/roles/1", headers=owner, json={"name": "x"}).status_code == 403
    assert client.delete("/api/v1/admin/roles/2", headers=owner).status_code == 403
    assert client.delete(f"/api/v1/admin/roles/{below['id']}", headers=headers).status_code == 200
    assert client.get(f"/api/v1/admin/roles/{below['id']}", headers=headers).status_code == 404


def test_everyone_changes_only_in_safe_permissions(client, app, owner):
    plain = make_user("plain")
    assert roles_read.role_for(None).can(P.INVITE_USERS)
    custom = create(client, owner, name="Nothing", permissions="0", position=1)
    _, _ = member(client, app, owner, "holder", custom["id"])
    assert roles_read.role_for(custom["id"]).can(P.INVITE_USERS)  # inherited from @everyone
    revoked = client.put("/api/v1/admin/roles/-99", headers=owner, json={"permissions": "0"})
    assert revoked.status_code == 200 and revoked.json()["permissions"] == "0"
    assert revoked.json()["name"] == "" and revoked.json()["position"] == -1
    user = accounts_repo.get_user(plain)
    assert not roles_read.role_for(user.get("role_id")).can(P.INVITE_USERS)
    assert not roles_read.role_for(custom["id"]).can(P.INVITE_USERS)
    dangerous = client.put("/api/v1/admin/roles/-99", headers=owner,
                           json={"permissions": str(P.MANAGE_USERS)})
    assert dangerous.status_code == 422
    assert dangerous.json()["details"]["permissions"][0]["error"] == "ERR_DANGEROUS"
    renamed = client.put("/api/v1/admin/roles/-99", headers=owner, json={"name": "All"})
    assert renamed.status_code == 422 and "name" in renamed.json()["details"]
    assert client.delete("/api/v1/admin/roles/-99", headers=owner).status_code == 403
    assert [e["action"] for e in audit.by_target("UserRole", "-99")] == ["update"]


def test_assignment_rules_and_audit(client, app, owner, manager):
    headers = manager["headers"]
    low = create(client, owner, name="Low", position=5)
    high = create(client, owner, name="High", position=80)
    target = make_user("target")
    given = client.post(f"/api/v1/admin/accounts/{target}/role", headers=headers,
                        json={"role_id": low["id"]})
    assert given.status_code == 200 and given.json()["role"]["id"] == low["id"]
    [entry] = audit.by_target("User", target)
    assert entry["action"] == "change_role" and entry["human_identifier"] == "target"
    assert entry["account_id"] == manager["account"]
    # Not a role at or above one's own, not to someone at or above, not to oneself.
    for role_id in (high["id"], manager["role"]["id"], "2"):
        response = client.post(f"/api/v1/admin/accounts/{target}/role", headers=headers,
                                json={"role_id": role_id})
        assert response.status_code == 403 and response.json() == NOT_ALLOWED, role_id
    admin_user = make_user("anadmin", role="Admin")
    for account in (admin_user, manager["account"]):
        response = client.post(f"/api/v1/admin/accounts/{account}/role", headers=headers,
                               json={"role_id": low["id"]})
        assert response.status_code == 403, account
        assert client.delete(f"/api/v1/admin/accounts/{account}/role",
                             headers=headers).status_code == 403
    assert client.post(f"/api/v1/admin/accounts/{target}/role", headers=headers,
                       json={"role_id": "424242"}).status_code == 404
    assert client.post(f"/api/v1/admin/accounts/{target}/role", headers=headers,
                       json={}).status_code == 422
    assert client.post("/api/v1/admin/accounts/999/role", headers=headers,
                       json={"role_id": low["id"]}).status_code == 404
    removed = client.delete(f"/api/v1/admin/accounts/{target}/role", headers=headers)
    assert removed.status_code == 200 and removed.json()["role"]["id"] == "-99"
    assert "role_id" not in accounts_repo.get_user(target)
    again = client.post(f"/api/v1/admin/accounts/{target}/role", headers=headers,
                        json={"role_id": "-99"})
    assert again.status_code == 200 and again.json()["role"]["id"] == "-99"
    assert [e["action"] for e in audit.by_target("User", target)] == ["change_role"] * 2
    staff = client.get(f"/api/v2/admin/accounts?role_ids[]={low['id']}", headers=owner).json()
    assert staff == []


def test_deleting_a_role_in_use_moves_its_holders_to_everyone(client, app, owner):
    role = create(client, owner, name="Temporary", permissions=str(P.MANAGE_USERS), position=3)
    account, headers = member(client, app, owner, "temp", role["id"])
    assert roles_read.accounts_who_can(P.MANAGE_USERS).count(account) == 1
    deleted = client.delete(f"/api/v1/admin/roles/{role['id']}", headers=owner)
    assert deleted.status_code == 200 and deleted.json() == {}
    assert "role_id" not in accounts_repo.get_user(account)
    assert account not in roles_read.accounts_who_can(P.MANAGE_USERS)
    assert client.get("/api/v1/admin/accounts", headers=headers).status_code == 403
    shown = client.get(f"/api/v1/admin/accounts/{account}", headers=owner).json()
    assert shown["role"]["id"] == "-99"
    assert [e["action"] for e in audit.by_target("UserRole", role["id"])] == ["create", "destroy"]


def test_a_role_written_elsewhere_is_found(client, owner):
    """Another process's new role is found by id before this process's copy expires."""
    from stratus.repo import base
    from stratus.repo import roles as roles_repo

    roles_read.all_roles()  # this process's copy, without the role
    base.transact([roles_repo.put_op({"id": "777", "name": "Elsewhere", "color": "",
                                      "position": 2, "highlighted": False, "permissions": 0},
                                     new=False)])
    response = client.get("/api/v1/admin/roles/777", headers=owner)
    assert response.status_code == 200 and response.json()["name"] == "Elsewhere"


def test_a_custom_role_costs_no_read_per_request(client, app, owner):
    """Role definitions are read once per warm Lambda, not once per request: a user with a
    custom role costs the same DynamoDB calls as one without."""
    role = create(client, owner, name="Cheap", permissions=str(P.MANAGE_USERS), position=1)
    _, custom = member(client, app, owner, "custom", role["id"])
    plain = auth(user_token(app, make_user("plainuser"), scopes=("read",)))
    custom_read = auth(user_token(app, accounts_repo.id_by_handle("custom"), scopes=("read",)))
    for headers in (plain, custom_read):  # warm
        assert client.get("/api/v1/accounts/verify_credentials", headers=headers).status_code == 200
    counts = []
    for headers in (plain, custom_read):
        calls, stop = count_dynamodb_calls()
        try:
            response = client.get("/api/v1/accounts/verify_credentials", headers=headers)
        finally:
            stop()
        assert response.status_code == 200
        counts.append(list(calls))
    # The viewer kept for reads (auth/identity.py); verify_credentials reads its account afresh.
    assert counts[0] == counts[1] == ["BatchGetItem"], counts
