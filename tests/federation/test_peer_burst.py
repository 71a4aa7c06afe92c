"""A burst of new actors from one server (issue #22, "an inbox burst of 10,000 activities from
5,000 new actors of one server"): every new actor of a domain used to put the same
`PEERS/<domain>` item in its own transaction, so concurrent ones cancelled each other
(TransactionConflict) and a few gave up (429). Now the peer item is written outside the
transaction, once (repo/peers.remember): 50 unknown actors stored at once never conflict,
every one is stored, and the item is written once.

DynamoDB cancels concurrent transactions on one item; the emulator applies one request at a
time and never does, so the rule is applied on the client by the scale bench's recorder
(bench/scale.py) while the actors are stored from 16 threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from stratus.federation import remote_accounts, webfinger
from stratus.repo import base, keys, peers

from bench import scale as bench_scale

ACTORS = 50
PEM = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest\n-----END PUBLIC KEY-----"


@pytest.fixture(autouse=True)
def confirmed_handles(monkeypatch):
    """The servers' WebFinger confirms each of their actors' handles (these hosts are not
    reachable from the test stack; the handles are not what this file tests)."""
    monkeypatch.setattr(webfinger, "lookup", lambda username, domain: webfinger.Answer(
        (username, domain), (username, domain), f"https://{domain}/users/{username}"))


def actor(domain: str, n: int) -> dict:
    uri = f"https://{domain}/users/user{n}"
    return {"@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": uri, "type": "Person", "preferredUsername": f"user{n}", "name": f"User {n}",
            "inbox": f"{uri}/inbox", "outbox": f"{uri}/outbox",
            "followers": f"{uri}/followers", "following": f"{uri}/following",
            "endpoints": {"sharedInbox": f"https://{domain}/inbox"},
            "publicKey": {"id": f"{uri}#main-key", "owner": uri, "publicKeyPem": PEM}}


def store_at_once(runtime, domain: str, actors: int = ACTORS):
    """Store `actors` unknown actors of `domain` from 16 threads with DynamoDB's conflict rule
    applied; (the recorder, what each store returned or raised)."""
    documents = [actor(domain, n) for n in range(actors)]

    def store(document):
        try:
            return remote_accounts.store(document, fetched_from=document["id"])
        except Exception as exc:  # noqa: BLE001 - a refusal is what is counted
            return exc

    with bench_scale.recording(runtime) as recorder:
        with recorder.concurrent(), ThreadPoolExecutor(16) as pool:
            results = list(pool.map(store, documents))
    return recorder, documents, results


def test_new_actors_of_one_server_never_conflict_and_the_peer_is_written_once(
        runtime, monkeypatch):
    wrote = []
    remember = peers.remember
    monkeypatch.setattr(peers, "remember", lambda domain: wrote.append(remember(domain)))
    recorder, documents, results = store_at_once(runtime, "burst.example")
    assert recorder.conflicts() == 0, dict(recorder.errors_by_call)
    assert all(isinstance(r, dict) for r in results), [r for r in results if
                                                        not isinstance(r, dict)][:3]
    for document in documents:  # every actor stored, under its own handle
        assert remote_accounts.find(document["id"])["username"] == document["preferredUsername"]
    assert wrote.count(True) == 1  # one put of the peer item; the others found it, or lost
    assert base.get(keys.peer("burst.example")) == {**keys.peer("burst.example"),
                                                      "type": "peer", "domain": "burst.example"}
    assert "burst.example" in _peers()
    # The domain's accounts are all findable by it (what a domain block pages through).
    from stratus.repo import accounts as accounts_repo

    listed = accounts_repo.domain_account_ids("burst.example", after=None, limit=1000)
    assert sorted(listed) == sorted(r["id"] for r in results)


def test_a_later_actor_of_a_known_server_does_not_write_the_peer_again(runtime):
    remote_accounts.store(actor("known.example", 1), fetched_from=actor("known.example", 1)["id"])
    with bench_scale.recording(runtime) as recorder:
        remote_accounts.store(actor("known.example", 2),
                              fetched_from=actor("known.example", 2)["id"])
    peer = bench_scale.Partition("MainTable", "", keys.PEERS_PK)
    assert peer not in {u.partition for u in recorder.uses}  # remembered by the process


def test_the_attack_did_conflict_while_the_peer_was_in_each_transaction(runtime):
    """The same burst against the code before the fix (the bench's emulation of it): the
    attack this file guards against is real."""
    with bench_scale.peers_in_transactions():
        recorder, _, results = store_at_once(runtime, "before.example", actors=30)
    assert recorder.conflicts() > 0
    assert recorder.errors_by_call["(request) TransactWriteItems TransactionConflict"] > 0


def _peers() -> list[str]:
    from stratus.repo import instance

    return instance.list_peers()

