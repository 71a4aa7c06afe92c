"""Admin domain blocks and allows: CRUD, normalisation, conflicts with existing blocks,
permissions, the audit log, and the lookups federation will use (policy_for, allowed)."""

from __future__ import annotations

import hashlib

import pytest
from stratus.read import domain_blocks, settings
from stratus.repo import audit
from stratus.repo import domain_blocks as repo

from tests.rig import auth, make_app, make_user, user_token

ADMIN_SCOPES = ("admin:read", "admin:write")
BLOCKS = "/api/v1/admin/domain_blocks"
ALLOWS = "/api/v1/admin/domain_allows"


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write admin:read admin:write")


@pytest.fixture
def staff(app):
    return auth(user_token(app, make_user("boss", role="Admin"), scopes=ADMIN_SCOPES))


def block(client, staff, domain, **fields):
    response = client.post(BLOCKS, headers=staff, json={"domain": domain, **fields})
    assert response.status_code == 200, response.text
    return response.json()


def test_create_renders_the_entity_with_mastodons_defaults(client, staff, entity):
    created = block(client, staff, "spam.example")
    entity("AdminDomainBlock", created)
    assert created["domain"] == "spam.example"
    assert created["digest"] == hashlib.sha256(b"spam.example").hexdigest()
    assert (created["severity"], created["reject_media"], created["reject_reports"],
            created["obfuscate"]) == ("silence", False, False, False)
    assert created["private_comment"] is None and created["public_comment"] is None
    assert created["created_at"].endswith("Z")
    shown = client.get(f"{BLOCKS}/{created['id']}", headers=staff)
    assert shown.status_code == 200 and shown.json() == created
    assert client.get(BLOCKS, headers=staff).json() == [created]


def test_create_takes_every_field_as_form_or_json(client, staff):
    form = client.post(BLOCKS, headers=staff, data={
        "domain": "a.example", "severity": "suspend", "reject_media": "1",
        "reject_reports": "true", "private_comment": "staff only", "public_comment": "spam",
        "obfuscate": "on"}).json()
    assert (form["severity"], form["reject_media"], form["reject_reports"], form["obfuscate"]) \
        == ("suspend", True, True, True)
    assert (form["private_comment"], form["public_comment"]) == ("staff only", "spam")
    noop = block(client, staff, "b.example", severity="noop", reject_media=True,
                 obfuscate=False)
    assert (noop["severity"], noop["reject_media"], noop["obfuscate"]) == ("noop", True, False)


@pytest.mark.parametrize("raw, stored", [
    ("  Spam.EXAMPLE  ", "spam.example"),
    ("spam.example.", "spam.example"),  # one trailing dot (an absolute name)
    ("spam.example/", "spam.example"),
    ("bücher.example", "xn--bcher-kva.example"),  # IDNA: punycode, as Mastodon stores it
    ("MÜNCHEN.example", "xn--mnchen-3ya.example"),
    ("localhost", "localhost"),
])
def test_domains_are_normalised(client, staff, raw, stored):
    assert block(client, staff, raw)["domain"] == stored
    assert repo.block(stored) is not None


@pytest.mark.parametrize("raw", [
    "exa mple.com", "a..example", "https://spam.example/path", "spam_example.com",
    "spam.example..", "user@spam.example", "*.spam.example", "a" * 64 + ".example",
    ".".join(["abcdefgh"] * 29),  # 260 characters
    "\u0080\u0081", "-",
])
def test_invalid_domains_are_422_never_500(client, staff, raw):
    response = client.post(BLOCKS, headers=staff, json={"domain": raw})
    assert response.status_code == 422, response.text
    assert response.json() == {"error": "Validation failed: Domain is invalid"}
    allow = client.post(ALLOWS, headers=staff, json={"domain": raw})
    assert allow.status_code == 422 and allow.json()["error"].endswith("Domain is invalid")


def test_blank_domain_and_bad_values(client, staff):
    for body in ({}, {"domain": ""}, {"domain": "   "}, {"domain": None}, {"domain": ["a"]}):
        response = client.post(BLOCKS, headers=staff, json=body)
        assert response.status_code == 422
        assert response.json() == {"error": "Validation failed: Domain can't be blank"}
    bad = client.post(BLOCKS, headers=staff, json={"domain": "x.example", "severity": "ban"})
    assert bad.status_code == 422
    assert bad.json() == {"error": "Validation failed: Severity is not included in the list"}
    long = client.post(BLOCKS, headers=staff, json={"domain": "x.example",
                                                     "private_comment": "x" * 10_001})
    assert long.status_code == 422 and "Private comment is too long" in long.json()["error"]
    assert client.get(BLOCKS, headers=staff).json() == []  # nothing was written


def test_the_same_domain_again_is_422_with_the_existing_block(client, staff):
    existing = block(client, staff, "spam.example", severity="noop")
    for raw, fields in (("spam.example", {}), ("SPAM.example.", {"severity": "suspend"})):
        response = client.post(BLOCKS, headers=staff, json={"domain": raw, **fields})
        assert response.status_code == 422
        assert response.json() == {
            "error": "You have already imposed stricter limits on spam.example.",
            "existing_domain_block": existing}
    assert len(client.get(BLOCKS, headers=staff).json()) == 1


# Mastodon's DomainBlock#stricter_than? is "at least as strict": a subdomain may repeat its
# parent's limits (only the very same domain is refused outright) but not impose fewer.
@pytest.mark.parametrize("parent, child, allowed", [
    ({"severity": "silence"}, {"severity": "silence"}, True),
    ({"severity": "silence"}, {"severity": "noop"}, False),
    ({"severity": "silence"}, {"severity": "suspend"}, True),
    ({"severity": "silence"}, {"severity": "silence", "reject_media": True}, True),
    ({"severity": "silence", "reject_media": True}, {"severity": "silence"}, False),
    ({"severity": "suspend"}, {"severity": "silence", "reject_media": True,
                               "reject_reports": True}, False),
    ({"severity": "suspend"}, {"severity": "suspend"}, True),
    ({"severity": "noop"}, {"severity": "noop"}, True),
    ({"severity": "noop", "reject_media": True}, {"severity": "noop"}, False),
    ({"severity": "noop"}, {"severity": "noop", "reject_reports": True}, True),
    ({"severity": "noop", "reject_media": True}, {"severity": "noop",
                                                  "reject_reports": True}, False),
])
def test_a_subdomain_block_must_be_stricter_than_its_parents(client, staff, parent, child,
                                                             allowed):
    existing = block(client, staff, "example.net", **parent)
    response = client.post(BLOCKS, headers=staff, json={"domain": "a.b.example.net", **child})
    if allowed:
        assert response.status_code == 200, response.text
        assert response.json()["domain"] == "a.b.example.net"
    else:
        assert response.status_code == 422
        assert response.json()["existing_domain_block"] == existing
        assert response.json()["error"] == \
            "You have already imposed stricter limits on example.net."


def test_the_most_specific_block_is_the_one_compared(client, staff):
    block(client, staff, "example.org", severity="silence")
    sub = block(client, staff, "b.example.org", severity="suspend")
    response = client.post(BLOCKS, headers=staff,
                           json={"domain": "a.b.example.org", "severity": "silence"})
    assert response.status_code == 422 and response.json()["existing_domain_block"] == sub
    # A parent block may be added under no conditions: it does not cover its subdomains' blocks.
    assert block(client, staff, "org", severity="noop")["domain"] == "org"


def test_update_changes_in_place_and_is_audited(client, staff):
    created = block(client, staff, "spam.example", public_comment="spam", private_comment="x")
    url = f"{BLOCKS}/{created['id']}"
    response = client.put(url, headers=staff, json={"severity": "suspend", "obfuscate": True,
                                                    "private_comment": None,
                                                    "domain": "other.example"})
    assert response.status_code == 200, response.text
    updated = response.json()
    assert updated == {**created, "severity": "suspend", "obfuscate": True,
                       "private_comment": None}
    assert client.get(url, headers=staff).json() == updated
    item = repo.block("spam.example")
    # One item, changed in place (an Update): the stream's MODIFY carries old and new severity.
    assert item["type"] == "domain_block" and item["id"] == created["id"]
    assert "private_comment" not in item and repo.block("other.example") is None
    untouched = client.put(url, headers=staff, data={"reject_media": "true"}).json()
    assert untouched["severity"] == "suspend" and untouched["reject_media"] is True
    bad = client.put(url, headers=staff, json={"severity": "everything"})
    assert bad.status_code == 422
    entries = audit.by_target("DomainBlock", created["id"])
    assert sorted(e["action"] for e in entries) == ["create", "update", "update"]
    assert {e["human_identifier"] for e in entries} == {"spam.example"}
    assert client.put(f"{BLOCKS}/12345", headers=staff, json={}).status_code == 404


def test_delete_answers_empty_and_is_audited(client, staff):
    created = block(client, staff, "spam.example", severity="suspend")
    url = f"{BLOCKS}/{created['id']}"
    response = client.delete(url, headers=staff)
    assert response.status_code == 200 and response.json() == {}
    assert client.get(url, headers=staff).status_code == 404
    assert repo.block("spam.example") is None
    assert client.delete(url, headers=staff).status_code == 404
    actions = sorted(e["action"] for e in audit.by_target("DomainBlock", created["id"]))
    assert actions == ["create", "destroy"]
    [destroy] = [e for e in audit.by_target("DomainBlock", created["id"])
                 if e["action"] == "destroy"]
    assert destroy["target_type"] == "DomainBlock" and destroy["human_identifier"] == \
        "spam.example"
    again = block(client, staff, "spam.example")  # the domain may be blocked anew
    assert again["id"] != created["id"]


def test_unknown_ids_are_404(client, staff):
    for path in ("999", "not-an-id", "-1"):
        for method in ("GET", "PUT", "DELETE"):
            response = client.request(method, f"{BLOCKS}/{path}", headers=staff)
            assert response.status_code == 404, (method, path)
            assert response.json() == {"error": "Record not found"}
        assert client.get(f"{ALLOWS}/{path}", headers=staff).status_code == 404
        assert client.delete(f"{ALLOWS}/{path}", headers=staff).status_code == 404


def test_listing_is_newest_first_with_link_headers(client, staff):
    made = [block(client, staff, f"d{n}.example")["id"] for n in range(5)]
    first = client.get(f"{BLOCKS}?limit=2", headers=staff)
    assert [b["id"] for b in first.json()] == made[:2:-1][:2]
    link = first.headers["link"]
    assert 'rel="next"' in link and 'rel="prev"' in link and "limit=2" in link
    next_url = link.split(";")[0].strip("<>").removeprefix("http://localhost:8000")
    second = client.get(next_url, headers=staff).json()
    assert [b["id"] for b in second] == [made[2], made[1]]
    newer = client.get(f"{BLOCKS}?min_id={made[1]}&limit=2", headers=staff).json()
    assert [b["id"] for b in newer] == [made[3], made[2]]
    since = client.get(f"{BLOCKS}?since_id={made[1]}&limit=2", headers=staff).json()
    assert [b["id"] for b in since] == [made[4], made[3]]
    assert len(client.get(f"{BLOCKS}?limit=500", headers=staff).json()) == 5
    empty = client.get(f"{BLOCKS}?max_id={made[0]}", headers=staff)
    assert empty.json() == [] and "link" not in empty.headers


def test_permissions_and_scopes(client, app):
    moderator = make_user("mod", role="Moderator")  # no Manage Federation
    denied = auth(user_token(app, moderator, scopes=ADMIN_SCOPES))
    for method, path in (("GET", BLOCKS), ("POST", BLOCKS), ("GET", ALLOWS), ("POST", ALLOWS)):
        response = client.request(method, path, headers=denied, json={"domain": "x.example"})
        assert response.status_code == 403, path
        assert response.json() == {"error": "This action is not allowed"}
    admin = make_user("admin", role="Admin")
    narrow = auth(user_token(app, admin, scopes=("admin:read:domain_blocks",)))
    assert client.get(BLOCKS, headers=narrow).status_code == 200
    for method, path in (("POST", BLOCKS), ("GET", ALLOWS)):
        response = client.request(method, path, headers=narrow, json={"domain": "x.example"})
        assert response.status_code == 403
        assert response.json() == {"error": "This action is outside the authorized scopes"}
    writer = auth(user_token(app, admin, scopes=("admin:write:domain_blocks",)))
    assert client.post(BLOCKS, headers=writer, json={"domain": "x.example"}).status_code == 200
    assert client.get(BLOCKS).status_code == 401


# --- domain allows --------------------------------------------------------------------------------
def test_domain_allows(client, staff, entity):
    response = client.post(ALLOWS, headers=staff, json={"domain": "Friends.Example"})
    assert response.status_code == 200
    created = response.json()
    entity("AdminDomainAllow", created)
    assert created["domain"] == "friends.example"
    # Allowing it again answers the existing record (200), and writes nothing more.
    again = client.post(ALLOWS, headers=staff, data={"domain": "friends.example."})
    assert again.status_code == 200 and again.json() == created
    assert [e["action"] for e in audit.by_target("DomainAllow", created["id"])] == ["create"]
    other = client.post(ALLOWS, headers=staff, json={"domain": "pals.example"}).json()
    assert [a["id"] for a in client.get(ALLOWS, headers=staff).json()] == \
        [other["id"], created["id"]]
    page = client.get(f"{ALLOWS}?limit=1", headers=staff)
    assert [a["id"] for a in page.json()] == [other["id"]] and 'rel="next"' in \
        page.headers["link"]
    assert client.get(f"{ALLOWS}/{created['id']}", headers=staff).json() == created
    assert client.post(ALLOWS, headers=staff, json={}).json() == \
        {"error": "Validation failed: Domain can't be blank"}
    deleted = client.delete(f"{ALLOWS}/{created['id']}", headers=staff)
    assert deleted.status_code == 200 and deleted.json() == {}
    assert client.get(f"{ALLOWS}/{created['id']}", headers=staff).status_code == 404
    assert sorted(e["action"] for e in audit.by_target("DomainAllow", created["id"])) == \
        ["create", "destroy"]
    assert repo.allow("friends.example") is None


# --- lookups ----------------------------------------------------------------------------------
def test_policy_covers_subdomains_and_prefers_the_most_specific(client, staff):
    block(client, staff, "example.com", severity="silence", reject_media=True)
    block(client, staff, "evil.example.com", severity="suspend")
    block(client, staff, "quiet.example", severity="noop", reject_reports=True)
    policy = domain_blocks.policy_for("a.b.Example.COM")
    assert (policy.block_domain, policy.silenced, policy.suspended, policy.reject_media) == \
        ("example.com", True, False, True)
    evil = domain_blocks.policy_for("x.evil.example.com")
    assert evil.suspended and evil.block_domain == "evil.example.com" and not evil.reject_media
    quiet = domain_blocks.policy_for("quiet.example")
    assert quiet.blocked and quiet.severity == "noop" and quiet.reject_reports
    assert not quiet.silenced and not quiet.suspended
    for free in ("example.org", "notexample.com", "com", "", "bad domain"):
        assert not domain_blocks.policy_for(free).blocked, free
    many = domain_blocks.policies_for(["a.example.com", "evil.example.com", "friends.example"])
    assert [p.severity for p in many.values()] == ["silence", "suspend", None]


def test_allowed_follows_blocks_or_the_allowlist(client, staff):
    block(client, staff, "evil.example", severity="suspend")
    block(client, staff, "loud.example", severity="silence")
    assert not domain_blocks.allowed("evil.example")
    assert not domain_blocks.allowed("sub.evil.example")
    assert domain_blocks.allowed("loud.example") and domain_blocks.allowed("fine.example")
    assert not domain_blocks.allowed("not a domain")
    settings.set_value("limited_federation_mode", "true")
    client.post(ALLOWS, headers=staff, json={"domain": "friends.example"})
    assert domain_blocks.allowed("friends.example") and domain_blocks.allowed("FRIENDS.example.")
    # Mastodon's DomainAllow.rule_for matches the domain exactly: subdomains are not allowed.
    assert not domain_blocks.allowed("sub.friends.example")
    assert not domain_blocks.allowed("fine.example") and not domain_blocks.allowed("loud.example")


def test_the_stream_carries_each_change_of_severity(client, staff, runtime):
    """The contract with the domain-block state machine: one `domain_block` item whose INSERT,
    MODIFY and REMOVE carry the new and old severity (and the block's `created_at`, the stamp
    Mastodon's undo compares accounts' `silenced_at`/`suspended_at` with)."""
    from stratus.repo.base import deserialize

    runtime.pipeline.skip_stream()
    created = block(client, staff, "example.com", severity="silence")
    client.put(f"{BLOCKS}/{created['id']}", headers=staff, json={"severity": "suspend"})
    client.put(f"{BLOCKS}/{created['id']}", headers=staff, json={"public_comment": "hi"})
    client.delete(f"{BLOCKS}/{created['id']}", headers=staff)
    changes = []
    for records in runtime.pipeline.backlog().values():
        for record in records:
            data = record["dynamodb"]
            new = deserialize(data.get("NewImage", {}))
            old = deserialize(data.get("OldImage", {}))
            if (new or old).get("type") == "domain_block":
                changes.append((record["eventName"], old.get("severity"), new.get("severity"),
                                (new or old)["created_at"]))
    changes = list(dict.fromkeys(changes))  # each stream function sees the same records
    assert changes == [("INSERT", None, "silence", created["created_at"]),
                       ("MODIFY", "silence", "suspend", created["created_at"]),
                       ("MODIFY", "suspend", "suspend", created["created_at"]),
                       ("REMOVE", "suspend", None, created["created_at"])]
    runtime.pipeline.drain()  # no worker chokes on them


def test_stratusctl_turns_limited_federation_on_and_off(runtime, monkeypatch, capsys):
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "the test stack")
    assert not domain_blocks.limited_federation()
    assert cli.main(["settings", "set", "limited_federation_mode", "true"]) == 0
    assert domain_blocks.limited_federation()
    assert cli.main(["settings", "get", "limited_federation_mode"]) == 0
    assert "true" in capsys.readouterr().out.lower()
    assert cli.main(["settings", "set", "limited_federation_mode", "maybe"]) == 1
    assert cli.main(["settings", "set", "limited_federation_mode", "off"]) == 0
    assert not domain_blocks.limited_federation()


def test_refused_compares_hosts_as_the_host_normaliser_does(client, staff):
    """What federation asks before delivering (federation/delivery.py): a port, upper case, a
    trailing dot or an IDN form of a suspended domain (or a subdomain) is refused; a silenced
    one is not; in limited federation mode only allowed hosts (exactly) pass."""
    block(client, staff, "evil.example", severity="suspend")
    block(client, staff, "bücher.example", severity="suspend")
    block(client, staff, "loud.example", severity="silence")
    asked = ["EVIL.example:443", "a.evil.example", "evil.example.", "XN--BCHER-KVA.example:8443",
             "loud.example", "fine.example", "127.0.0.1:3000", ""]
    assert domain_blocks.refused(asked) == {"EVIL.example:443", "a.evil.example",
                                            "evil.example.", "XN--BCHER-KVA.example:8443", ""}
    settings.set_value("limited_federation_mode", "true")
    client.post(ALLOWS, headers=staff, json={"domain": "fine.example"})
    assert domain_blocks.refused(["fine.example:8443", "FINE.example", "sub.fine.example"]) == \
        {"sub.fine.example"}
