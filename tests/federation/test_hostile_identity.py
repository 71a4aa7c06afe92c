"""Identity attacks by a hostile peer (docs/security.md, "Federation threats"): an actor that
claims another's handle or key id before the victim is known here, a redirect that makes a
stored account look gone, and a flood of badly signed requests that would make us refetch
their claimed actor each time.

The rules under test: a handle is believed only when WebFinger confirms it is the actor's own
(federation/webfinger.confirm, Mastodon's `check_webfinger!`); a key id is never another
actor's id or key (remote_accounts.owns_key); a 410 ends an account only when its own host
answers it (http.FetchFailed.gone); a failed signature refetches its actor at most once per
cool-down (remote_accounts._refetch_for_signature)."""

from __future__ import annotations

import json
from typing import Any

from tests.federation import peers as documents
from tests.rig.hostile import count_state
from tests.rig.peers import AP, key_pair, public_pem

NOBODY = "http://localhost:8000/users/nobody"


# --- helpers --------------------------------------------------------------------------------------
def state(drain) -> dict[str, int]:
    """Items by type once the stream has settled, without the inbox's once-markers and
    cool-downs (dedupe) and our instance actor's key pair (made at its first signed fetch)."""
    drain()
    counts = count_state()
    counts.pop("dedupe", None)
    counts.pop("actor_key", None)
    return counts


def known(peer) -> str:
    from stratus.federation import remote_accounts

    profile = remote_accounts.resolve(peer.uri)
    assert profile is not None and profile["key_id"] == peer.key_id
    return profile["id"]


def post(client, drain, peer, activity: dict[str, Any], **signing: Any) -> int:
    response = peer.post(client, activity, "/inbox", **signing)
    drain()
    return response.status_code


def lookup(client, acct: str) -> dict[str, Any]:
    response = client.get("/api/v1/accounts/lookup", params={"acct": acct})
    assert response.status_code == 200, response.text
    return response.json()


def age(account_id: str) -> None:
    """Make a stored account stale (fetched long ago), so a refresh fetches it again."""
    from stratus.repo import base, keys

    base.update(keys.account_profile(account_id), "SET fetched_at = :t",
                vals={":t": "2020-01-01T00:00:00.000Z"})


# --- handles --------------------------------------------------------------------------------------
def test_attack_same_host_actor_claims_anothers_handle_first(client, drain, victim_site):
    """An actor of Bob's own host names itself `bob` (preferredUsername) and reaches us before
    Bob does. Its server's WebFinger says `bob@host` is Bob, so it is stored under no handle
    at all (nothing of it is), Bob's own activities are accepted when they come, and
    `@bob@host` names Bob."""
    from stratus.federation import remote_accounts
    from stratus.repo import accounts as accounts_repo

    bob = victim_site.actor("bob")
    mallory = victim_site.actor("mallory", key_index=1, preferredUsername="bob",
                                name="Bob (really)")
    host = victim_site.host
    before = state(drain)
    assert post(client, drain, mallory, mallory.activity("Follow", NOBODY)) == 401
    assert remote_accounts.resolve(mallory.uri) is None
    assert remote_accounts.find(mallory.uri) is None
    assert accounts_repo.id_by_handle("bob", host) is None
    assert state(drain) == before
    assert post(client, drain, bob, bob.activity("Follow", NOBODY)) == 202
    bob_id = remote_accounts.find(bob.uri)["id"]
    assert lookup(client, f"bob@{host}")["id"] == bob_id
    assert lookup(client, f"bob@{host}")["url"] == bob.document["url"]
    assert remote_accounts.resolve_acct(f"bob@{host}")["id"] == bob_id


def test_a_handle_webfinger_does_not_confirm_is_not_stored(runtime, drain, victim_site):
    """No WebFinger answer, an answer naming another actor, or one without a subject: the
    actor is not stored (Mastodon refuses an actor whose WebFinger does not loop back)."""
    from stratus.federation import remote_accounts

    host = victim_site.host
    carol = victim_site.actor("carol")
    path = f"/.well-known/webfinger?resource=acct:carol@{host}"
    before = state(drain)
    for answer in (None, {"subject": f"acct:carol@{host}",
                          "links": [{"rel": "self", "type": AP, "href": victim_site.url("/x")}]},
                   {"links": [{"rel": "self", "type": AP, "href": carol.uri}]}):
        if answer is None:
            victim_site.pages.pop(path)
        else:
            victim_site.serve(path, json.dumps(answer), "application/jrd+json")
        assert remote_accounts.resolve(carol.uri) is None, answer
    assert state(drain) == before
    documents.serve_webfinger(victim_site, "carol")
    assert remote_accounts.resolve(carol.uri)["username"] == "carol"


def test_a_handle_on_another_domain_is_confirmed_there(runtime, victim_site, hostile):
    """The apex-domain setup (Mastodon's WebFinger redirect): the actor's host answers with a
    subject on another domain, which answers for itself with a `self` link to this actor. The
    account is stored, under its actor's host (our accounts' domain); when the other domain's
    answer names another actor, it is not."""
    from stratus.federation import remote_accounts

    erin = victim_site.actor("erin")
    apex = hostile.host
    victim_site.serve(f"/.well-known/webfinger?resource=acct:erin@{victim_site.host}",
                      json.dumps({"subject": f"acct:erin@{apex}",
                                  "links": [{"rel": "self", "type": AP, "href": erin.uri}]}),
                      "application/jrd+json")
    documents.serve_webfinger(hostile, "erin", href=victim_site.url("/users/someone-else"))
    assert remote_accounts.resolve(erin.uri) is None
    documents.serve_webfinger(hostile, "erin", href=erin.uri)
    profile = remote_accounts.resolve(erin.uri)
    assert profile["username"] == "erin" and profile["domain"] == victim_site.host


# --- key ids --------------------------------------------------------------------------------------
def test_attack_same_host_actor_names_anothers_id_or_key_as_its_key_first(
        client, drain, victim_site):
    """Actors of Bob's own host name Bob's actor id, or Bob's key id, as their own key id and
    reach us before Bob: a key id is never another actor's, so they are refused (nothing
    stored), and Bob, coming later, is stored with his id and key and his activities are
    accepted."""
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    mallory = victim_site.actor("mallory", key_index=1)
    mallory.serve(publicKey={"id": bob.uri, "owner": mallory.uri,
                             "publicKeyPem": public_pem(key_pair(1))})
    trudy = victim_site.actor("trudy", key_index=2)
    trudy.serve(publicKey={"id": bob.key_id, "owner": trudy.uri,
                           "publicKeyPem": public_pem(key_pair(2))})
    before = state(drain)
    assert post(client, drain, mallory, mallory.activity("Follow", NOBODY),
                key_id=bob.uri) == 401
    assert remote_accounts.resolve(mallory.uri) is None
    assert remote_accounts.resolve(trudy.uri) is None
    assert uris.find(bob.uri) is None and uris.find(bob.key_id) is None
    assert state(drain) == before
    assert post(client, drain, bob, bob.activity("Follow", NOBODY)) == 202
    bob_id = remote_accounts.find(bob.uri)["id"]
    assert uris.find(bob.uri) == ("account", bob_id)
    assert uris.find(bob.key_id) == ("key", bob_id)
    assert remote_accounts.by_key_id(bob.key_id)["id"] == bob_id


def test_attack_same_host_actor_names_a_stored_actors_id_as_its_key(client, drain, victim_site):
    """The same claim once Bob is stored (first fetched, then in an Update the claimant signs):
    refused, Bob's id stays his and his key keeps verifying."""
    from stratus.federation import remote_accounts
    from stratus.repo import uris

    bob = victim_site.actor("bob")
    bob_id = known(bob)
    carol = victim_site.actor("carol", key_index=2)
    carol_id = known(carol)
    mallory = victim_site.actor("mallory", key_index=1)
    mallory.serve(publicKey={"id": bob.uri, "owner": mallory.uri,
                             "publicKeyPem": public_pem(key_pair(1))})
    before = state(drain)
    assert remote_accounts.resolve(mallory.uri) is None
    squatting = {**carol.document, "publicKey": {"id": bob.uri, "owner": carol.uri,
                                                  "publicKeyPem": public_pem(key_pair(2))}}
    assert post(client, drain, carol, carol.activity("Update", squatting)) == 202
    assert remote_accounts.find(carol.uri)["key_id"] == carol.key_id
    assert uris.find(bob.uri) == ("account", bob_id)
    assert remote_accounts.resolve(bob.uri)["id"] == bob_id != carol_id
    assert state(drain) == before
    assert post(client, drain, bob, bob.activity("Follow", NOBODY)) == 202


def test_a_key_at_its_own_url_serving_its_owner_is_believed(runtime, victim_site):
    """What stays possible: a key id at another URL than the actor (GoToSocial's `…/main-key`)
    whose URL serves that actor, found from the actor's side (a search) and from the key's."""
    from stratus.federation import remote_accounts

    key_id = victim_site.url("/users/erin/main-key")
    erin = victim_site.actor("erin", key_index=3, publicKey={
        "id": key_id, "owner": victim_site.url("/users/erin"),
        "publicKeyPem": public_pem(key_pair(3))})
    victim_site.serve_json("/users/erin/main-key", erin.document)
    profile = remote_accounts.resolve(erin.uri)
    assert profile is not None and profile["key_id"] == key_id
    assert remote_accounts.by_key_id(key_id)["id"] == profile["id"]


# --- gone -----------------------------------------------------------------------------------------
def test_attack_redirect_to_another_host_answering_410_keeps_the_account(
        client, drain, hostile, victim_site):
    """Bob's actor URL redirects to another host, which answers 410 Gone: that is the other
    host's word about another URL, so Bob's account is neither suspended nor purged (before,
    the refresh removed it). A 410 from Bob's own URL still removes it."""
    from stratus.federation import remote_accounts
    from stratus.repo import moderation as moderation_repo

    bob = victim_site.actor("bob")
    bob_id = known(bob)
    age(bob_id)
    hostile.serve("/gone", "{}", AP, status=410)
    victim_site.redirect("/users/bob", hostile.url("/gone"))
    kept = remote_accounts.resolve(bob.uri, refresh=True)
    assert kept is not None and kept["id"] == bob_id
    assert remote_accounts.refetch_account(bob_id)["id"] == bob_id
    assert hostile.hits("/gone") == 2
    drain()
    assert remote_accounts.find(bob.uri).get("suspended_at") is None
    assert moderation_repo.get_purge_request(bob_id) is None
    assert "suspended" not in client.get(f"/api/v1/accounts/{bob_id}").json()
    victim_site.serve("/users/bob", "{}", AP, status=410)
    assert remote_accounts.resolve(bob.uri, refresh=True) is None
    assert remote_accounts.find(bob.uri)["suspended_at"]


# --- refetch on a failed signature ----------------------------------------------------------------
def test_attack_badly_signed_posts_refetch_the_actor_once(client, drain, monkeypatch,
                                                         victim_site):
    """20 POSTs naming Bob's key but signed with another key: each is 401, and Bob's actor is
    fetched again once, not 20 times (the cool-down is a claim in the table, whichever process
    answers). A rotated key is still picked up: once the cool-down has passed, the next
    failure refetches Bob and his new key verifies."""
    from stratus.repo import base

    bob = victim_site.actor("bob")
    known(bob)
    fetched = victim_site.hits("/users/bob")
    for _ in range(20):
        assert post(client, drain, bob, bob.activity("Follow", NOBODY),
                    private_key=key_pair(1)) == 401
    assert victim_site.hits("/users/bob") - fetched == 1
    rotated = victim_site.actor("bob", key_index=2)  # the same actor, a new key pair
    assert post(client, drain, rotated, rotated.activity("Follow", NOBODY)) == 401
    assert victim_site.hits("/users/bob") - fetched == 1
    now = base.now_epoch()
    monkeypatch.setattr(base, "now_epoch", lambda: now + 301)
    assert post(client, drain, rotated, rotated.activity("Follow", NOBODY)) == 202
    assert victim_site.hits("/users/bob") - fetched == 2
