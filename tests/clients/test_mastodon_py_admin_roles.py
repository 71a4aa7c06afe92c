"""Mastodon.py as staff over real HTTP: e-mail domain blocks, canonical e-mail
blocks and IP blocks through its `admin_*` methods; custom roles and role assignment, which
Mastodon.py has no methods for (Mastodon has no such API), through its raw request method."""

from __future__ import annotations

import hashlib

import pytest
from mastodon import Mastodon
from mastodon.errors import MastodonAPIError

from tests.rig import make_user

SCOPES = ["read", "write", "follow", "admin:read", "admin:write"]


def staff_client(base_url: str) -> Mastodon:
    make_user("boss", "boss@example.org", "boss password long", role="Owner")
    client_id, secret = Mastodon.create_app("staff client", api_base_url=base_url, scopes=SCOPES)
    api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base_url)
    api.log_in("boss@example.org", "boss password long", scopes=SCOPES, allow_http=True)
    return api


def test_blocks_with_mastodon_py(live_server):
    api = staff_client(live_server.base_url)

    block = api.admin_create_email_domain_block("spam.example")
    assert block.domain == "spam.example" and len(block.history) == 7
    assert api.admin_email_domain_block(block.id).domain == "spam.example"
    assert [b.id for b in api.admin_email_domain_blocks()] == [block.id]
    with pytest.raises(MastodonAPIError):
        api.admin_create_email_domain_block("spam.example")
    api.admin_delete_email_domain_block(block.id)
    assert api.admin_email_domain_blocks() == []

    canonical = api.admin_create_canonical_email_block(email="Jane.Doe+x@example.com")
    assert canonical.canonical_email_hash == hashlib.sha256(b"janedoe@example.com").hexdigest()
    [matched] = api.admin_test_canonical_email_block("janedoe+other@example.com")
    assert matched.id == canonical.id
    assert api.admin_canonical_email_block(canonical.id).id == canonical.id
    assert [b.id for b in api.admin_canonical_email_blocks()] == [canonical.id]
    api.admin_delete_canonical_email_block(canonical.id)
    assert api.admin_test_canonical_email_block("janedoe@example.com") == []

    ip = api.admin_create_ip_block("192.0.2.0/24", "sign_up_block", comment="spam",
                                   expires_in=3600)
    assert ip.ip == "192.0.2.0/24" and ip.severity == "sign_up_block" and ip.expires_at
    changed = api.admin_update_ip_block(ip, severity="sign_up_requires_approval")
    assert changed.severity == "sign_up_requires_approval"
    assert api.admin_ip_block(ip.id).comment == "spam"
    assert [b.id for b in api.admin_ip_blocks()] == [ip.id]
    api.admin_delete_ip_block(ip)
    assert api.admin_ip_blocks() == []


def test_roles_with_mastodon_py(live_server):
    api = staff_client(live_server.base_url)
    someone = make_user("someone")

    role = api._Mastodon__api_request("POST", "/api/v1/admin/roles", {
        "name": "Helpers", "permissions": str(0x400), "color": "#336699", "position": 20,
        "highlighted": True})
    assert role["name"] == "Helpers" and role["permissions"] == "1024"
    names = [r["name"] for r in api._Mastodon__api_request("GET", "/api/v1/admin/roles")]
    assert names == ["Owner", "Admin", "Helpers", "Moderator", ""]
    renamed = api._Mastodon__api_request("PUT", f"/api/v1/admin/roles/{role['id']}",
                                         {"name": "Support"})
    assert renamed["name"] == "Support"

    given = api._Mastodon__api_request("POST", f"/api/v1/admin/accounts/{someone}/role",
                                       {"role_id": role["id"]})
    assert given["role"]["id"] == role["id"]
    # Mastodon.py's own admin methods show the role (and the highlighted badge).
    account = api.admin_account(someone)
    assert account.role["name"] == "Support"
    assert [r["name"] for r in account.account.roles] == ["Support"]
    back = api._Mastodon__api_request("DELETE", f"/api/v1/admin/accounts/{someone}/role")
    assert back["role"]["id"] == "-99"
    api._Mastodon__api_request("DELETE", f"/api/v1/admin/roles/{role['id']}")
    with pytest.raises(MastodonAPIError):
        api._Mastodon__api_request("GET", f"/api/v1/admin/roles/{role['id']}")
