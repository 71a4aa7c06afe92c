"""Authorized fetch answers by the signing ACCOUNT, not just by a server that signed
(federation/authorized_fetch.py, federation/activitypub.py): Mastodon's `signed_request_account`
checked by StatusPolicy#show? and its controllers' block checks.

- An account the author blocks, or an account of a domain the author blocks, gets 404 for the
  author's actor, statuses and collections.
- Followers-only statuses are served to a signer who follows the author (an accepted follow),
  direct ones to a signer they mention, nothing private to anyone else; with authorized fetch
  off only public and unlisted statuses are served, whoever signs.
- The signer is the remote account `remote_accounts.by_key_id` finds (stored when unknown).

The attackers are HostilePeer actors with real keys signing their GETs as Mastodon does."""

from __future__ import annotations

import pytest

from tests.rig import post
from tests.rig.peers import Peer

AP = "application/activity+json"
HOST = "localhost:8000"
ALICE = f"http://{HOST}/users/alice"


@pytest.fixture
def servers(hostile):
    """The loopback server the signing accounts live on (HostilePeer)."""
    return hostile


@pytest.fixture
def secure(runtime):
    """Authorized fetch on."""
    from stratus.read import settings

    settings.set_value("authorized_fetch", "true")


def signed_get(client, peer: Peer, path: str):
    """GET `path` signed by `peer`'s key, as Mastodon signs its fetches (draft-cavage)."""
    from stratus.federation import signatures

    headers = signatures.sign_cavage("GET", HOST, path, key_id=peer.key_id,
                                     private_key=peer.private_key, accept=AP)
    return client.get(path, headers={**headers, "Accept": AP}, follow_redirects=False)


def known(peer: Peer) -> str:
    """The peer's actor stored here (as federation stores one it meets); its account id."""
    from stratus.federation import remote_accounts

    return remote_accounts.resolve(peer.uri)["id"]


def follows_alice(client, drain, peer: Peer) -> None:
    """The peer's Follow of alice, delivered to her inbox and accepted as Mastodon accepts it."""
    import json

    body = json.dumps(peer.activity("Follow", ALICE)).encode()
    response = client.post("/users/alice/inbox", content=body,
                           headers=peer.headers("/users/alice/inbox", body))
    assert response.status_code == 202, response.text
    drain()


def collection_paths() -> list[str]:
    return ["/users/alice/outbox", "/users/alice/outbox?page=true", "/users/alice/followers",
            "/users/alice/followers?page=1", "/users/alice/following",
            "/users/alice/collections/featured", "/users/alice/collections/tags"]


def outbox_ids(client, peer: Peer) -> list[str]:
    response = signed_get(client, peer, "/users/alice/outbox?page=true")
    assert response.status_code == 200, response.text
    return [item["object"]["id"] for item in response.json()["orderedItems"]]


# --- blocks ---------------------------------------------------------------------------------------
def test_attack_blocked_account_fetches_status_with_signature(client, drain, alice, servers,
                                                              secure):
    """Mastodon's StatusPolicy#show?: a public status is not shown to an account its author
    blocks (404, as for a status that does not exist). Another account of the same server
    still reads it: the block is the account's, not the server's."""
    _, headers = alice
    mallory, other = servers.actor("mallory"), servers.actor("olive", key_index=1)
    status = post(client, headers, status="hello", visibility="public")
    paths = [f"/users/alice/statuses/{status['id']}",
             f"/users/alice/statuses/{status['id']}/activity"]
    assert signed_get(client, mallory, paths[0]).status_code == 200  # before the block
    blocked = client.post(f"/api/v1/accounts/{known(mallory)}/block", headers=headers)
    assert blocked.status_code == 200, blocked.text
    for path in paths:
        response = signed_get(client, mallory, path)
        assert response.status_code == 404, (path, response.text)
        assert "hello" not in response.text
        assert signed_get(client, other, path).status_code == 200, path


def test_attack_blocked_account_reads_the_authors_actor_and_collections(client, drain, alice,
                                                                       servers, secure):
    _, headers = alice
    mallory = servers.actor("mallory")
    post(client, headers, status="pinned soon", visibility="public")
    drain()
    assert client.post(f"/api/v1/accounts/{known(mallory)}/block",
                       headers=headers).status_code == 200
    for path in ["/users/alice", *collection_paths()]:
        response = signed_get(client, mallory, path)
        assert response.status_code == 404, (path, response.text)


def test_attack_domain_blocked_by_author_fetches_actor(client, drain, alice, servers, secure):
    """A user's domain block (POST /api/v1/domain_blocks, a host without a port, as Mastodon's
    Account#domain_blocking? names it) refuses every account of that host, the port its
    server listens on notwithstanding; another local author is still served."""
    from tests import rig

    _, headers = alice
    rig.make_user("carol")
    mallory = servers.actor("mallory")
    status = post(client, headers, status="hello", visibility="public")
    drain()
    assert signed_get(client, mallory, "/users/alice").status_code == 200  # before the block
    response = client.post("/api/v1/domain_blocks", data={"domain": "127.0.0.1"},
                           headers=headers)
    assert response.status_code == 200, response.text
    for path in ["/users/alice", f"/users/alice/statuses/{status['id']}",
                 f"/users/alice/statuses/{status['id']}/activity", *collection_paths()]:
        response = signed_get(client, mallory, path)
        assert response.status_code == 404, (path, response.text)
    assert signed_get(client, mallory, "/users/carol").status_code == 200


def test_blocked_signer_still_reads_what_every_peer_needs(client, alice, servers, secure):
    """The instance actor, WebFinger, host-meta and NodeInfo answer everyone, as at Mastodon:
    a blocked account's server still verifies what the author signs (a Block, a Reject)."""
    _, headers = alice
    mallory = servers.actor("mallory")
    assert client.post(f"/api/v1/accounts/{known(mallory)}/block",
                       headers=headers).status_code == 200
    assert signed_get(client, mallory, "/actor").status_code == 200
    assert client.get("/.well-known/webfinger",
                      params={"resource": f"acct:alice@{HOST}"}).status_code == 200
    assert client.get("/.well-known/host-meta").status_code == 200
    assert client.get("/nodeinfo/2.0").status_code == 200


# --- followers-only and direct statuses --------------------------------------------------------
def test_followers_only_served_to_signing_follower(client, drain, alice, servers, secure):
    """Mastodon's StatusPolicy#show? for a private status: the author's followers (the signing
    account follows, accepted) get the Note, addressed to the followers collection; the outbox
    lists it for them (AccountStatusesFilter); the answer is private to that signer."""
    _, headers = alice
    bob = servers.actor("bob")
    follows_alice(client, drain, bob)
    status = post(client, headers, status="for my followers", visibility="private")
    drain()
    path = f"/users/alice/statuses/{status['id']}"
    response = signed_get(client, bob, path)
    assert response.status_code == 200, response.text
    note = response.json()
    assert note["id"] == status["uri"] and "for my followers" in note["content"]
    assert note["to"] == [f"{ALICE}/followers"]
    assert response.headers["cache-control"].endswith("private")
    assert "Signature" in response.headers["vary"]
    activity = signed_get(client, bob, f"{path}/activity")
    assert activity.status_code == 200 and activity.json()["type"] == "Create"
    assert outbox_ids(client, bob) == [status["uri"]]


def test_followers_only_refused_to_signing_stranger(client, drain, alice, servers, secure):
    """A private status is the followers' only: an account of the very server where a follower
    lives, signing for itself, gets 404 (and an outbox without it) while the follower reads it,
    so the rule is the account's, never the server's."""
    _, headers = alice
    bob, mallory = servers.actor("bob"), servers.actor("mallory", key_index=1)
    follows_alice(client, drain, bob)
    public = post(client, headers, status="for all", visibility="public")
    private = post(client, headers, status="for my followers", visibility="private")
    drain()
    path = f"/users/alice/statuses/{private['id']}"
    assert signed_get(client, bob, path).status_code == 200
    for each in (path, f"{path}/activity"):
        response = signed_get(client, mallory, each)
        assert response.status_code == 404, (each, response.text)
    assert outbox_ids(client, mallory) == [public["uri"]]


def test_followers_only_refused_to_a_pending_follow_request(client, drain, alice, servers,
                                                            secure):
    """A locked author's follow request is not a follow until it is accepted."""
    _, headers = alice
    assert client.patch("/api/v1/accounts/update_credentials", data={"locked": "true"},
                        headers=headers).status_code == 200
    bob = servers.actor("bob")
    follows_alice(client, drain, bob)
    status = post(client, headers, status="for my followers", visibility="private")
    assert signed_get(client, bob, f"/users/alice/statuses/{status['id']}").status_code == 404


def test_direct_served_only_to_signing_mentioned_account(client, drain, alice, servers, secure):
    """A direct status: the accounts it mentions read it; a follower does not."""
    _, headers = alice
    bob, carol = servers.actor("bob"), servers.actor("carol", key_index=1)
    known(bob)
    follows_alice(client, drain, carol)
    status = post(client, headers, status=f"@bob@{servers.host} a secret",
                  visibility="direct")
    assert [m["acct"] for m in status["mentions"]] == [f"bob@{servers.host}"]
    path = f"/users/alice/statuses/{status['id']}"
    response = signed_get(client, bob, path)
    assert response.status_code == 200, response.text
    assert response.json()["to"] == [bob.uri]
    assert signed_get(client, carol, path).status_code == 404
    assert outbox_ids(client, carol) == []


def test_private_statuses_stay_unserved_with_authorized_fetch_off(client, drain, alice,
                                                                  servers):
    """Off (the default), answers are public and cached: a signature changes nothing and only
    public and unlisted statuses are served, to followers too."""
    _, headers = alice
    bob = servers.actor("bob")
    follows_alice(client, drain, bob)
    private = post(client, headers, status="for my followers", visibility="private")
    public = post(client, headers, status="for all", visibility="public")
    assert signed_get(client, bob, f"/users/alice/statuses/{private['id']}").status_code == 404
    response = signed_get(client, bob, f"/users/alice/statuses/{public['id']}")
    assert response.status_code == 200
    assert "public" in response.headers["cache-control"]
    assert outbox_ids(client, bob) == [public["uri"]]


# --- the signer -----------------------------------------------------------------------------------
def test_an_unknown_signer_is_fetched_and_stored_once(client, alice, servers, secure):
    """Mastodon's signed_request_account: an unknown signer's actor is fetched and stored
    (remote_accounts.by_key_id), so later GETs read it here instead of fetching again."""
    from stratus.federation import remote_accounts

    mallory = servers.actor("mallory")
    assert remote_accounts.find(mallory.uri) is None
    assert signed_get(client, mallory, "/users/alice").status_code == 200
    stored = remote_accounts.find(mallory.uri)
    assert stored is not None and stored["key_id"] == mallory.key_id
    fetched = servers.hits("/users/mallory")
    assert signed_get(client, mallory, "/users/alice/outbox").status_code == 200
    assert servers.hits("/users/mallory") == fetched
