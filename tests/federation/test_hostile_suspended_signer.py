"""Authorized fetch by a remote account that staff suspended on its own (docs/security.md,
"Federation threats"), answered as Mastodon answers it:

- Mastodon's `signed_request_account` and its policies never look at the signer's own
  suspension: the actor, public statuses, the outbox and the collections are served to it as to
  any signing account (200), and a direct status that mentions it too (StatusPolicy's
  `mention_exists?`). What the suspension takes away is its follows (rejected and ended:
  SuspendAccountService#reject_remote_follows!), so its followers-only statuses are 404.
- Its key stays the one it had when suspended (ProcessAccountService: `set_fetchable_key!
  unless suspended? && suspension_origin_local?`): a key it rotates to afterwards verifies
  nothing (401), where an account in good standing is refetched and verifies.
- A signer on a suspended domain gets 403 `Public key not found for key <keyId>` before any key
  is looked up (Mastodon's keypair_from_key_id).

The signers are HostilePeer actors with real keys, signing their GETs as Mastodon does."""

from __future__ import annotations

import json

import pytest

from tests import rig
from tests.rig import post
from tests.rig.peers import key_pair, public_pem

AP = "application/activity+json"
HOST = "localhost:8000"
ALICE = f"http://{HOST}/users/alice"


@pytest.fixture
def secure(runtime):
    from stratus.read import settings

    settings.set_value("authorized_fetch", "true")


def signed_get(client, peer, path: str):
    from stratus.federation import signatures

    headers = signatures.sign_cavage("GET", HOST, path, key_id=peer.key_id,
                                     private_key=peer.private_key, accept=AP)
    return client.get(path, headers={**headers, "Accept": AP}, follow_redirects=False)


def known(peer) -> str:
    from stratus.federation import remote_accounts

    return remote_accounts.resolve(peer.uri)["id"]


def follows_alice(client, drain, peer) -> None:
    body = json.dumps(peer.activity("Follow", ALICE)).encode()
    response = client.post("/users/alice/inbox", content=body,
                           headers=peer.headers("/users/alice/inbox", body))
    assert response.status_code == 202, response.text
    drain()


def rotate(peer, index: int) -> None:
    """The peer's actor now serves a new key under the same key id, and signs with it."""
    peer.private_key = key_pair(index)
    peer.serve(publicKey={"id": peer.key_id, "owner": peer.uri,
                          "publicKeyPem": public_pem(peer.private_key)})


def test_a_suspended_signer_is_answered_as_any_signing_account(client, drain, alice, staff,
                                                                hostile, secure):
    _, headers = alice
    mallory = hostile.actor("mallory")
    mallory_id = known(mallory)
    follows_alice(client, drain, mallory)
    public = post(client, headers, status="for all", visibility="public")
    private = post(client, headers, status="for my followers", visibility="private")
    direct = post(client, headers, status=f"@mallory@{hostile.host} psst", visibility="direct")
    drain()
    assert signed_get(client, mallory, f"/users/alice/statuses/{private['id']}"
                      ).status_code == 200  # a follower, before

    rig.suspend(client, staff, mallory_id)
    drain()  # its follow of alice is rejected and ended
    for path in ("/users/alice", f"/users/alice/statuses/{public['id']}",
                 f"/users/alice/statuses/{public['id']}/activity",
                 f"/users/alice/statuses/{direct['id']}", "/users/alice/outbox",
                 "/users/alice/followers", "/users/alice/following",
                 "/users/alice/collections/featured", "/users/alice/collections/tags"):
        response = signed_get(client, mallory, path)
        assert response.status_code == 200, (path, response.text)
        assert response.headers["cache-control"].endswith("private"), path
    private_path = f"/users/alice/statuses/{private['id']}"
    response = signed_get(client, mallory, private_path)
    assert (response.status_code, response.json()) == (404, {"error": "Record not found"})
    page = signed_get(client, mallory, "/users/alice/outbox?page=true").json()
    assert public["uri"] in [item["object"]["id"] for item in page["orderedItems"]]
    assert private["uri"] not in json.dumps(page)


def test_attack_a_suspended_signer_rotates_to_a_key_it_was_never_suspended_with(
        client, drain, alice, staff, hostile, secure):
    """Before the fix the refetch after the failing signature stored the new key of the
    suspended account, and its GETs verified again; now the key it had stays (401), while an
    account in good standing that rotates is fetched again and verifies."""
    from stratus.federation import remote_accounts

    mallory, olive = hostile.actor("mallory"), hostile.actor("olive", key_index=1)
    mallory_id, _ = known(mallory), known(olive)
    rig.suspend(client, staff, mallory_id)
    drain()
    stored = remote_accounts.find(mallory.uri)["public_key_pem"]
    assert signed_get(client, mallory, "/users/alice").status_code == 200

    rotate(mallory, 2)
    response = signed_get(client, mallory, "/users/alice")
    assert response.status_code == 401, response.text
    assert response.json()["error"].startswith("Verification failed for key")
    assert remote_accounts.find(mallory.uri)["public_key_pem"] == stored

    rotate(olive, 3)
    assert signed_get(client, olive, "/users/alice").status_code == 200
    assert remote_accounts.find(olive.uri)["public_key_pem"] == public_pem(olive.private_key).strip()


def test_a_signer_on_a_suspended_domain_gets_mastodons_403(client, alice, staff, hostile,
                                                           secure):
    mallory = hostile.actor("mallory")
    known(mallory)
    answer = client.post("/api/v1/admin/domain_blocks", headers=staff,
                         json={"domain": "127.0.0.1", "severity": "suspend"})
    assert answer.status_code == 200, answer.text
    status = post(client, alice[1], status="for all", visibility="public")
    for path in ("/users/alice", f"/users/alice/statuses/{status['id']}",
                 "/users/alice/outbox", "/users/alice/followers"):
        response = signed_get(client, mallory, path)
        assert (response.status_code, response.json()) == \
            (403, {"error": f"Public key not found for key {mallory.key_id}"}), path
