"""Staff account endpoints: listings (v1 defaults, v2 filters), approve/reject, permissions, audit."""

from __future__ import annotations

import pytest
from stratus.api.accounts import accounts, operator
from stratus.repo import audit

from tests.rig import auth, make_app, make_user, user_token

ADMIN_SCOPES = ("admin:read", "admin:write")


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write admin:read admin:write")


@pytest.fixture
def staff(app):
    owner = make_user("boss", role="Owner")
    return auth(user_token(app, owner, scopes=ADMIN_SCOPES))


@pytest.fixture
def members():
    """Accounts by state (not the shared `people`): {"active", "pending", "pending2",
    "disabled": account id}."""
    return {"active": make_user("active1"), "pending": make_user("waiting", approved=False),
            "pending2": make_user("waiting2", approved=False),
            "disabled": make_user("gone")}


def ids(response):
    return [a["id"] for a in response.json()]


def test_v1_defaults_to_local_active(client, staff, members):
    operator.operator_modify("gone", disable=True)
    response = client.get("/api/v1/admin/accounts", headers=staff)
    assert response.status_code == 200
    usernames = {a["username"] for a in response.json()}
    assert usernames == {"active1", "boss"}
    pending = client.get("/api/v1/admin/accounts?pending=true", headers=staff)
    assert {a["username"] for a in pending.json()} == {"waiting", "waiting2"}
    disabled = client.get("/api/v1/admin/accounts?disabled=1", headers=staff)
    assert [a["username"] for a in disabled.json()] == ["gone"]


def test_v2_filters_and_no_defaults(client, staff, members):
    everyone = client.get("/api/v2/admin/accounts", headers=staff).json()
    assert len(everyone) == 5
    assert ids(client.get("/api/v2/admin/accounts?status=pending", headers=staff)) == \
        [members["pending2"], members["pending"]]  # newest first
    local = client.get("/api/v2/admin/accounts?origin=local&username=wait", headers=staff)
    assert {a["username"] for a in local.json()} == {"waiting", "waiting2"}
    staff_only = client.get("/api/v2/admin/accounts?permissions=staff", headers=staff).json()
    assert [a["username"] for a in staff_only] == ["boss"]
    by_email = client.get("/api/v2/admin/accounts?email=active1@", headers=staff).json()
    assert [a["username"] for a in by_email] == ["active1"]


def test_pagination_with_link_headers(client, staff, members):
    first = client.get("/api/v2/admin/accounts?limit=2", headers=staff)
    assert len(first.json()) == 2
    link = first.headers["link"]
    assert 'rel="next"' in link and "limit=2" in link and link.startswith("<http://localhost:8000/")
    next_url = link.split(";")[0].strip("<>").removeprefix("http://localhost:8000")
    second = client.get(next_url, headers=staff)
    assert len(second.json()) == 2
    assert not set(ids(first)) & set(ids(second))
    assert int(ids(second)[0]) < int(ids(first)[-1])


def test_admin_account_entity(client, staff, members):
    response = client.get(f"/api/v1/admin/accounts/{members['pending']}", headers=staff)
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "waiting" and body["approved"] is False
    assert body["confirmed"] is True and body["email"] == "waiting@example.org"
    assert body["account"]["username"] == "waiting" and body["role"]["id"] == "-99"
    assert client.get("/api/v1/admin/accounts/999", headers=staff).status_code == 404


def test_approve_is_audited(client, staff, members):
    pending = members["pending"]
    response = client.post(f"/api/v1/admin/accounts/{pending}/approve", headers=staff)
    assert response.status_code == 200 and response.json()["approved"] is True
    [entry] = audit.by_target("User", pending)
    assert entry["action"] == "approve" and entry["human_identifier"] == "waiting"
    assert entry["account_id"] == accounts.repo.id_by_handle("boss")
    assert entry["created_at"].endswith("Z")
    again = client.post(f"/api/v1/admin/accounts/{pending}/approve", headers=staff)
    assert again.status_code == 403
    assert client.get("/api/v2/admin/accounts?status=pending", headers=staff).json()[0]["id"] \
        == members["pending2"]


def test_reject_deletes_and_frees_the_username(client, staff, members):
    pending = members["pending"]
    response = client.post(f"/api/v1/admin/accounts/{pending}/reject", headers=staff)
    assert response.status_code == 200 and response.json() == {}
    assert client.get(f"/api/v1/admin/accounts/{pending}", headers=staff).status_code == 404
    assert [e["action"] for e in audit.by_target("User", pending)] == ["reject"]
    make_user("waiting")  # the name is free again
    active = client.post(f"/api/v1/admin/accounts/{members['active']}/reject",
                         headers=staff)
    assert active.status_code == 403


def test_permissions_and_scopes(client, app, members):
    nobody = auth(user_token(app, make_user("plain"), scopes=ADMIN_SCOPES))
    response = client.get("/api/v1/admin/accounts", headers=nobody)
    assert response.status_code == 403 and response.json() == {"error": "This action is not allowed"}
    moderator = make_user("mod1", role="Moderator")
    mod = auth(user_token(app, moderator, scopes=ADMIN_SCOPES))
    assert client.get("/api/v1/admin/accounts", headers=mod).status_code == 200
    read_only = auth(user_token(app, moderator, scopes=("admin:read",)))
    assert client.get("/api/v1/admin/accounts", headers=read_only).status_code == 200
    denied = client.post(f"/api/v1/admin/accounts/{members['pending']}/approve", headers=read_only)
    assert denied.status_code == 403
    assert denied.json() == {"error": "This action is outside the authorized scopes"}
    no_admin_scope = auth(user_token(app, moderator, scopes=("read", "write")))
    assert client.get("/api/v1/admin/accounts", headers=no_admin_scope).status_code == 403
    assert client.get("/api/v1/admin/accounts").status_code == 401


def test_approved_user_can_use_the_api(client, app, staff, members):
    token = auth(user_token(app, members["pending"]))
    assert client.get("/api/v1/preferences", headers=token).status_code == 403
    client.post(f"/api/v1/admin/accounts/{members['pending']}/approve", headers=staff)
    assert client.get("/api/v1/preferences", headers=token).status_code == 200


def test_operator_role_changes_and_password_resets(client, app, staff, members):
    from stratus.api.accounts import sign_in

    token = auth(user_token(app, members["active"], scopes=ADMIN_SCOPES))
    assert client.get("/api/v1/admin/accounts", headers=token).status_code == 403
    operator.operator_modify("active1", role="Moderator")
    assert client.get("/api/v1/admin/accounts", headers=token).status_code == 200
    v1_staff = client.get("/api/v1/admin/accounts?staff=true", headers=staff).json()
    assert {a["username"] for a in v1_staff} == {"boss", "active1"}
    new_password = operator.operator_modify("active1", reset_password=True)
    assert new_password and len(new_password) >= 16
    assert client.get("/api/v1/admin/accounts", headers=token).status_code == 401  # signed out
    assert sign_in.authenticate("active1@example.org", new_password) == members["active"]
    operator.operator_modify("active1", role="User")
    fresh = auth(user_token(app, members["active"], scopes=ADMIN_SCOPES))
    assert client.get("/api/v1/admin/accounts", headers=fresh).status_code == 403
