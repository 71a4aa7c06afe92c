"""Remote accounts (federation/remote_accounts.py): actors fetched from a loopback peer, checked,
stored once, refreshed when stale, removed when gone, refused by domain policy."""

from __future__ import annotations

import json

import pytest

from tests.federation import peers

LOCAL = "http://localhost:8000"


def test_resolve_stores_the_actor_once(runtime, site):
    from stratus.federation import remote_accounts
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import uris

    document = peers.serve_actor(site)
    profile = remote_accounts.resolve(document["id"])
    assert profile is not None
    assert profile["username"] == "bob" and profile["domain"] == peers.host(site)
    assert profile["uri"] == document["id"]
    assert profile["inbox"] == document["inbox"]
    assert profile["shared_inbox"] == site.url("/inbox")
    assert profile["key_id"] == document["id"] + "#main-key"
    assert profile["public_key_pem"] == peers.PEM
    assert profile["note"] == ('<p>Hello <a href="https://x.example/" target="_blank" '
                               'rel="nofollow noopener">there</a></p>')
    assert profile["avatar_remote_url"] == site.url("/avatar.png")
    assert profile["created_at"] == "2023-04-05T00:00:00.000Z"
    again = remote_accounts.resolve(document["id"])
    assert again["id"] == profile["id"]
    assert site.hits("/users/bob") == 1
    assert uris.find(document["id"]) == ("account", profile["id"])
    assert uris.find(profile["key_id"]) == ("key", profile["id"])
    assert accounts_repo.id_by_handle("bob", peers.host(site)) == profile["id"]
    assert remote_accounts.by_key_id(profile["key_id"])["id"] == profile["id"]


def _block(domain: str, severity: str, reject_media: bool = False) -> None:
    from stratus.core import clock, ids
    from stratus.repo import base
    from stratus.repo import domain_blocks as repo

    base.transact([repo.put_block_op({"id": ids.new_id(), "domain": domain,
                                      "severity": severity, "reject_media": reject_media,
                                      "reject_reports": False,
                                      "created_at": "2026-01-01T00:00:00.000Z",
                                      "updated_at": clock.iso(clock.now())})])


def test_the_api_renders_a_remote_account_as_mastodon(client, site):
    from stratus.convert.remote_media import digest
    from stratus.federation import remote_accounts

    document = peers.serve_actor(site, type="Service", manuallyApprovesFollowers=True)
    profile = remote_accounts.resolve(document["id"])
    body = client.get(f"/api/v1/accounts/{profile['id']}").json()
    acct = f"bob@{peers.host(site)}"
    assert {k: body[k] for k in ("id", "username", "acct", "display_name", "locked", "bot",
                                 "group", "discoverable", "indexable", "created_at", "note",
                                 "url", "uri", "avatar", "avatar_static", "header",
                                 "header_static", "fields", "emojis")} == {
        "id": profile["id"], "username": "bob", "acct": acct, "display_name": "Bob Remote",
        "locked": True, "bot": True, "group": False, "discoverable": True, "indexable": True,
        "created_at": "2023-04-05T00:00:00.000Z",
        "note": '<p>Hello <a href="https://x.example/" target="_blank" '
                'rel="nofollow noopener">there</a></p>',
        "url": site.url("/@bob"), "uri": document["id"],
        # Ours to serve (federation/remote_media.py): the proxy until we hold a copy.
        "avatar": f"{LOCAL}/media_proxy/avatar/{profile['id']}/{digest(site.url('/avatar.png'))}",
        "avatar_static": f"{LOCAL}/media_proxy/avatar/{profile['id']}/"
                         f"{digest(site.url('/avatar.png'))}/static",
        "header": f"{LOCAL}/media_proxy/header/{profile['id']}/{digest(site.url('/header.png'))}",
        "header_static": f"{LOCAL}/media_proxy/header/{profile['id']}/"
                         f"{digest(site.url('/header.png'))}/static",
        "fields": [{"name": "Site", "value": '<a href="https://bob.example" target="_blank" '
                                             'rel="nofollow noopener">bob.example</a>',
                    "verified_at": None}],
        "emojis": []}
    found = client.get(f"/api/v1/accounts/lookup?acct={acct}").json()
    assert found["id"] == profile["id"]
    assert client.get("/api/v1/accounts/lookup?acct=nobody@" + peers.host(site)).status_code == 404
    assert site.hits("/users/nobody") == 0  # lookup never fetches


def test_relationships_and_admin_listings_include_remote_accounts(client, people, site):
    from stratus.federation import remote_accounts

    from tests.rig import follow_edge

    ids, headers = people
    peers.serve_actor(site)
    profile = remote_accounts.resolve(site.url("/users/bob"))
    follow_edge(ids["alice"], profile["id"])
    [relation] = client.get(f"/api/v1/accounts/relationships?id[]={profile['id']}",
                            headers=headers["alice"]).json()
    assert relation["id"] == profile["id"] and relation["following"] is True


def test_admin_lists_remote_accounts_by_domain(client, site):
    from stratus.federation import remote_accounts

    from tests.rig import auth, make_app, make_user, user_token

    peers.serve_actor(site)
    profile = remote_accounts.resolve(site.url("/users/bob"))
    admin = auth(user_token(make_app(client, scopes="read write admin:read admin:write"),
                            make_user("root", role="Owner"),
                            scopes=("read", "admin:read", "admin:write")))
    host = peers.host(site)
    v2 = client.get(f"/api/v2/admin/accounts?origin=remote&by_domain={host}", headers=admin).json()
    assert [(a["id"], a["domain"], a["account"]["acct"]) for a in v2] == [
        (profile["id"], host, f"bob@{host}")]
    assert client.get("/api/v2/admin/accounts?origin=local", headers=admin).json()[0]["id"] != \
        profile["id"]
    v1 = client.get(f"/api/v1/admin/accounts?remote=true&by_domain={host}", headers=admin).json()
    assert [a["id"] for a in v1] == [profile["id"]]
    assert client.get("/api/v2/admin/accounts?origin=remote&by_domain=other.example",
                      headers=admin).json() == []


def test_an_actor_whose_id_is_on_another_host_is_refused(runtime, site):
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    forged = peers.actor(site, id=site.url("/users/bob", host="localhost"))
    site.serve("/users/bob", json.dumps(forged), peers.AP)
    assert remote_accounts.resolve(site.url("/users/bob")) is None
    assert uris.find(forged["id"]) is None and uris.find(site.url("/users/bob")) is None


@pytest.mark.parametrize("broken", [
    {"type": "Note"}, {"preferredUsername": None}, {"preferredUsername": "no spaces"},
    {"inbox": None}, {"id": None},
])
def test_documents_that_are_not_actors_are_refused(runtime, site, broken):
    from stratus.federation import remote_accounts

    peers.serve_actor(site, **broken)
    assert remote_accounts.resolve(site.url("/users/bob")) is None


def test_tolerant_of_json_ld_forms(runtime, site):
    from stratus.federation import remote_accounts

    uri = site.url("/users/bob")
    peers.serve_actor(site, type=["Person"], url=[{"type": "Link", "href": site.url("/@bob")}],
                      icon=[{"type": "Image", "url": {"type": "Link",
                                                      "href": site.url("/a.png")}}],
                      publicKey=[{"id": f"{uri}#k2", "owner": uri, "publicKeyPem": peers.PEM}],
                      attachment={"type": "PropertyValue", "name": "x", "value": "y"},
                      endpoints={}, summary=None, name=None)
    profile = remote_accounts.resolve(uri)
    assert profile["url"] == site.url("/@bob")
    assert profile["avatar_remote_url"] == site.url("/a.png")
    assert profile["key_id"] == f"{uri}#k2"
    assert profile["fields"] == [{"name": "x", "value": "y", "verified_at": None}]
    assert profile["shared_inbox"] is None and profile["note"] == ""
    assert profile["display_name"] == ""


def test_suspended_domains_are_never_fetched(runtime, site):
    from stratus.federation import remote_accounts

    _block("127.0.0.1", "suspend")
    peers.serve_actor(site)
    assert remote_accounts.resolve(site.url("/users/bob")) is None
    assert remote_accounts.by_key_id(site.url("/users/bob#main-key")) is None
    assert site.requests == []


def test_limited_federation_stores_only_allowed_domains(runtime, site):
    from stratus.core import ids
    from stratus.federation import remote_accounts
    from stratus.read import settings
    from stratus.repo import base
    from stratus.repo import domain_blocks as repo

    settings.set_value("limited_federation_mode", "true")
    peers.serve_actor(site)
    assert remote_accounts.resolve(site.url("/users/bob")) is None
    assert site.requests == []
    base.transact([repo.put_allow_op({"id": ids.new_id(), "domain": "127.0.0.1",
                                      "created_at": "2026-01-01T00:00:00.000Z"},
                                     replace=True)])
    assert remote_accounts.resolve(site.url("/users/bob"))["username"] == "bob"


def test_a_silenced_domains_new_accounts_are_silenced(client, site):
    from stratus.federation import remote_accounts

    _block("127.0.0.1", "silence")
    peers.serve_actor(site)
    profile = remote_accounts.resolve(site.url("/users/bob"))
    assert profile["silenced_at"] == "2026-01-01T00:00:00.000Z"  # the block's: undone with it
    assert client.get(f"/api/v1/accounts/{profile['id']}").json()["limited"] is True


def test_stale_accounts_are_refreshed_on_request(runtime, site):
    from stratus.federation import remote_accounts
    from stratus.repo import base, keys

    uri = site.url("/users/bob")
    peers.serve_actor(site)
    profile = remote_accounts.resolve(uri)
    peers.serve_actor(site, name="Bob Renamed")
    assert remote_accounts.resolve(uri, refresh=True)["display_name"] == "Bob Remote"  # fresh
    assert site.hits("/users/bob") == 1
    base.update(keys.account_profile(profile["id"]), "SET fetched_at = :t",
                vals={":t": "2020-01-01T00:00:00.000Z"})
    assert remote_accounts.resolve(uri)["display_name"] == "Bob Remote"  # no refresh asked
    refreshed = remote_accounts.resolve(uri, refresh=True)
    assert refreshed["display_name"] == "Bob Renamed" and refreshed["id"] == profile["id"]
    assert site.hits("/users/bob") == 2


def test_an_actor_gone_on_refetch_is_removed(client, site):
    from stratus.federation import remote_accounts
    from stratus.repo import base, keys
    from stratus.repo import moderation as moderation_repo

    uri = site.url("/users/bob")
    peers.serve_actor(site)
    profile = remote_accounts.resolve(uri)
    base.update(keys.account_profile(profile["id"]), "SET fetched_at = :t",
                vals={":t": "2020-01-01T00:00:00.000Z"})
    site.serve("/users/bob", "{}", peers.AP, status=410)
    assert remote_accounts.resolve(uri, refresh=True) is None
    gone = remote_accounts.find(uri)
    assert gone["suspended_at"] and gone["suspension_origin"] == "remote"
    assert moderation_repo.get_purge_request(profile["id"]) is not None
    assert client.get(f"/api/v1/accounts/{profile['id']}").json()["suspended"] is True


def test_webfinger_finds_the_actor(runtime, site):
    from stratus.federation import remote_accounts

    peers.serve_actor(site)
    peers.serve_webfinger(site)
    profile = remote_accounts.resolve_acct(f"@bob@{peers.host(site)}")
    assert profile["uri"] == site.url("/users/bob")
    assert remote_accounts.resolve_acct(f"bob@{peers.host(site)}")["id"] == profile["id"]
    assert site.hits(f"/.well-known/webfinger?resource=acct:bob@{peers.host(site)}") == 1
    assert remote_accounts.resolve_acct(f"nobody@{peers.host(site)}") is None
    assert remote_accounts.resolve_acct("alice@localhost:8000") is None  # ours: not remote


def test_webfinger_is_https_except_for_loopback_outside_production(runtime, monkeypatch):
    from stratus.federation import webfinger

    assert webfinger.webfinger_url("a", "example.com") == \
        "https://example.com/.well-known/webfinger?resource=acct:a@example.com"
    assert webfinger.webfinger_url("a", "127.0.0.1:81").startswith("http://127.0.0.1:81/")
    from stratus.core.config import settings

    settings().environment  # noqa: B018 - computed, then replaced for this test
    monkeypatch.setitem(settings().__dict__, "environment", "production")
    assert webfinger.webfinger_url("a", "127.0.0.1:81").startswith("https://")


def test_a_key_object_leads_to_its_owner(runtime, site):
    from stratus.federation import remote_accounts

    uri = site.url("/users/bob")
    key_id = site.url("/keys/1")
    peers.serve_actor(site, publicKey={"id": key_id, "owner": uri, "publicKeyPem": peers.PEM})
    site.serve("/keys/1", json.dumps({"id": key_id, "type": "Key", "owner": uri,
                                      "publicKeyPem": peers.PEM}), peers.AP)
    profile = remote_accounts.by_key_id(key_id)
    assert profile["uri"] == uri and profile["key_id"] == key_id
    # a key object naming an owner that does not name the key is refused
    site.serve("/keys/2", json.dumps({"id": site.url("/keys/2"), "type": "Key", "owner": uri,
                                      "publicKeyPem": peers.PEM}), peers.AP)
    assert remote_accounts.by_key_id(site.url("/keys/2")) is None


def test_a_rotated_key_is_found_on_refetch(runtime, site):
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    uri = site.url("/users/bob")
    peers.serve_actor(site)
    profile = remote_accounts.resolve(uri)
    peers.serve_actor(site, publicKey={"id": f"{uri}#new", "owner": uri,
                                       "publicKeyPem": peers.PEM.replace("test", "new")})
    assert remote_accounts.by_key_id(f"{uri}#main-key", refetch=True) is None
    found = remote_accounts.by_key_id(f"{uri}#new")
    assert found["id"] == profile["id"] and "new" in found["public_key_pem"]
    assert uris.find(f"{uri}#main-key") is None


def test_update_from_changes_the_profile(runtime, site):
    from stratus.federation import remote_accounts

    document = peers.serve_actor(site)
    profile = remote_accounts.resolve(document["id"])
    updated = remote_accounts.update_from({**document, "name": "New name",
                                           "manuallyApprovesFollowers": True})
    assert updated["id"] == profile["id"] and updated["display_name"] == "New name"
    assert remote_accounts.find(document["id"])["locked"] is True


def test_usernames_are_unique_per_domain_only(runtime, site):
    from stratus.federation import remote_accounts
    from stratus.repo import accounts as accounts_repo

    from tests.rig import make_user

    local = make_user("bob")
    peers.serve_actor(site)
    remote = remote_accounts.resolve(site.url("/users/bob"))
    assert remote["id"] != local
    assert accounts_repo.id_by_handle("bob") == local
    assert accounts_repo.id_by_handle("bob", peers.host(site)) == remote["id"]


def test_oversized_documents_are_cut_to_fit_an_item(runtime, site):
    from stratus.federation import remote_accounts

    long = "x" * 2_500  # over each cap, the document small enough to fetch fast
    peers.serve_actor(site, summary=f"<p>{'y' * 25_000}</p>", name=long,
                      attachment=[{"type": "PropertyValue", "name": f"f{i}", "value": long}
                                  for i in range(40)],
                      alsoKnownAs=[f"https://a.example/{long}", "https://b.example/u"])
    profile = remote_accounts.resolve(site.url("/users/bob"))
    assert len(profile["note"]) < 20_100 and len(profile["display_name"]) == 2048
    assert len(profile["fields"]) == 16
    assert all(len(f["value"]) == 2047 for f in profile["fields"])
    assert profile["also_known_as"] == ["https://b.example/u"]
