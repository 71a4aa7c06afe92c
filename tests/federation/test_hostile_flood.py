"""Floods of slow work cannot take the queues from everyone else (docs/security.md, "Federation
threats"): a record a batch had no time to start is sent again, not counted as a try, so
innocent jobs behind slow ones never reach a dead-letter queue; every worker has a budget
below its timeout, the timers worker too; each remote host has a share of the inbox worker's
time, past which its POSTs are answered 429, and a batch takes its hosts in turn."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from stratus.core.observability import JobLimits

from tests.rig.peers import PUBLIC


def accepted(response) -> None:
    assert response.status_code == 202, response.text


def remote_status(uri: str) -> dict | None:
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    found = uris.find(uri)
    return statuses_repo.get(found[1]) if found and found[0] == "status" else None


def dead_lettered(runtime, dlq: str) -> list[dict]:
    from stratus.repo.client import client

    bodies: list[dict] = []
    while True:
        got = client("sqs").receive_message(QueueUrl=runtime.stack.queue_urls[dlq],
                                            MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return bodies
        bodies += [json.loads(m["Body"]) for m in got]


def max_receives(runtime, queue: str, dlq: str, count: int) -> None:
    """Give a queue another maxReceiveCount (the emulator moves a message to its DLQ past it)."""
    from stratus.repo.client import client

    arn = client("sqs").get_queue_attributes(QueueUrl=runtime.stack.queue_urls[dlq],
                                             AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    client("sqs").set_queue_attributes(QueueUrl=runtime.stack.queue_urls[queue], Attributes={
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": str(count)})})


def short_batches(runtime, monkeypatch, logical_id: str = "InboxWorkerFunction") -> None:
    """The inbox worker with 3 s an invocation and 0.5 s a job (1.5 s kept): a batch has the
    time for two slow jobs, as the real one (60 s, 25 s + 5 s) has for two."""
    monkeypatch.setattr(runtime.stack.handler(logical_id), "limits",
                        JobLimits(seconds=0.5, requests=16, margin=1.5))
    monkeypatch.setattr(runtime.stack.functions[logical_id], "timeout", 3)


@pytest.fixture
def invocations(monkeypatch):
    """Every invocation the event sources made: (function, seconds, what failed: the error
    raised — a timeout too — or the batch items reported failed)."""
    import local.pipeline as pipeline

    made: list[tuple[str, float, list[str]]] = []
    real = pipeline.invoke

    def recording(stack, function, event, *args, **kwargs):
        started = time.monotonic()
        try:
            result = real(stack, function, event, *args, **kwargs)
        except Exception as exc:
            made.append((function, time.monotonic() - started, [repr(exc)[:200]]))
            raise
        failed = [f["itemIdentifier"] for f in (result or {}).get("batchItemFailures") or []] \
            if isinstance(result, dict) else []
        made.append((function, time.monotonic() - started, failed))
        return result

    monkeypatch.setattr(pipeline, "invoke", recording)
    return made


def slow_announce(hostile, actor, number: int) -> dict:
    """An Announce of a note the host serves one byte every 0.2 s (the fetch takes the job's
    whole budget, then the boost is dropped)."""
    note = actor.note(f"slow {number}")
    hostile.drip(note["id"].removeprefix(hostile.url("")), json.dumps(note), every=0.2)
    return actor.activity("Announce", note["id"], to=[PUBLIC])


def slow_fetches(hostile) -> list[str]:
    return [path for path, _ in hostile.requests if "/notes/" in path]


# --- unrun records are not failed tries --------------------------------------------------------
def test_attack_a_flood_of_slow_activities_does_not_dead_letter_the_innocent_ones(
        client, runtime, drain, hostile, monkeypatch):
    """One account of a server sends eight Announces of objects it serves a byte at a time, two
    other accounts of that server ordinary posts behind them: ten records, one batch, the time
    for two slow jobs in it. The rest of each batch is sent again unrun and not counted, so
    every post is stored and nothing reaches the dead-letter queue, and each slow activity is
    run once. (SQS keeps no order: a record may sit in many batches before its turn. Here,
    in order, the posts wait four batches, so the queue is given a maxReceiveCount of 3: with
    unrun records counted, they were dead-lettered.)"""
    flooder = hostile.actor("mallory")
    neighbours = [hostile.actor(f"n{number}") for number in range(2)]
    short_batches(runtime, monkeypatch)
    max_receives(runtime, "InboxQueue", "InboxDLQ", 3)
    for number in range(8):
        accepted(hostile.post_as(client, flooder, slow_announce(hostile, flooder, number)))
    posts = [neighbour.note("innocent") for neighbour in neighbours]
    for neighbour, note in zip(neighbours, posts, strict=True):
        accepted(hostile.post_as(client, neighbour, neighbour.activity("Create", note)))
    drain()
    assert all(remote_status(note["id"]) is not None for note in posts)
    assert dead_lettered(runtime, "InboxDLQ") == []
    fetched = slow_fetches(hostile)  # each slow activity ran once (its budget may end sooner)
    assert len(set(fetched)) == len(fetched) <= 8


def test_jobs_of_an_asynchronous_event_it_had_no_time_for_come_as_a_new_event(
        client, people, runtime, drain, monkeypatch):
    """The same for the workers invoked asynchronously: the jobs an invocation could not start
    are invoked again as a new event (Lambda's retries unspent), and every job runs once."""
    from stratus.jobs import messages
    from stratus.workers import effects

    ids_, tokens = people
    logical = "EffectsFunction"
    handler = runtime.stack.handler(logical)
    monkeypatch.setattr(handler, "limits", JobLimits(seconds=0.5, margin=1.0))
    monkeypatch.setattr(runtime.stack.functions[logical], "timeout", 2)
    real = effects.HANDLERS[messages.Favourited]
    ran: list[str] = []

    def slow(job):
        time.sleep(0.3)
        ran.append(job.status_id)
        return real(job)

    monkeypatch.setitem(effects.HANDLERS, messages.Favourited, slow)
    status = client.post("/api/v1/statuses", headers=tokens["alice"],
                         data={"status": "like it"}).json()
    drain()
    for name in ("bob", "carol", "dave"):
        client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens[name])
    drain()
    assert ran == [status["id"]] * 3
    assert dead_lettered(runtime, "EffectsDLQ") == []
    notes = client.get("/api/v1/notifications", headers=tokens["alice"]).json()
    assert sorted(n["account"]["id"] for n in notes if n["type"] == "favourite") == \
        sorted(ids_[name] for name in ("bob", "carol", "dave"))


# --- the timers worker ------------------------------------------------------------------------
def test_attack_a_scheduled_post_naming_slow_hosts_does_not_dead_letter_its_batch(
        client, people, runtime, drain, hostile, invocations):
    """A scheduled post naming four accounts of a host that drips its WebFinger answers (each
    lookup ends at its 10 s deadline: 40 s, past the timers worker's 30 s timeout), published in
    one batch with another user's scheduled post and a poll's closing. Without a budget the
    invocation outlived its timeout: Lambda stops it there, and the whole batch comes back,
    five times, then goes to the dead-letter queue (in-process the invocation cannot be stopped
    halfway: the emulator fails it once it returns). With one, the slow post is published with
    its mentions as plain text, and the other jobs of its batch are done in the same
    invocation, well within the timeout."""
    from stratus.core import clock
    from stratus.jobs.messages import PollExpired, PublishScheduled
    from stratus.repo import statuses as statuses_repo
    from stratus.repo.client import client as aws

    ids_, tokens = people
    names = [f"slow{number}" for number in range(4)]
    for name in names:
        hostile.drip(f"/.well-known/webfinger?resource=acct:{name}@{hostile.host}",
                     json.dumps({"subject": f"acct:{name}@{hostile.host}", "links": []}),
                     every=0.5, content_type="application/jrd+json")
    when = clock.iso(clock.now() + timedelta(minutes=10))

    def schedule(token, text) -> str:
        response = client.post("/api/v1/statuses", headers=token,
                               data={"status": text, "scheduled_at": when})
        assert response.status_code == 200, response.text
        return response.json()["id"]

    slow = schedule(tokens["alice"], " ".join(f"@{n}@{hostile.host}" for n in names) + " hi")
    other = schedule(tokens["bob"], "on time")
    poll = client.post("/api/v1/statuses", headers=tokens["carol"], data={
        "status": "vote", "poll[options][]": ["a", "b"], "poll[expires_in]": "300"}).json()
    drain()
    jobs = [PublishScheduled(scheduled_status_id=slow),
            PublishScheduled(scheduled_status_id=other), PollExpired(poll_id=poll["poll"]["id"])]
    aws("sqs").send_message_batch(QueueUrl=runtime.stack.queue_urls["TimersQueue"], Entries=[
        {"Id": str(n), "MessageBody": json.dumps(job.to_dict())} for n, job in enumerate(jobs)])
    del invocations[:]
    drain()
    timers = [(seconds, failed) for function, seconds, failed in invocations
              if function == "TimersFunction"]
    timeout = runtime.stack.functions["TimersFunction"].timeout
    assert [failed for _, failed in timers] == [[]], timers  # one batch, nothing failed
    assert timers[0][0] < timeout
    assert dead_lettered(runtime, "TimersDLQ") == []
    alices = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses",
                        headers=tokens["alice"]).json()
    bobs = client.get(f"/api/v1/accounts/{ids_['bob']}/statuses", headers=tokens["bob"]).json()
    assert [s["mentions"] for s in alices] == [[]]  # unanswered lookups: plain text, as Mastodon
    assert f"@slow0@{hostile.host}" in alices[0]["content"]
    assert ["on time" in s["content"] for s in bobs] == [True]
    assert statuses_repo.get_poll(poll["poll"]["id"]).get("closed")
    for name in ("alice", "bob"):
        assert client.get("/api/v1/scheduled_statuses", headers=tokens[name]).json() == []


# --- each host's share of the inbox -----------------------------------------------------------
@pytest.fixture
def share(monkeypatch):
    """A share of 1 s a window, 0.25 s an activity: four activities of a host, then 429s."""
    from stratus.federation.inbox import quota

    monkeypatch.setattr(quota, "SHARE", 1.0)
    monkeypatch.setattr(quota, "COST_PER_ACTIVITY", 0.25)
    return quota


def test_attack_one_host_flooding_the_inbox_is_answered_429_while_another_gets_through(
        client, runtime, drain, hostile, victim_site, share, monkeypatch):
    """A host posts twenty slow Announces: its first four are queued, the rest answered 429
    with a Retry-After within the window (nothing queued for them); another host's post is
    accepted meanwhile and stored in the first round of the worker, while the slow ones take
    their budget."""
    flooder = hostile.actor("mallory")
    other = victim_site.actor("olive")
    short_batches(runtime, monkeypatch)
    answers = [hostile.post_as(client, flooder, slow_announce(hostile, flooder, number))
               for number in range(20)]
    assert [r.status_code for r in answers] == [202] * 4 + [429] * 16
    refused = answers[-1]
    assert refused.json() == {"error": "Too many requests"}
    assert 1 <= int(refused.headers["Retry-After"]) <= share.WINDOW
    note = other.note("still here")
    accepted(victim_site.post_as(client, other, other.activity("Create", note)))
    rounds = 0
    while remote_status(note["id"]) is None and rounds < 10:
        runtime.pipeline.pump(schedules=False)
        rounds += 1
    assert remote_status(note["id"]) is not None
    assert rounds <= 3  # the stream round, then the first batch of the worker
    drain()
    assert len(slow_fetches(hostile)) <= 4  # what was refused was never run


def test_a_host_whose_activities_hold_the_worker_pays_for_the_time(
        client, runtime, drain, hostile, victim_site, share, monkeypatch):
    """Cheap to queue, slow to run: after the worker has spent its time on the host's three
    slow activities (each charged the half second it took), the host's next POST is 429;
    another host's is still accepted."""
    monkeypatch.setattr(share, "COST_PER_ACTIVITY", 0.01)
    monkeypatch.setattr(share, "CHARGED_FROM", 0.3)
    flooder = hostile.actor("mallory")
    other = victim_site.actor("olive")
    short_batches(runtime, monkeypatch)
    for number in range(3):
        accepted(hostile.post_as(client, flooder, slow_announce(hostile, flooder, number)))
    drain()
    late = hostile.post_as(client, flooder, flooder.activity("Like", "http://localhost:8000/x"))
    assert late.status_code == 429, late.text
    accepted(victim_site.post_as(client, other, other.activity("Like", "http://localhost:8000/x")))


def test_a_batch_takes_its_hosts_in_turn(client, runtime, drain, hostile, victim_site,
                                         monkeypatch):
    """Nine slow activities of one host, then another host's post, in one batch with the time
    for two jobs: the other host's post is one of the two, not sent again behind the nine."""
    flooder = hostile.actor("mallory")
    other = victim_site.actor("olive")
    short_batches(runtime, monkeypatch)
    for number in range(9):
        accepted(hostile.post_as(client, flooder, slow_announce(hostile, flooder, number)))
    note = other.note("my turn")
    accepted(victim_site.post_as(client, other, other.activity("Create", note)))
    runtime.pipeline.pump(schedules=False)  # the inbox queue's first batch of ten
    assert remote_status(note["id"]) is not None
    assert len(slow_fetches(hostile)) <= 2  # the time for two slow jobs, besides the post
    drain()
    fetched = slow_fetches(hostile)
    assert len(set(fetched)) == len(fetched) <= 9
