"""Authorized fetch ("secure mode", federation/authorized_fetch.py): with the setting on, actors,
collections and statuses are served only to GETs signed by a server we federate with, as
Mastodon's `require_account_signature!` does; the instance actor, WebFinger, host-meta and
NodeInfo stay public. Signers are fake accounts here (remote.example's bob, keys[0]), and real
actors on a loopback site in the last tests, found and stored by remote_accounts.by_key_id.
What a signer may read by its account (blocks, followers-only and direct statuses):
test_hostile_authorized_fetch.py."""

from __future__ import annotations

import pytest

from tests.rig import post
from tests.rig.peers import public_pem

AP = "application/activity+json"
HOST = "localhost:8000"
KEY_ID = "https://remote.example/users/bob#main-key"


@pytest.fixture
def secure(runtime, monkeypatch, keys):
    """Authorized fetch on; every key of remote.example is its account bob's, keys[0] (a fake
    signer lookup); the lookups made."""
    from stratus.core import ids
    from stratus.read import settings

    settings.set_value("authorized_fetch", "true")
    calls: list[tuple[str, bool]] = []
    bob = {"id": ids.new_id(), "username": "bob", "domain": "remote.example",
           "uri": "https://remote.example/users/bob", "key_id": KEY_ID,
           "public_key_pem": public_pem(keys[0])}

    from stratus.federation import remote_accounts

    def by_key_id(key_id: str, *, refetch: bool = False) -> dict | None:
        calls.append((key_id, refetch))
        return bob if key_id.startswith("https://remote.example/") else None
    monkeypatch.setattr(remote_accounts, "by_key_id", by_key_id)
    return calls


def signed(path: str, key, key_id: str = KEY_ID, scheme: str = "cavage") -> dict[str, str]:
    from stratus.federation import signatures

    if scheme == "cavage":
        headers = signatures.sign_cavage("GET", HOST, path, key_id=key_id, private_key=key,
                                         accept=AP)
    else:
        headers = signatures.sign_rfc9421("GET", f"http://{HOST}{path}", key_id=key_id,
                                          private_key=key, accept=AP)
    return {**headers, "Accept": AP}


def _status_paths(client, people, drain) -> list[str]:
    ids_, auth = people
    drain()
    status = post(client, auth["alice"], status="hello", visibility="public")
    return ["/users/alice", "/users/alice/outbox", "/users/alice/outbox?page=true",
            "/users/alice/followers", "/users/alice/following",
            "/users/alice/collections/featured", "/users/alice/collections/tags",
            f"/users/alice/statuses/{status['id']}",
            f"/users/alice/statuses/{status['id']}/activity", "/actor/outbox"]


def test_off_by_default_everything_is_public(client, people, drain):
    for path in _status_paths(client, people, drain):
        response = client.get(path, headers={"Accept": AP})
        assert response.status_code == 200, path
        assert "public" in response.headers["cache-control"]
        assert "Signature" not in response.headers.get("vary", "")


def test_unsigned_gets_are_refused_when_it_is_on(client, people, drain, secure):
    for path in _status_paths(client, people, drain):
        response = client.get(path, headers={"Accept": AP})
        assert (response.status_code, response.json()) == \
            (401, {"error": "Request not signed"}), path


def test_what_peers_need_first_stays_public(client, people, secure):
    assert client.get("/actor", headers={"Accept": AP}).status_code == 200
    assert client.get("/.well-known/webfinger",
                      params={"resource": f"acct:alice@{HOST}"}).status_code == 200
    assert client.get("/.well-known/host-meta").status_code == 200
    assert client.get("/.well-known/nodeinfo").status_code == 200
    assert client.get("/nodeinfo/2.0").status_code == 200
    # browsers still get the profile page
    assert client.get("/users/alice", follow_redirects=False).status_code == 301
    assert secure == []


def test_signed_gets_are_served_privately(client, people, drain, secure, keys):
    paths = _status_paths(client, people, drain)
    for scheme in ("cavage", "rfc9421"):
        for path in paths:
            response = client.get(path, headers=signed(path, keys[0], scheme=scheme))
            assert response.status_code == 200, (scheme, path, response.text)
            assert response.headers["cache-control"].endswith("private")
            assert "Signature" in response.headers["vary"]
    assert client.get("/users/alice", headers=signed("/users/alice", keys[0])
                      ).json()["id"].endswith("/users/alice")
    assert set(secure) == {(KEY_ID, False)}


def test_badly_signed_gets_are_refused_with_the_reason(client, people, secure, keys):
    forged = client.get("/users/alice", headers=signed("/users/alice", keys[1]))
    assert (forged.status_code, forged.json()) == \
        (401, {"error": f"Verification failed for key {KEY_ID}"})
    # the key was asked for again, fresh, before refusing (a rotation is not a forgery)
    assert secure == [(KEY_ID, False), (KEY_ID, True)]
    other_path = client.get("/users/alice", headers=signed("/users/bob", keys[0]))
    assert other_path.status_code == 401
    unknown = client.get("/users/alice", headers=signed(
        "/users/alice", keys[0], key_id="https://nowhere.example/actor#main-key"))
    assert (unknown.status_code, unknown.json()) == \
        (401, {"error": "Public key not found for key https://nowhere.example/actor#main-key"})


def test_signed_gets_from_a_suspended_domain_are_forbidden(client, people, secure, keys):
    from stratus.repo import base
    from stratus.repo import domain_blocks as repo

    base.transact([repo.put_block_op({"id": "1", "domain": "remote.example",
                                      "severity": "suspend"}, replace=True)])
    response = client.get("/users/alice", headers=signed("/users/alice", keys[0]))
    assert (response.status_code, response.json()) == \
        (403, {"error": f"Public key not found for key {KEY_ID}"})  # Mastodon's words
    assert secure == []  # refused before any key is looked up
    base.transact([repo.put_block_op({"id": "1", "domain": "remote.example",
                                      "severity": "silence"}, replace=True)])
    assert client.get("/users/alice", headers=signed("/users/alice", keys[0])
                      ).status_code == 200


def test_the_profile_url_sends_servers_to_the_actor_when_it_is_on(client, people, drain,
                                                                  secure):
    drain()  # the key pair is made: only authorized fetch redirects
    response = client.get("/@alice", headers={"Accept": AP}, follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"].endswith("/users/alice")
    # and a status's url to the status's uri, where the signature is checked
    status = client.post("/api/v1/statuses", data={"status": "hi"},
                         headers=people[1]["alice"]).json()
    response = client.get(f"/@alice/{status['id']}", headers={"Accept": AP},
                          follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == status["uri"]
    assert client.get(status["uri"], headers={"Accept": AP}).status_code == 401


def test_the_profile_url_serves_the_actor_when_it_is_off(client, people, drain):
    drain()  # the key pair is made
    response = client.get("/@alice", headers={"Accept": AP}, follow_redirects=False)
    assert response.status_code == 200


# --- the signer from its actor document ---------------------------------------------------------
def _actor(site, key) -> tuple[str, str]:
    from tests.federation import peers

    actor = site.url("/users/bob")
    key_id = actor + "#main-key"
    peers.serve_actor(site, publicKey={"id": key_id, "owner": actor,
                                       "publicKeyPem": public_pem(key)})
    return actor, key_id


def test_the_signer_is_fetched_from_its_actor_and_stored(client, people, site, keys):
    """An unknown signer's actor is fetched once and stored as a remote account (Mastodon's
    FetchRemoteKeyService); later GETs read it here; a rotated key fetches it again."""
    from stratus.federation import remote_accounts
    from stratus.read import settings

    settings.set_value("authorized_fetch", "true")
    actor_url, key_id = _actor(site, keys[0])
    response = client.get("/users/alice", headers=signed("/users/alice", keys[0], key_id))
    assert response.status_code == 200, response.text
    assert site.hits("/users/bob") == 1
    assert remote_accounts.find(actor_url)["key_id"] == key_id
    client.get("/users/alice/outbox", headers=signed("/users/alice/outbox", keys[0], key_id))
    assert site.hits("/users/bob") == 1  # the stored account's key
    # the peer rotates its key: the stored key fails, the actor is fetched again, it verifies
    _actor(site, keys[1])
    response = client.get("/users/alice", headers=signed("/users/alice", keys[1], key_id))
    assert response.status_code == 200, response.text
    assert site.hits("/users/bob") == 2


def test_a_key_served_by_another_host_is_not_trusted(client, people, site, keys):
    """A keyId whose document names itself on another host is no signer's; nor is a keyId
    whose document is missing."""
    from stratus.read import settings

    settings.set_value("authorized_fetch", "true")
    _actor_url, key_id = _actor(site, keys[0])
    for other in (key_id.replace("127.0.0.1", "localhost"), site.url("/missing#main-key")):
        response = client.get("/users/alice", headers=signed("/users/alice", keys[0], other))
        assert (response.status_code, response.json()) == \
            (401, {"error": f"Public key not found for key {other}"}), other


def test_a_stored_signer_needs_no_fetch(client, people, site, keys):
    """A server we already federate with (its actor stored by federation) is verified with the
    stored key: nothing is fetched, until a failed verification asks for a refetch."""
    from stratus.federation import remote_accounts
    from stratus.read import settings

    from tests.federation import peers

    settings.set_value("authorized_fetch", "true")
    def serve(key) -> dict:
        return peers.serve_actor(site, publicKey={
            "id": peers.actor(site)["id"] + "#main-key", "owner": peers.actor(site)["id"],
            "publicKeyPem": public_pem(key)})

    document = serve(keys[0])
    key_id = document["publicKey"]["id"]
    assert remote_accounts.resolve(document["id"])["key_id"] == key_id
    fetched = site.hits("/users/bob")
    response = client.get("/users/alice", headers=signed("/users/alice", keys[0], key_id))
    assert response.status_code == 200, response.text
    assert site.hits("/users/bob") == fetched
    serve(keys[1])  # rotated: the stored key fails, the document is fetched again
    response = client.get("/users/alice", headers=signed("/users/alice", keys[1], key_id))
    assert response.status_code == 200, response.text
    assert site.hits("/users/bob") == fetched + 1
