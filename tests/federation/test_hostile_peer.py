"""Attacks by a hostile ActivityPub server (tests/rig/hostile.py's HostilePeer), one test each:
replays, activities out of order, bodies too large or too deep, a drip-fed object, arrays of
10,000 items, a reply chain of 50, a storm of 500 mentions. Each asserts what the attack must
not change (the table's items counted by type, or the exact state that matters) and that the
inbox worker stayed within its budget: the wall time of `drain()` around the attack below the
inbox worker's deadline (docs/security.md, "Federation threats")."""

from __future__ import annotations

import json
import time
from collections import Counter
from contextlib import contextmanager

import pytest

from tests.rig import post
from tests.rig.hostile import count_state
from tests.rig.peers import PUBLIC

ALICE = "http://localhost:8000/users/alice"
MARGIN = 5.0  # seconds of slack on a deadline: the drain's own rounds, a loaded machine
# The bounds the attacks below must meet (written out: raising the code's constant must fail
# a test). Mastodon's, where it has one, in docs/security.md's threat table.
REPLY_DEPTH = 3  # parents of a remote status fetched by one job
RESOLVED_MENTIONS = 5  # unknown `@user@host` of a local post looked up by WebFinger
KEPT_TAGS = 100  # tags of a remote status read (hashtags, mentions, emoji)
KEPT_ATTACHMENTS = 16  # attachments of a remote status kept (Mastodon: 16)


@pytest.fixture
def budget(runtime) -> float:
    """The seconds one inbox job may take: the inbox worker's JobLimits (its requests' budget
    and the margin kept for its writes), below the function's Lambda timeout."""
    limits = runtime.stack.handler("InboxWorkerFunction").limits
    return limits.seconds + limits.margin


def function_timeout(logical_id: str) -> float:
    """A function's Lambda timeout (template.yaml): an API request is answered within it."""
    from local import cfn

    template = cfn.load_template()
    return float(template["Resources"][logical_id]["Properties"].get(
        "Timeout", template["Globals"]["Function"]["Timeout"]))


@contextmanager
def timed():
    """`with timed() as took:` … `took()` is the seconds the block ran."""
    started = time.monotonic()
    ended: list[float] = []
    try:
        yield lambda: (ended[0] if ended else time.monotonic()) - started
    finally:
        ended.append(time.monotonic())


def drain_within_budget(drain, budget: float) -> float:
    """Run the queued jobs (the attack's one or few), asserting they ended within one job's
    budget."""
    with timed() as took:
        drain()
    elapsed = took()
    assert elapsed < budget, f"the inbox jobs took {elapsed:.1f} s, over {budget} s"
    return elapsed


@pytest.fixture
def failed_jobs(monkeypatch):
    """Every job the pipeline's workers failed (raised, or reported as a batch item failure):
    a job that can never succeed must be dropped, not failed and retried."""
    import local.pipeline as pipeline

    failures: list[tuple[str, str]] = []
    real = pipeline.invoke

    def counting(stack, function, event, *args, **kwargs):
        try:
            result = real(stack, function, event, *args, **kwargs)
        except Exception as exc:
            failures.append((function, repr(exc)[:200]))
            raise
        if isinstance(result, dict):
            failures.extend((function, f["itemIdentifier"])
                            for f in result.get("batchItemFailures") or [])
        return result

    monkeypatch.setattr(pipeline, "invoke", counting)
    return failures


@pytest.fixture
def dynamodb_calls():
    """The names of the DynamoDB calls made while the returned list is open."""
    from stratus.repo.client import dynamodb

    calls: list[str] = []
    client = dynamodb()
    client.meta.events.register("before-call.dynamodb",
                                lambda model, **_: calls.append(model.name),
                                unique_id="hostile-peer-count")
    yield calls
    client.meta.events.unregister("before-call.dynamodb", unique_id="hostile-peer-count")


@pytest.fixture
def mallory(hostile):
    return hostile.actor("mallory")


@pytest.fixture
def known_mallory(client, drain, hostile, mallory, alice):
    """Mallory, already stored here (an activity of hers taken and dropped), and alice's
    account settled, so that what an attack changes is neither being stored."""
    accepted(hostile.post_as(client, mallory, mallory.activity(
        "Like", "http://localhost:8000/nothing")))
    drain()
    return mallory


def state() -> dict[str, int]:
    """count_state() without the once-claims of activities taken (bookkeeping, not state)."""
    return {kind: n for kind, n in count_state().items() if kind != "dedupe"}


def queued(queue: str = "inbox") -> int:
    from stratus.core.config import settings
    from stratus.repo.client import client

    attributes = client("sqs").get_queue_attributes(
        QueueUrl=settings().queue_url(queue), AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
    return sum(int(v) for v in attributes.values())


def status_of(client, headers, status_id: str) -> dict:
    response = client.get(f"/api/v1/statuses/{status_id}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def notifications(client, headers) -> list[dict]:
    response = client.get("/api/v1/notifications", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def accepted(response) -> None:
    assert response.status_code == 202, response.text


def remote_status(uri: str) -> dict | None:
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    found = uris.find(uri)
    return statuses_repo.get(found[1]) if found and found[0] == "status" else None


# --- replays ---------------------------------------------------------------------------------
def test_attack_replayed_activity_has_one_effect(client, drain, budget, hostile,
                                                 mallory, alice):
    """The same signed POST twice, the same activity re-signed later, and a captured Like
    replayed after its Undo: one effect each (the worker's once-claim on actor + activity id,
    kept 14 days, beyond any signature's validity)."""
    headers = alice[1]
    status = post(client, headers, status="like me once")
    drain()
    like = mallory.activity("Like", status["uri"])
    body = json.dumps(like).encode()
    signed = mallory.headers("/inbox", body)
    accepted(client.post("/inbox", content=body, headers=signed))
    drain_within_budget(drain, budget)
    before = count_state()
    assert status_of(client, headers, status["id"])["favourites_count"] == 1

    accepted(client.post("/inbox", content=body, headers=signed))  # the same bytes again
    accepted(hostile.post_as(client, mallory, like, now=time.time() + 300))  # re-signed later
    drain_within_budget(drain, budget)
    assert count_state() == before
    assert status_of(client, headers, status["id"])["favourites_count"] == 1
    assert [n["type"] for n in notifications(client, headers)] == ["favourite"]

    # A Create replayed: one status.
    note = mallory.note("posted once")
    create = mallory.activity("Create", note)
    accepted(hostile.post_as(client, mallory, create))
    drain_within_budget(drain, budget)
    stored = count_state()
    accepted(hostile.post_as(client, mallory, create, now=time.time() + 300))
    drain_within_budget(drain, budget)
    assert count_state() == stored

    # The captured Like, replayed after the Undo that took it back, does not bring it back.
    accepted(hostile.post_as(client, mallory, mallory.activity("Undo", like)))
    drain_within_budget(drain, budget)
    assert status_of(client, headers, status["id"])["favourites_count"] == 0
    undone = count_state()
    accepted(client.post("/inbox", content=body, headers=signed))
    drain_within_budget(drain, budget)
    assert count_state() == undone
    assert status_of(client, headers, status["id"])["favourites_count"] == 0


# --- out of order ----------------------------------------------------------------------------
def test_attack_reordered_activities(client, drain, budget, hostile, mallory, alice):
    """Undo before its Like or Announce, Delete before its Create, an Update older than the
    version stored: what was undone or deleted does not come back, no count goes below zero, no
    older version replaces a newer one (Mastodon: `delete_later!`/`delete_arrived_first?` for
    the Undo of a Like or Announce it does not have, a Tombstone for the Delete of a status it
    does not have, ProcessStatusUpdateService ignoring an Update older than the stored edit)."""
    headers = alice[1]
    status = post(client, headers, status="like me in order")
    drain()
    before = count_state()
    wrong: list[str] = []

    # Undo(Like) first: nothing to undo, and no count below zero; then the Like it undid.
    like = mallory.activity("Like", status["uri"])
    accepted(hostile.post_as(client, mallory, mallory.activity("Undo", like)))
    drain_within_budget(drain, budget)
    assert status_of(client, headers, status["id"])["favourites_count"] == 0
    accepted(hostile.post_as(client, mallory, like))
    drain_within_budget(drain, budget)
    if status_of(client, headers, status["id"])["favourites_count"] != 0 or \
            notifications(client, headers):
        wrong.append("a Like undone before it arrived was counted")

    # Undo(Announce) first, then the Announce.
    announce = mallory.activity("Announce", status["uri"], to=[PUBLIC])
    accepted(hostile.post_as(client, mallory, mallory.activity("Undo", announce)))
    drain_within_budget(drain, budget)
    assert status_of(client, headers, status["id"])["reblogs_count"] == 0
    accepted(hostile.post_as(client, mallory, announce))
    drain_within_budget(drain, budget)
    if status_of(client, headers, status["id"])["reblogs_count"] != 0:
        wrong.append("an Announce undone before it arrived was counted")

    # Delete first, then the Create of the same note: no resurrection.
    note = mallory.note("deleted before it arrived")
    accepted(hostile.post_as(client, mallory, mallory.activity(
        "Delete", {"id": note["id"], "type": "Tombstone"})))
    drain_within_budget(drain, budget)
    accepted(hostile.post_as(client, mallory, mallory.activity("Create", note)))
    drain_within_budget(drain, budget)
    if remote_status(note["id"]) is not None:
        wrong.append("a status deleted before it arrived was stored")
    kinds = ("status", "fav", "reblog", "notification")
    if {k: v for k, v in count_state().items() if k in kinds} != \
            {k: v for k, v in before.items() if k in kinds}:
        wrong.append(f"items changed: {before} -> {count_state()}")

    # An Update older than the version stored does not replace it.
    edited = mallory.note("version 1", updated="2026-01-01T00:00:00Z")
    accepted(hostile.post_as(client, mallory, mallory.activity("Create", edited)))
    drain_within_budget(drain, budget)
    newer = {**edited, "content": "version 3", "updated": "2026-03-01T00:00:00Z"}
    accepted(hostile.post_as(client, mallory, mallory.activity("Update", newer)))
    drain_within_budget(drain, budget)
    older = {**edited, "content": "version 2", "updated": "2026-02-01T00:00:00Z"}
    accepted(hostile.post_as(client, mallory, mallory.activity("Update", older)))
    drain_within_budget(drain, budget)
    kept = remote_status(edited["id"])
    assert kept is not None
    if "version 3" not in kept["content"] or kept["remote_updated_at"] != newer["updated"]:
        wrong.append(f"an older Update replaced a newer version: {kept['content']!r}")
    assert wrong == [], wrong


# --- bodies ----------------------------------------------------------------------------------
def test_attack_oversized_body(client, drain, budget, hostile, known_mallory):
    """Over 1 MiB, signed or not, at the shared and a user's inbox: 413, nothing queued, nothing
    stored."""
    mallory = known_mallory
    before = count_state()
    activity = mallory.activity("Create", mallory.note("x" * (1024 * 1024 + 1)))
    for path in ("/inbox", "/users/alice/inbox"):
        response = hostile.post_as(client, mallory, activity, path)
        assert response.status_code == 413, response.text
        assert "error" in response.json()
    assert queued() == 0
    drain_within_budget(drain, budget)
    assert count_state() == before


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_attack_deeply_nested_body(client, drain, budget, hostile,
                                   known_mallory, failed_jobs):
    """10,000 levels of nesting in a signed POST: 400 (not a 500 from a RecursionError),
    nothing queued. The same inside a fetched document (an Announce of an object that nests
    10,000 deep): the job ends, nothing stored, not failed and retried."""
    mallory = known_mallory
    before = state()
    for depth in (10_000, 200):
        body = ('{"@context": "https://www.w3.org/ns/activitystreams", "id": "%s", '
                '"type": "Create", "actor": "%s", "object": %s}' % (
                    mallory.new_id("Create"), mallory.uri, _nested(depth))).encode()
        response = client.post("/inbox", content=body, headers=mallory.headers("/inbox", body))
        assert response.status_code == 400, (depth, response.status_code, response.text[:200])
        assert "error" in response.json()
    assert queued() == 0

    note = mallory.note("deep")
    deep = json.dumps(note)[:-1] + ', "tag": ' + _nested(10_000) + "}"
    hostile.serve(note["id"].removeprefix(hostile.url("")), deep, "application/activity+json")
    accepted(hostile.post_as(client, mallory, mallory.activity("Announce", note["id"],
                                                               to=[PUBLIC])))
    drain_within_budget(drain, budget)
    assert remote_status(note["id"]) is None
    assert failed_jobs == []
    assert state() == before


# --- slow peers ------------------------------------------------------------------------------
def test_attack_drip_fed_object_fetch(client, drain, budget, hostile,
                                      known_mallory):
    """An Announce whose object is served one byte every 0.1 s (30 s in all): the fetch ends at
    its deadline (federation.http.FETCH_SECONDS), the inbox job with it, nothing is stored."""
    from stratus.federation import http

    mallory = known_mallory
    note = mallory.note("slowly")
    body = json.dumps(note).encode()
    every = 30.0 / len(body)
    hostile.drip(note["id"].removeprefix(hostile.url("")), body, every=every)
    accepted(hostile.post_as(client, mallory, mallory.activity("Announce", note["id"],
                                                               to=[PUBLIC])))
    before = state()
    elapsed = drain_within_budget(drain, budget)
    assert elapsed < http.FETCH_SECONDS + MARGIN, f"a drip-fed fetch held the job {elapsed:.1f} s"
    assert remote_status(note["id"]) is None
    assert state() == before


# --- sizes -----------------------------------------------------------------------------------
def test_attack_huge_collection(client, drain, budget, hostile, mallory,
                                alice, dynamodb_calls):
    """No code here fetches or walks a remote collection (Move moves local followers, in batches
    of 100; featured, outbox, replies and followers collections are never read), so the attack is
    a Create whose `tag`, `attachment`, `to`, `cc` and `inReplyTo` hold 10,000 items each: what
    is kept is bounded (100 tags, 16 attachments, one parent), nothing is fetched, and the
    job's reads do not grow with the arrays."""

    drain()

    def create(size: int, number: int) -> dict:
        """A direct note (its audience is looked up for silent mentions): `size` items in `to`
        and `cc`, and in `tag`, `attachment` and `inReplyTo` past the 150 hashtags, the 20
        attachments and the one parent they hold — filler, small enough for the whole to fit
        the queue's message."""
        return mallory.note(
            f"huge {number}", to=[f"a{i}" for i in range(size)],
            cc=[f"b{i}" for i in range(size)],
            tag=([{"type": "Mention", "href": ALICE}]
                 + [{"type": "Hashtag", "name": f"#t{i}"} for i in range(150)]
                 + [0] * max(size - 151, 0)),
            attachment=([{"type": "Document", "mediaType": "image/png", "url": f"/{i}.png"}
                         for i in range(20)] + [0] * max(size - 20, 0)),
            inReplyTo=[hostile.url("/p/0")] + [0] * (size - 1))

    def deliver(note: dict) -> list[str]:
        activity = mallory.activity("Create", note)
        body = json.dumps(activity, separators=(",", ":")).encode()
        response = hostile.post_as(client, mallory, activity, body=body)
        assert response.status_code != 413, "the attack must pass the inbox's size limits"
        accepted(response)
        dynamodb_calls.clear()
        drain_within_budget(drain, budget)
        return list(dynamodb_calls)

    deliver(create(10, 1))  # its hashtags are new: the first use of each costs more
    small_calls = deliver(create(10, 2))
    large = create(10_000, 3)
    seen = len(hostile.requests)
    large_calls = deliver(large)

    kept = remote_status(large["id"])
    assert kept is not None
    assert len(kept["tags"]) <= KEPT_TAGS
    assert len(kept.get("media_ids") or []) <= KEPT_ATTACHMENTS
    assert kept["in_reply_to_uri"] == hostile.url("/p/0")
    # One parent tried (it is not served), none of the 9,999 others.
    parents = [path for path, _ in hostile.requests[seen:] if path.startswith("/p/")]
    assert parents == ["/p/0"], parents
    assert kept["mention_ids"] == [alice[0]]  # only the local account tagged
    # The same note with 10,000 items costs the job about what it costs with 10: its work
    # does not grow with the arrays (a batch read of 100 keys per 100 audience entries would).
    assert len(large_calls) <= len(small_calls) + 20, (Counter(small_calls), Counter(large_calls))


def test_attack_reply_chain_of_50(client, drain, budget, hostile, mallory, alice):
    """A Create replying to a chain of 50 parents, each served by the peer: the worker fetches
    at most REPLY_DEPTH of them (Mastodon fetches a thread's parents lazily, one job each),
    within its budget; the rest of the chain is left alone."""

    drain()
    notes = []
    for number in range(50):
        note = mallory.note(f"level {number}",
                            inReplyTo=notes[-1]["id"] if notes else None)
        hostile.serve_json(note["id"].removeprefix(hostile.url("")), note)
        notes.append(note)
    before = len(hostile.requests)
    accepted(hostile.post_as(client, mallory, mallory.activity("Create", notes[-1])))
    drain_within_budget(drain, budget)
    fetches = [path for path, _ in hostile.requests[before:] if "/notes/" in path]
    assert len(fetches) <= REPLY_DEPTH, fetches
    stored = [n for n in notes if remote_status(n["id"]) is not None]
    assert len(stored) <= REPLY_DEPTH + 1
    assert remote_status(notes[-1]["id"]) is not None


def test_attack_mention_storm_500(client, drain, budget, hostile, alice):
    """A local post naming 500 `@user@host` addresses on the peer: over the 500-character limit
    (422, nothing looked up); as many as fit (100) are looked up at most RESOLVED_MENTIONS
    times by WebFinger. An inbound Create with 500 Mention tags: only the local accounts among
    them are mentioned and notified, once each; none of the remote ones is fetched. The post is
    answered within its function's timeout, the inbound job within the worker's budget."""
    from tests.federation import peers as documents
    from tests.rig import make_user

    headers = alice[1]
    for number in range(500):
        documents.serve_webfinger(hostile, f"u{number}")
        hostile.actor(f"u{number}")
    host = hostile.host
    before = len(hostile.requests)
    response = client.post("/api/v1/statuses", headers=headers, data={
        "status": " ".join(f"@u{n}@{host}" for n in range(500))})
    assert response.status_code == 422, response.text
    assert hostile.requests[before:] == []

    with timed() as took:
        response = client.post("/api/v1/statuses", headers=headers, data={
            "status": " ".join(f"@u{n}@{host}" for n in range(100))})
    assert response.status_code == 200, response.text
    lookups = [p for p, _ in hostile.requests[before:] if p.startswith("/.well-known/webfinger")]
    assert len(lookups) <= RESOLVED_MENTIONS, len(lookups)
    assert len(hostile.requests[before:]) <= 3 * RESOLVED_MENTIONS
    assert took() < function_timeout("StatusesFunction"), "the post outlived its function"
    drain_within_budget(drain, budget)

    # Inbound: 500 Mention tags, two of them local accounts (alice twice).
    make_user("carol")
    mallory = hostile.actor("mallory")
    tags = [{"type": "Mention", "href": ALICE}, {"type": "Mention", "href": ALICE},
            {"type": "Mention", "href": "http://localhost:8000/users/carol"}]
    tags += [{"type": "Mention", "href": hostile.url(f"/users/x{n}")} for n in range(497)]
    note = mallory.note("a storm", tag=tags)
    seen = len(hostile.requests)
    accepted(hostile.post_as(client, mallory, mallory.activity("Create", note)))
    drain_within_budget(drain, budget)
    assert [p for p, _ in hostile.requests[seen:] if "/users/x" in p] == []
    kept = remote_status(note["id"])
    assert kept is not None
    assert sorted(kept["mention_ids"]) == sorted([alice[0], _account_id("carol")])
    assert [n["type"] for n in notifications(client, headers)].count("mention") == 1


def _account_id(username: str) -> str:
    from stratus.repo import accounts as accounts_repo

    return accounts_repo.id_by_handle(username)
