"""Origin checks against a hostile server (docs/security.md, "Federation threats"): a fetched
object is only believed when its `id` is the URL it was fetched from (Mastodon's
`fetch_resource(uri, id_is_known)`; after a redirect, the final URL: GoToSocial), is served as
ActivityPub and nests boundedly (federation/http.fetch_object); the URI index is written only
for ids on their owner's host and never over another owner's entry (repo/uris.py).

Each attack test scripts the attack with a HostilePeer (the attacker's host) against a
well-behaved site (the victim's host), then asserts that nothing the attack aimed at changed:
the victim's stored key and inbox, the URI index entry, the items stored (`count_state`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rig.hostile import count_state
from tests.rig.peers import AP, PUBLIC, key_pair, public_pem

AS_LD = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'


# --- helpers --------------------------------------------------------------------------------------
def state(drain) -> dict[str, int]:
    """Items by type once the stream has settled (what follows from a write is written), without
    the inbox's once-markers (every POST writes one) and our instance actor's key pair (made at
    its first signed fetch)."""
    drain()
    counts = count_state()
    counts.pop("dedupe", None)
    counts.pop("actor_key", None)
    return counts


def stored(uri: str) -> dict[str, Any]:
    """What an attack on an account aims at: its id, key, inbox and profile URL."""
    from stratus.federation import remote_accounts

    profile = remote_accounts.find(uri)
    assert profile is not None
    return {k: profile.get(k) for k in ("id", "uri", "key_id", "public_key_pem", "inbox",
                                         "shared_inbox", "url")}


def forged_actor(victim, attacker_site, key_id: str) -> dict[str, Any]:
    """The victim's actor document as the attacker rewrites it: the attacker's key (under
    `key_id`) and inbox."""
    return {**victim.document, "inbox": attacker_site.url("/inbox"),
            "endpoints": {"sharedInbox": attacker_site.url("/inbox")},
            "publicKey": {"id": key_id, "owner": victim.uri,
                          "publicKeyPem": public_pem(key_pair(1))}}


def known(peer) -> str:
    """Store a peer's actor (as a search or a first activity would); its account id."""
    from stratus.federation import remote_accounts

    profile = remote_accounts.resolve(peer.uri)
    assert profile is not None and profile["key_id"] == peer.key_id
    return profile["id"]


def note(peer, number: int, **extra: Any) -> dict[str, Any]:
    uri = f"{peer.uri}/statuses/{number}"
    return {"@context": "https://www.w3.org/ns/activitystreams", "id": uri, "type": "Note",
            "attributedTo": peer.uri, "content": f"<p>status {number}</p>",
            "published": "2026-01-01T00:00:00Z", "to": [PUBLIC], "cc": [peer.followers],
            "url": uri, **extra}


def served_status(peer, number: int) -> tuple[str, str]:
    """A status of `peer`, served by its site and stored here: (its URI, its id)."""
    from stratus.federation import remote_statuses

    document = note(peer, number)
    peer.site.serve_json(f"/users/{peer.username}/statuses/{number}", document)
    status_id = remote_statuses.resolve(document["id"])
    assert status_id is not None
    return document["id"], status_id


def post(client, drain, peer, activity: dict[str, Any], **signing: Any) -> int:
    response = peer.post(client, activity, "/inbox", **signing)
    drain()
    return response.status_code


# --- 1. the fetch layer: remote account takeover --------------------------------------------------
def test_attack_key_url_redirects_to_attackers_actor(client, drain, hostile, victim_site):
    """The keyId is a URL on the victim's host that redirects to the attacker's copy of Bob's
    actor (Bob's id, the attacker's key and inbox): the document does not name itself by the
    URL it came from, so it is not believed, and Bob's key and inbox stay."""
    bob = victim_site.actor("bob")
    known(bob)
    before, bob_before = state(drain), stored(bob.uri)
    key_id = victim_site.redirect("/go", hostile.url("/forged"))
    hostile.serve_json("/forged", forged_actor(bob, hostile, key_id))
    activity = bob.activity("Create", bob.note("I am Bob now"))
    status = post(client, drain, bob, activity, key_id=key_id, private_key=key_pair(1))
    assert status == 401
    assert stored(bob.uri) == bob_before
    assert state(drain) == before


def test_attack_key_url_serves_attackers_actor(client, drain, hostile, victim_site):
    """The keyId is a file on the victim's host the attacker could upload (served as
    ActivityPub): it names itself Bob, so Bob is fetched by his id, and his real document does
    not own that key."""
    bob = victim_site.actor("bob")
    known(bob)
    before, bob_before = state(drain), stored(bob.uri)
    key_id = victim_site.url("/media/upload.json")
    victim_site.serve_json("/media/upload.json", forged_actor(bob, hostile, key_id))
    activity = bob.activity("Create", bob.note("I am Bob now"))
    assert post(client, drain, bob, activity, key_id=key_id, private_key=key_pair(1)) == 401
    assert stored(bob.uri) == bob_before
    assert state(drain) == before


def test_attack_forged_actor_is_not_stored_for_an_unknown_victim(
        client, drain, hostile, victim_site):
    """The same redirect before Bob is known here: nothing is stored as Bob."""
    from stratus.federation import remote_accounts

    bob = victim_site.actor("bob")
    before = state(drain)
    key_id = victim_site.redirect("/go", hostile.url("/forged"))
    hostile.serve_json("/forged", forged_actor(bob, hostile, key_id))
    activity = bob.activity("Follow", "http://localhost:8000/users/nobody")
    assert post(client, drain, bob, activity, key_id=key_id, private_key=key_pair(1)) == 401
    assert remote_accounts.find(bob.uri) is None
    assert state(drain) == before


def test_attack_actor_fetch_redirects_to_a_forged_actor(runtime, drain, hostile, victim_site):
    """Bob's actor URL answers with a redirect to the attacker's copy naming itself Bob: a
    refresh keeps what we know, a first fetch stores nothing."""
    from stratus.federation import remote_accounts
    from stratus.repo import base, keys

    bob = victim_site.actor("bob")
    known(bob)
    carol = victim_site.actor("carol")
    before, bob_before = state(drain), stored(bob.uri)
    hostile.serve_json("/forged-bob", forged_actor(bob, hostile, hostile.url("/k")))
    hostile.serve_json("/forged-carol", forged_actor(carol, hostile, hostile.url("/k")))
    victim_site.redirect("/users/bob", hostile.url("/forged-bob"))
    victim_site.redirect("/users/carol", hostile.url("/forged-carol"))
    base.update(keys.account_profile(bob_before["id"]), "SET fetched_at = :t",
                vals={":t": "2020-01-01T00:00:00.000Z"})
    remote_accounts.resolve(bob.uri, refresh=True)
    assert stored(bob.uri) == bob_before
    assert remote_accounts.resolve(carol.uri) is None
    assert state(drain) == before


def test_attack_search_url_serves_a_forged_actor(runtime, drain, hostile, victim_site):
    """A URL searched for (on the victim's host) serves a document naming itself Bob: Bob is
    fetched by his id instead, and keeps his key."""
    from stratus.federation import remote_statuses

    bob = victim_site.actor("bob")
    bob_id = known(bob)
    before, bob_before = state(drain), stored(bob.uri)
    url = victim_site.serve_json("/media/profile.json",
                                 forged_actor(bob, hostile, bob.key_id))
    assert remote_statuses.resolve_url(url) == ("account", bob_id)
    assert stored(bob.uri) == bob_before
    assert state(drain) == before


def test_attack_uploaded_json_poses_as_an_actor(runtime, drain, victim_site):
    """A JSON file on the victim's host naming itself (an upload served as application/json)
    is not ActivityPub: no account `admin@victim` is made of it."""
    from stratus.federation import remote_accounts, remote_statuses

    url = victim_site.url("/media/admin.json")
    document = {"@context": "https://www.w3.org/ns/activitystreams", "id": url,
                "type": "Person", "preferredUsername": "admin", "inbox": url + "/inbox"}
    before = state(drain)
    for content_type in ("application/json", "application/ld+json", "text/html",
                         'application/ld+json; profile="https://example.com/other"'):
        victim_site.serve_json("/media/admin.json", document, content_type)
        assert remote_accounts.resolve(url) is None, content_type
        assert remote_statuses.resolve_url(url) is None, content_type
    assert state(drain) == before


def test_ld_json_with_the_activitystreams_profile_is_activitypub(runtime, victim_site):
    from stratus.federation import remote_accounts

    carol = victim_site.actor("carol")
    victim_site.serve_json("/users/carol", carol.document, AS_LD)
    assert remote_accounts.resolve(carol.uri)["uri"] == carol.uri


def test_attack_deeply_nested_document(runtime, hostile):
    """A document nested past the bound is a failed fetch, never a RecursionError."""
    from stratus.federation import http, remote_accounts

    depth = 200_000
    url = hostile.serve("/users/deep", '{"id": ' + "[" * depth + "]" * depth + "}", AP)
    with pytest.raises(http.FetchFailed):
        http.fetch_object(url)
    assert remote_accounts.resolve(url) is None


def test_attack_status_fetch_redirects_to_a_forged_status(client, drain, hostile, victim_site):
    """The attacker boosts a URL on the victim's host that redirects to a Note naming itself
    one of Bob's statuses: it is not stored as Bob's (nor boosted)."""
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    known(bob)
    mallory = hostile.actor("mallory")
    known(mallory)
    before = state(drain)
    forged = note(bob, 666, content="<p>Bob says send money</p>")
    hostile.serve_json("/forged-note", forged)
    target = victim_site.redirect("/s/666", hostile.url("/forged-note"))
    announce = mallory.activity("Announce", target, to=[PUBLIC], cc=[mallory.followers])
    assert post(client, drain, mallory, announce) == 202
    assert uris.find(forged["id"]) is None and uris.find(target) is None
    assert state(drain) == before


def test_attack_search_url_serves_a_forged_status(runtime, drain, hostile, victim_site):
    """A searched URL on the victim's host serves a Note naming itself Bob's: it is fetched
    again by that id (where it does not exist), and nothing is stored."""
    from stratus.federation import remote_statuses
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    known(bob)
    before = state(drain)
    forged = note(bob, 667)
    url = victim_site.serve_json("/media/note.json", forged)
    assert remote_statuses.resolve_url(url) is None
    assert uris.find(forged["id"]) is None
    assert state(drain) == before


def test_attack_profile_url_points_elsewhere(client, hostile, victim_site):
    """An actor's profile `url` on another host (Bob's page) is not shown as its URL."""
    from stratus.federation import remote_accounts

    bob = victim_site.actor("bob")
    mallory = hostile.actor("mallory", url=bob.document["url"])
    profile = remote_accounts.resolve(mallory.uri)
    assert profile["url"] == mallory.uri
    shown = client.get(f"/api/v1/accounts/{profile['id']}").json()
    assert shown["url"] == mallory.uri


def test_attack_status_url_points_elsewhere(client, drain, hostile, victim_site):
    """A status's `url` on another host (Bob's status page) is not kept: its URI is its URL."""
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    mallory = hostile.actor("mallory")
    created = note(mallory, 1, url=victim_site.url("/@bob/1"))
    assert post(client, drain, mallory, mallory.activity("Create", created)) == 202
    found = uris.find(created["id"])
    assert found is not None
    assert statuses_repo.get(found[1])["url"] == created["id"]
    assert bob.uri  # the victim's site exists: its URL is a real other host


# --- 2. the URI index ----------------------------------------------------------------------------
def test_attack_announce_id_claims_anothers_status(client, drain, hostile, victim_site):
    """An Announce whose id is Bob's status URI does not repoint that URI to the attacker's
    boost: Bob's Delete still finds his status, and an Undo of that id deletes nothing."""
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    known(bob)
    uri, status_id = served_status(bob, 1)
    mallory = hostile.actor("mallory")
    known(mallory)
    before = state(drain)
    announce = {**mallory.activity("Announce", uri, to=[PUBLIC], cc=[mallory.followers]),
                "id": uri}
    assert post(client, drain, mallory, announce) == 202
    assert uris.find(uri) == ("status", status_id)
    assert state(drain) == before
    assert post(client, drain, mallory, mallory.activity("Undo", uri)) == 202
    assert uris.find(uri) == ("status", status_id)
    assert state(drain) == before
    assert post(client, drain, bob, bob.activity("Delete", uri)) == 202
    assert uris.find(uri) is None


def test_attack_announce_id_claims_a_status_of_its_own_host(client, drain, victim_site):
    """Another actor of Bob's own host boosts with Bob's status URI as the Announce's id: the
    entry is another owner's, the conditional write refuses it, the whole boost is dropped
    (no half of it stored) and the worker does not fail."""
    from stratus.federation.inbox import announce as announce_use_case
    from stratus.federation.inbox.common import Context
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    known(bob)
    uri, status_id = served_status(bob, 1)
    carol = victim_site.actor("carol", key_index=2)
    carol_id = known(carol)
    before = state(drain)
    announce = {**carol.activity("Announce", uri, to=[PUBLIC], cc=[carol.followers]),
                "id": uri}
    assert post(client, drain, carol, announce) == 202
    assert uris.find(uri) == ("status", status_id)
    assert state(drain) == before
    announce_use_case.handle(Context(announce, accounts_repo.get_profile(carol_id)))
    assert uris.find(uri) == ("status", status_id)
    assert state(drain) == before


def test_attack_key_id_squatting(client, drain, hostile, victim_site):
    """An attacker's actor names Bob's key id as its own key: it does not capture the key id,
    so Bob's signed activities are still accepted."""
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    bob_id = known(bob)
    mallory = hostile.actor("mallory")
    mallory.serve(publicKey={"id": bob.key_id, "owner": mallory.uri,
                             "publicKeyPem": public_pem(key_pair(1))})
    squatter = remote_accounts.resolve(mallory.uri)
    assert squatter is None or squatter.get("key_id") is None
    assert uris.find(bob.key_id) == ("key", bob_id)
    assert remote_accounts.by_key_id(bob.key_id)["id"] == bob_id
    follow = bob.activity("Follow", "http://localhost:8000/users/nobody")
    assert post(client, drain, bob, follow) == 202


def test_attack_same_host_actor_cannot_take_a_stored_key(client, drain, victim_site):
    """An actor of Bob's own host that names Bob's key id (first fetched, then in an Update it
    signs) does not take the key id over: the write is refused, nothing half-written, and the
    Update is dropped without failing the worker."""
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    bob_id = known(bob)
    carol = victim_site.actor("carol", key_index=2)
    carol_id = known(carol)
    before, bob_before, carol_before = state(drain), stored(bob.uri), stored(carol.uri)
    squatting = {**carol.document, "publicKey": {"id": bob.key_id, "owner": carol.uri,
                                                  "publicKeyPem": public_pem(key_pair(2))}}
    assert post(client, drain, carol, carol.activity("Update", squatting)) == 202
    assert uris.find(bob.key_id) == ("key", bob_id)
    assert stored(bob.uri) == bob_before and stored(carol.uri) == carol_before
    assert state(drain) == before
    dave = victim_site.actor("dave")
    dave.serve(publicKey={**squatting["publicKey"], "owner": dave.uri})
    assert remote_accounts.resolve(dave.uri) is None
    assert uris.find(bob.key_id) == ("key", bob_id)
    assert state(drain) == before
    assert remote_accounts.by_key_id(bob.key_id)["id"] == bob_id
    assert carol_id != bob_id


def test_attack_key_id_names_anothers_actor(runtime, hostile, victim_site):
    """An attacker's actor names Bob's actor id as its key id: resolving Bob still gives Bob
    (the URI entry of his id stays his)."""
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    bob_id = known(bob)
    mallory = hostile.actor("mallory")
    mallory.serve(publicKey={"id": bob.uri, "owner": mallory.uri,
                             "publicKeyPem": public_pem(key_pair(1))})
    remote_accounts.resolve(mallory.uri)
    assert uris.find(bob.uri) == ("account", bob_id)
    assert remote_accounts.resolve(bob.uri)["id"] == bob_id


# --- what stays possible -------------------------------------------------------------------------
def test_a_key_url_serving_its_actor_leads_to_the_actor(runtime, victim_site):
    """GoToSocial's shape: the key id is its own URL, which serves the owner's actor (another
    id). The actor is fetched again by its id and stored: the key is its `publicKey.id`."""
    from stratus.federation import remote_accounts

    key_id = victim_site.url("/users/erin/main-key")
    erin = victim_site.actor("erin", key_index=3, publicKey={
        "id": key_id, "owner": victim_site.url("/users/erin"),
        "publicKeyPem": public_pem(key_pair(3))})
    victim_site.serve_json("/users/erin/main-key", erin.document)
    profile = remote_accounts.by_key_id(key_id)
    assert profile is not None and profile["uri"] == erin.uri and profile["key_id"] == key_id
    assert victim_site.hits("/users/erin") == 1


def test_a_redirect_to_a_self_naming_document_is_fetched_again_by_its_id(runtime, victim_site):
    """A URL whose id is not known (a search) that redirects to a document naming itself by
    the final URL: that document is believed once fetched again by its id."""
    from stratus.federation import http

    carol = victim_site.actor("carol")
    start = victim_site.redirect("/@carol", carol.uri)
    assert http.fetch_object(start)["id"] == carol.uri
    assert victim_site.hits("/users/carol") == 2
    with pytest.raises(http.FetchFailed):
        http.fetch_object(start, id_is_known=True)
