"""GET /api/v1/instance/domain_blocks (Api::V1::Instances::DomainBlocksController): who sees
the moderated servers, how obfuscated domains read, and the limited federation mode."""

from __future__ import annotations

import hashlib

from stratus.http.cache import PUBLIC_5_MIN
from stratus.read import settings

from tests.rig import auth, make_app, make_user, user_token

URL = "/api/v1/instance/domain_blocks"


def _staff(client):
    app = make_app(client, scopes="read write admin:read admin:write")
    return auth(user_token(app, make_user("boss", role="Admin"),
                           scopes=("admin:read", "admin:write")))


def _reader(client):
    return auth(user_token(make_app(client), make_user("reader")))


def _blocks(client, staff):
    for domain, fields in (
            ("zeta.example", {"severity": "silence", "public_comment": "loud"}),
            ("dajiaoguai.com", {"severity": "suspend", "obfuscate": True,
                                "public_comment": "spam", "private_comment": "secret"}),
            ("alpha.example", {"severity": "suspend"}),
            ("beta.example", {"severity": "silence"}),
            ("quiet.example", {"severity": "noop", "reject_media": True})):
        response = client.post("/api/v1/admin/domain_blocks", headers=staff,
                               json={"domain": domain, **fields})
        assert response.status_code == 200, response.text


def test_public_list_order_obfuscation_digest_and_comments(client, entity):
    _blocks(client, _staff(client))
    settings.set_value("show_domain_blocks", "all")
    response = client.get(URL)
    assert response.status_code == 200
    assert response.headers["cache-control"] == PUBLIC_5_MIN
    blocks = response.json()
    for b in blocks:
        entity("DomainBlock", b)
    # DomainBlock.by_severity: silenced before suspended, each by domain; noop blocks not shown.
    assert [(b["domain"], b["severity"]) for b in blocks] == [
        ("beta.example", "silence"), ("zeta.example", "silence"),
        ("alpha.example", "suspend"), ("daji******.com", "suspend")]
    # The digest is of the real domain, so a server can check whether it is on the list.
    assert blocks[3]["digest"] == hashlib.sha256(b"dajiaoguai.com").hexdigest()
    assert all("comment" not in b for b in blocks)
    settings.set_value("show_domain_blocks_rationale", "all")
    with_comments = client.get(URL).json()
    assert [b["comment"] for b in with_comments] == [None, "loud", None, "spam"]
    assert "secret" not in client.get(URL).text


def test_who_may_see_it(client):
    _blocks(client, _staff(client))
    reader = _reader(client)
    assert client.get(URL).status_code == 404  # disabled by default
    assert client.get(URL, headers=reader).status_code == 404
    settings.set_value("show_domain_blocks", "users")
    anonymous = client.get(URL)
    assert anonymous.status_code == 404 and anonymous.json() == {"error": "Not found"}
    signed_in = client.get(URL, headers=reader)
    assert signed_in.status_code == 200 and len(signed_in.json()) == 4
    assert signed_in.headers["cache-control"] == "private, no-store"  # not for a shared cache
    settings.set_value("show_domain_blocks_rationale", "users")
    assert "comment" in client.get(URL, headers=reader).json()[0]
    settings.set_value("show_domain_blocks", "all")
    assert "comment" not in client.get(URL).json()[0]
    # The answer differs by reader, so no shared cache may keep it.
    assert client.get(URL).headers["cache-control"] == "private, no-store"


def test_limited_federation_mode_needs_a_user(client):
    _blocks(client, _staff(client))
    settings.set_value("show_domain_blocks", "all")
    settings.set_value("limited_federation_mode", "true")
    response = client.get(URL)
    assert response.status_code == 401
    assert response.json() == {"error": "This method requires an authenticated user"}
    signed_in = client.get(URL, headers=_reader(client))
    assert signed_in.status_code == 200 and len(signed_in.json()) == 4
    assert signed_in.headers["cache-control"] == "private, no-store"
    # Mastodon's peers list is off in limited federation mode as well.
    assert client.get("/api/v1/instance/peers").status_code == 404
    settings.set_value("limited_federation_mode", "false")
    assert client.get("/api/v1/instance/peers").status_code == 200
