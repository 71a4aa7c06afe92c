"""E-mail domain blocks, canonical e-mail blocks and IP blocks: the staff API (MANAGE_BLOCKS,
audited) and their effect on sign-up, sign-in and API access by the caller's address."""

from __future__ import annotations

import hashlib
from contextlib import contextmanager

import pytest
from stratus.repo import accounts as accounts_repo
from stratus.repo import audit

from tests.conftest import BASE_URL
from tests.rig import app_token, auth, make_app, make_user, user_token

NOT_ALLOWED = {"error": "This action is not allowed"}
BLOCKED_IP = "192.0.2.7"


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write admin:read admin:write")


@pytest.fixture
def staff(app):
    return auth(user_token(app, make_user("boss", role="Admin"),
                           scopes=("admin:read", "admin:write")))


@pytest.fixture
def app_bearer(client, app):
    return auth(app_token(client, app, scope="read write"))


@contextmanager
def calling_from(runtime, address: str):
    from starlette.testclient import TestClient

    with TestClient(runtime.gateway, base_url=BASE_URL, client=(address, 40000)) as other:
        yield other


def sign_up(client, headers, username, email):
    return client.post("/api/v1/accounts", headers=headers, data={
        "username": username, "email": email, "password": "a good password",
        "agreement": "true"})


def test_email_domain_block_lifecycle(client, staff, entity):
    created = client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                          json={"domain": " Spam.Example "})
    assert created.status_code == 200, created.text
    block = created.json()
    entity("AdminEmailDomainBlock", block)
    assert block["domain"] == "spam.example" and block["allow_with_approval"] is False
    assert len(block["history"]) == 7 and block["history"][0]["uses"] == "0"
    assert int(block["history"][0]["day"]) > int(block["history"][1]["day"])
    again = client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                        json={"domain": "spam.example"})
    assert again.status_code == 422 and again.json()["details"]["domain"][0]["error"] == "ERR_TAKEN"
    for bad in ("", "not a domain", "x" * 300):
        response = client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                               json={"domain": bad})
        assert response.status_code == 422, bad
    other = client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                        json={"domain": "junk.example"}).json()
    first = client.get("/api/v1/admin/email_domain_blocks?limit=1", headers=staff)
    assert [b["id"] for b in first.json()] == [other["id"]]  # newest first
    assert 'rel="next"' in first.headers["link"]
    following = client.get(f"/api/v1/admin/email_domain_blocks?max_id={other['id']}",
                           headers=staff)
    assert [b["id"] for b in following.json()] == [block["id"]]
    shown = client.get(f"/api/v1/admin/email_domain_blocks/{block['id']}", headers=staff)
    assert shown.json() == block
    deleted = client.delete(f"/api/v1/admin/email_domain_blocks/{block['id']}", headers=staff)
    assert deleted.status_code == 200 and deleted.json() == {}
    assert client.get(f"/api/v1/admin/email_domain_blocks/{block['id']}",
                      headers=staff).status_code == 404
    assert [e["action"] for e in audit.by_target("EmailDomainBlock", block["id"])] == \
        ["create", "destroy"]
    # The domain can be blocked again once the block is gone.
    assert client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                       json={"domain": "spam.example"}).status_code == 200


def test_sign_up_from_a_blocked_email_domain_or_its_subdomains_is_refused(client, staff,
                                                                          app_bearer):
    block = client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                        json={"domain": "spam.example"}).json()
    for username, email in (("one", "one@spam.example"), ("two", "two@mail.SPAM.example")):
        response = sign_up(client, app_bearer, username, email)
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["error"] == "Validation failed: Email uses a disallowed e-mail provider"
        assert body["details"] == {"email": [{"error": "ERR_BLOCKED",
                                              "description": "uses a disallowed e-mail provider"}]}
        assert accounts_repo.id_by_handle(username) is None
    history = client.get(f"/api/v1/admin/email_domain_blocks/{block['id']}",
                         headers=staff).json()["history"]
    assert history[0]["uses"] == "2" and history[0]["accounts"] == "1"  # one address
    assert sign_up(client, app_bearer, "fine", "fine@notspam.example").status_code == 200


def test_a_domain_block_with_approval_holds_sign_ups_for_review(client, staff, app_bearer):
    client.post("/api/v1/admin/email_domain_blocks", headers=staff,
                json={"domain": "maybe.example", "allow_with_approval": True})
    assert sign_up(client, app_bearer, "maybe", "maybe@maybe.example").status_code == 200
    user = accounts_repo.get_user(accounts_repo.id_by_handle("maybe"))
    assert user["approved"] is False
    assert sign_up(client, app_bearer, "other", "other@elsewhere.example").status_code == 200
    assert accounts_repo.get_user(accounts_repo.id_by_handle("other"))["approved"] is True


def test_canonical_email_blocks(client, staff, app_bearer, entity):
    created = client.post("/api/v1/admin/canonical_email_blocks", headers=staff,
                          json={"email": "Some.One+promo@Example.com"})
    assert created.status_code == 200, created.text
    block = created.json()
    entity("AdminCanonicalEmailBlock", block)
    assert block["canonical_email_hash"] == hashlib.sha256(b"someone@example.com").hexdigest()
    matched = client.post("/api/v1/admin/canonical_email_blocks/test", headers=staff,
                          json={"email": "s.o.m.e.o.n.e+x@example.com"})
    assert matched.status_code == 200 and matched.json() == [block]
    assert client.post("/api/v1/admin/canonical_email_blocks/test", headers=staff,
                       json={"email": "someone@example.org"}).json() == []
    assert client.post("/api/v1/admin/canonical_email_blocks/test", headers=staff,
                       json={}).status_code == 422
    refused = sign_up(client, app_bearer, "someone", "some.one+again@example.com")
    assert refused.status_code == 422
    assert refused.json()["details"]["email"][0]["error"] == "ERR_TAKEN"
    assert sign_up(client, app_bearer, "someone", "someone@example.org").status_code == 200

    by_hash = client.post("/api/v1/admin/canonical_email_blocks", headers=staff,
                          json={"canonical_email_hash": "A" * 64})
    assert by_hash.status_code == 200 and by_hash.json()["canonical_email_hash"] == "a" * 64
    for fields in ({"canonical_email_hash": "a" * 64}, {"email": "someone+1@example.com"},
                   {"canonical_email_hash": "xyz"}, {}):
        assert client.post("/api/v1/admin/canonical_email_blocks", headers=staff,
                           json=fields).status_code == 422, fields
    listing = client.get("/api/v1/admin/canonical_email_blocks", headers=staff).json()
    assert [b["id"] for b in listing] == [by_hash.json()["id"], block["id"]]
    assert client.get(f"/api/v1/admin/canonical_email_blocks/{block['id']}",
                      headers=staff).json() == block
    assert client.delete(f"/api/v1/admin/canonical_email_blocks/{block['id']}",
                         headers=staff).json() == {}
    assert client.post("/api/v1/admin/canonical_email_blocks/test", headers=staff,
                       json={"email": "someone@example.com"}).json() == []
    assert [e["action"] for e in audit.by_target("CanonicalEmailBlock", block["id"])] == \
        ["create", "destroy"]


def test_ip_block_lifecycle(client, staff, entity):
    created = client.post("/api/v1/admin/ip_blocks", headers=staff, json={
        "ip": "192.0.2.9/24", "severity": "sign_up_block", "comment": "spam wave",
        "expires_in": 3600})
    assert created.status_code == 200, created.text
    block = created.json()
    entity("AdminIpBlock", block)
    assert block["ip"] == "192.0.2.0/24" and block["severity"] == "sign_up_block"
    assert block["comment"] == "spam wave" and block["expires_at"] > block["created_at"]
    single = client.post("/api/v1/admin/ip_blocks", headers=staff,
                         json={"ip": "2001:db8::1", "severity": "no_access"}).json()
    assert single["ip"] == "2001:db8::1/128" and single["expires_at"] is None
    assert single["comment"] == ""
    invalid = client.post("/api/v1/admin/ip_blocks", headers=staff,
                          json={"ip": "10.0.0.1", "severity": "sometimes"})
    assert invalid.status_code == 422
    assert invalid.json() == {"error": "'sometimes' is not a valid severity"}
    for fields in ({"ip": "999.1.1.1", "severity": "no_access"}, {"severity": "no_access"},
                   {"ip": "10.0.0.1"}, {"ip": "10.0.0.1", "severity": "no_access",
                                        "expires_in": "soon"}):
        assert client.post("/api/v1/admin/ip_blocks", headers=staff,
                           json=fields).status_code == 422, fields
    updated = client.put(f"/api/v1/admin/ip_blocks/{block['id']}", headers=staff,
                         json={"severity": "sign_up_requires_approval", "expires_in": ""})
    assert updated.status_code == 200
    assert updated.json()["severity"] == "sign_up_requires_approval"
    assert updated.json()["expires_at"] is None and updated.json()["ip"] == "192.0.2.0/24"
    assert client.get(f"/api/v1/admin/ip_blocks/{block['id']}", headers=staff).json() == \
        updated.json()
    assert [b["id"] for b in client.get("/api/v1/admin/ip_blocks", headers=staff).json()] == \
        [single["id"], block["id"]]
    assert client.delete(f"/api/v1/admin/ip_blocks/{block['id']}", headers=staff).json() == {}
    assert client.get(f"/api/v1/admin/ip_blocks/{block['id']}", headers=staff).status_code == 404
    assert client.put("/api/v1/admin/ip_blocks/12345", headers=staff,
                      json={"comment": "x"}).status_code == 404
    assert [e["action"] for e in audit.by_target("IpBlock", block["id"])] == \
        ["create", "update", "destroy"]


def test_sign_up_by_address(client, runtime, staff, app_bearer):
    client.post("/api/v1/admin/ip_blocks", headers=staff,
                json={"ip": "192.0.2.0/24", "severity": "sign_up_block"})
    client.post("/api/v1/admin/ip_blocks", headers=staff,
                json={"ip": "198.51.100.0/24", "severity": "sign_up_requires_approval"})
    with calling_from(runtime, BLOCKED_IP) as blocked:
        refused = sign_up(blocked, app_bearer, "blocked", "blocked@example.org")
        assert refused.status_code == 403 and refused.json() == NOT_ALLOWED
        # Only sign-ups: the address may use the API.
        assert blocked.get("/api/v1/instance").status_code == 200
    assert accounts_repo.id_by_handle("blocked") is None
    with calling_from(runtime, "198.51.100.20") as reviewed:
        assert sign_up(reviewed, app_bearer, "reviewed", "reviewed@example.org").status_code == 200
    user = accounts_repo.get_user(accounts_repo.id_by_handle("reviewed"))
    assert user["approved"] is False and user["sign_up_ip"] == "198.51.100.20"
    with calling_from(runtime, "203.0.113.1") as elsewhere:
        assert sign_up(elsewhere, app_bearer, "free", "free@example.org").status_code == 200
    assert accounts_repo.get_user(accounts_repo.id_by_handle("free"))["approved"] is True


def test_no_access_refuses_sign_in_and_every_request(client, runtime, app, staff):
    account = make_user("walled", password="walled password long")
    token = auth(user_token(app, account))
    client.post("/api/v1/admin/ip_blocks", headers=staff,
                json={"ip": "192.0.2.0/24", "severity": "no_access"})
    with calling_from(runtime, BLOCKED_IP) as blocked:
        grant = blocked.post("/oauth/token", data={
            "grant_type": "password", "client_id": app.client_id,
            "client_secret": app.client_secret, "username": "walled@example.org",
            "password": "walled password long", "scope": "read"})
        assert grant.status_code == 403 and grant.json() == NOT_ALLOWED
        page = blocked.post("/auth/sign_in", data={"email": "walled@example.org",
                                                   "password": "walled password long"})
        assert page.status_code == 403
        for path in ("/api/v1/accounts/verify_credentials", "/api/v1/instance", "/about"):
            response = blocked.get(path, headers=token)
            assert response.status_code == 403 and response.json() == NOT_ALLOWED, path
    # Another address is unaffected.
    assert client.get("/api/v1/accounts/verify_credentials", headers=token).status_code == 200
    with calling_from(runtime, "::ffff:192.0.2.8") as mapped:  # IPv4 in IPv6 clothing
        assert mapped.get("/api/v1/instance").status_code == 403


def test_expired_ip_blocks_no_longer_apply(client, runtime, staff, monkeypatch):
    client.post("/api/v1/admin/ip_blocks", headers=staff,
                json={"ip": "192.0.2.0/24", "severity": "no_access", "expires_in": 60})
    with calling_from(runtime, BLOCKED_IP) as blocked:
        assert blocked.get("/api/v1/instance").status_code == 403
        from stratus.repo import base

        later = base.now_epoch() + 61
        monkeypatch.setattr(base, "now_epoch", lambda: later)
        assert blocked.get("/api/v1/instance").status_code == 200
        assert client.get("/api/v1/admin/ip_blocks", headers=staff).json() == []


def test_blocks_need_manage_blocks(client, app):
    moderator = auth(user_token(app, make_user("mod", role="Moderator"),
                                scopes=("admin:read", "admin:write")))
    for path in ("/api/v1/admin/email_domain_blocks", "/api/v1/admin/canonical_email_blocks",
                 "/api/v1/admin/ip_blocks"):
        response = client.get(path, headers=moderator)
        assert response.status_code == 403 and response.json() == NOT_ALLOWED


def test_every_http_function_may_read_the_ip_blocks_and_roles(client, runtime, app):
    """Every HTTP function checks the caller's address (and resolves roles) under its own IAM
    role: a call from a real address, with each function's caches empty, is never a 500."""
    from stratus.core import warm

    from local.routes import route_table

    token = auth(user_token(app, make_user("walker")))
    first_route = {}
    for route in route_table(runtime.stack):
        if route.method == "GET" and not route.path_params:
            first_route.setdefault(route.function, route.path)
    assert len(first_route) >= 10
    with calling_from(runtime, "198.51.100.1") as outside:
        for function, path in sorted(first_route.items()):
            warm.forget_all()
            response = outside.get(path, headers=token)
            assert response.status_code < 500, (function, path, response.text[:120])
