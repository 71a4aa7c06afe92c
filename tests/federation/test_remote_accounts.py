"""Remote accounts (services/remote_accounts.py): actors fetched from a loopback peer, checked,
stored once, refreshed when stale, removed when gone, refused by domain policy."""

from __future__ import annotations


from tests.federation import peers
from tests.sites import site  # noqa: F401 - the fixture


def test_resolve_stores_the_actor_once(runtime, site):  # noqa: F811
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import uris
    from stratus.services import remote_accounts

    document = peers.serve_actor(site)
    profile = remote_accounts.resolve(document["id"])
    assert profile is not None
    assert profile["username"] == "bob" and profile["domain"] == peers.host(site)
    assert profile["uri"] == document["id"]
    assert profile["inbox"] == document["inbox"]
    assert profile["shared_inbox"] == site.url("/inbox")
    assert profile["key_id"] == document["id"] + "#main-key"
    assert profile["public_key_pem"] == peers.PEM
    assert profile["note"] == '<p>Hello <a href="https://x.example/" rel="nofollow noopener">there</a></p>'
    assert profile["avatar_remote_url"] == site.url("/avatar.png")
    assert profile["created_at"] == "2023-04-05T00:00:00.000Z"
    again = remote_accounts.resolve(document["id"])
    assert again["id"] == profile["id"]
    assert site.hits("/users/bob") == 1
    assert uris.find(document["id"]) == ("account", profile["id"])
    assert uris.find(profile["key_id"]) == ("key", profile["id"])
    assert accounts_repo.id_by_handle("bob", peers.host(site)) == profile["id"]
    assert remote_accounts.by_key_id(profile["key_id"])["id"] == profile["id"]
