"""SQS and Lambda's asynchronous invocations deliver at least once: every worker, given each of
its jobs twice, has the effect once; a message that is no job is dropped at once, a job that
keeps failing goes to the DLQ after the template's maxReceiveCount (SQS) or after Lambda's
retries (EventInvokeConfig), and the rest of an SQS batch is applied once and not retried
(partial batch responses)."""

from __future__ import annotations

import json

import pytest
from stratus.jobs.messages import PollExpired
from stratus.repo import actor_keys as actor_keys_repo
from stratus.repo import effects as effects_repo
from stratus.repo import keys
from stratus.repo import statuses as statuses_repo
from stratus.repo.client import client as aws

from tests.rig import app_token, auth, deliver_twice, dispatch_only, make_app, post, queued


def test_counters_twice(client, people, runtime, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="count once")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    dispatch_only(runtime)
    # 4 sign-ups, the post, the like, and alice's and bob's first API use of the day (active
    # users, announce area)
    assert deliver_twice(runtime, "CountersQueue") == 8
    drain()
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 1
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["alice"]).json()
    assert me["statuses_count"] == 1
    assert client.get("/nodeinfo/2.0").json()["usage"]["localPosts"] == 1


def test_effects_twice(client, people, runtime, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="hello @bob #once")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["carol"])
    dispatch_only(runtime)
    # 4 sign-ups (each: staff told, a key pair made), the post, the author's directory entry
    # (last_status_at is written with the post), the like
    assert deliver_twice(runtime, "EffectsFunction:async") == 11
    drain()
    assert all(actor_keys_repo.get(a) is not None for a in ids_.values())
    assert [n["notification_type"] for n in effects_repo.notifications(ids_["bob"])] == ["mention"]
    assert [n["notification_type"] for n in effects_repo.notifications(ids_["alice"])] == \
        ["favourite"]
    assert statuses_repo.tag_status_ids("once", keys.pad(0), keys.MAX_SK) == [status["id"]]


def test_mail_twice(client, runtime, drain):
    app = make_app(client)
    response = client.post("/api/v1/accounts", headers=auth(app_token(client, app)), data={
        "username": "twice", "email": "twice@example.org", "password": "a good password",
        "agreement": "true"})
    assert response.status_code == 200
    dispatch_only(runtime)
    assert deliver_twice(runtime, "MailerFunction:async") == 1
    drain()
    assert len(runtime.mailbox.collect()) == 1


def test_timers_twice(client, people, runtime, drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="vote",
                  **{"poll[options][]": ["a", "b"], "poll[expires_in]": "300"})
    client.post(f"/api/v1/polls/{status['poll']['id']}/votes", headers=tokens["bob"],
                data={"choices[]": "1"})
    drain()
    job = PollExpired(poll_id=status["poll"]["id"]).to_dict()
    for body in (job, job):  # what the scheduler sends, twice
        aws("sqs").send_message(QueueUrl=runtime.stack.queue_urls["TimersQueue"],
                                MessageBody=json.dumps(body))
    drain()
    for name in ("alice", "bob"):
        assert [n["notification_type"] for n in effects_repo.notifications(ids_[name])] == \
            ["poll"]


def test_media_processing_twice(client, people, runtime, drain):
    import io
    import random

    from PIL import Image

    _, tokens = people
    rng = random.Random(3)
    noise = Image.frombytes("RGB", (700, 700), bytes(rng.getrandbits(8) for _ in range(700 * 700 * 3)))
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG")
    response = client.post("/api/v2/media", headers=tokens["alice"],
                           files={"file": ("noise.png", buffer.getvalue(), "image/png")})
    assert response.status_code == 202
    dispatch_only(runtime)
    assert deliver_twice(runtime, "MediaWorkerFunction:async") == 1
    drain()
    done = client.get(f"/api/v1/media/{response.json()['id']}", headers=tokens["alice"])
    assert done.status_code == 200 and done.json()["blurhash"]
    objects = aws("s3").list_objects_v2(Bucket=runtime.env["MEDIA_BUCKET"])["Contents"]
    assert len(objects) == 2  # the original and its preview, each once


def receives_of(runtime, queue: str) -> list[int]:
    receives: list[int] = []
    real = runtime.pipeline.pump_queue

    def counting(source):
        if source.queue == queue:
            receives.append(1)
        return real(source)

    runtime.pipeline.pump_queue = counting
    return receives


def dead_lettered(runtime, dlq: str) -> list[str]:
    """The jobs a DLQ holds: an SQS queue's messages as they were, an asynchronous invocation's
    failure record (Lambda's on-failure destination) by the jobs of the event it carried."""
    bodies = []
    for message in aws("sqs").receive_message(QueueUrl=runtime.stack.queue_urls[dlq],
                                              MaxNumberOfMessages=10).get("Messages", []):
        body = json.loads(message["Body"])
        if isinstance(body, dict) and "requestContext" in body:
            bodies += [json.dumps(job) for job in body["requestPayload"]["jobs"]]
        else:
            bodies.append(message["Body"])
    return bodies


@pytest.mark.parametrize("queue, dlq, body", [
    ("CountersQueue", "CountersDLQ", "not a job"),
    ("TimersQueue", "TimersDLQ", "not a job"),
    # an asynchronous invocation's event is JSON (Lambda refuses anything else)
    ("EffectsFunction:async", "EffectsDLQ", '"not a job"'),
    ("MailerFunction:async", "MailDLQ", '{"jobs": [{"job": "mystery"}]}'),
    ("MediaWorkerFunction:async", "MediaJobsDLQ", "[]")])
def test_a_message_that_is_no_job_is_dropped_at_its_first_receive(runtime, drain, queue, dlq,
                                                                  body):
    """It can never be run: logged and dropped (messages.Poison), not received again and again
    until it is dead-lettered."""
    aws("sqs").send_message(QueueUrl=runtime.stack.queue_urls[queue], MessageBody=body)
    receives = receives_of(runtime, queue)
    drain()
    assert sum(receives) == 2  # then one last receive finds the queue empty
    assert dead_lettered(runtime, dlq) == []


def test_a_job_that_keeps_failing_goes_to_the_dlq_after_max_receives(client, people, runtime,
                                                                      drain, monkeypatch):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="failing")
    drain()  # the post's own effects (the author's directory entry …) first
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    dispatch_only(runtime)
    from stratus.jobs import messages
    from stratus.workers import effects

    tries = []

    def failing(job):
        tries.append(job.name)
        raise RuntimeError("the table is busy")

    monkeypatch.setitem(effects.HANDLERS, messages.Favourited, failing)
    drain()
    retries = runtime.stack.template["Resources"]["EffectsFunction"]["Properties"][
        "EventInvokeConfig"]["MaximumRetryAttempts"]
    assert retries == 2
    assert tries == ["favourited"] * (1 + retries)
    assert [messages.decode(body).name for body in dead_lettered(runtime, "EffectsDLQ")] == \
        ["favourited"]


def test_a_job_that_keeps_failing_goes_to_the_sqs_dlq_after_max_receives(runtime, drain,
                                                                          monkeypatch):
    from stratus.jobs.messages import InboxActivity
    from stratus.workers import inbox

    def failing(job):
        raise RuntimeError("the table is busy")

    monkeypatch.setattr(inbox, "handle", failing)
    job = InboxActivity(activity={"id": "https://peer.example/1", "type": "Like"},
                        actor_id="1").to_dict()
    aws("sqs").send_message(QueueUrl=runtime.stack.queue_urls["InboxQueue"],
                            MessageBody=json.dumps(job))
    receives = receives_of(runtime, "InboxQueue")
    drain()
    max_receives = runtime.stack.template["Resources"]["InboxQueue"]["Properties"][
        "RedrivePolicy"]["maxReceiveCount"]
    assert sum(receives) - 1 == max_receives
    assert [json.loads(body) for body in dead_lettered(runtime, "InboxDLQ")] == [job]


def test_a_poison_job_does_not_hold_back_its_event(client, people, runtime, drain):
    """One job that is no job among good ones in an asynchronous invocation's event: the good
    ones are applied once, the bad one is dropped, nothing is retried or dead-lettered (an SQS
    batch reports its failures per message: tests/workers/test_async_jobs.py)."""
    ids_, tokens = people
    status = post(client, tokens["alice"], status="mixed event")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["bob"])
    dispatch_only(runtime)
    jobs = [json.loads(body) for body in queued(runtime, "EffectsFunction:async")]
    aws("sqs").send_message(QueueUrl=runtime.stack.queue_urls["EffectsFunction:async"],
                            MessageBody=json.dumps({"jobs": [{"job": "mystery"}, *jobs]}))
    applied = []
    from stratus.workers import effects

    liked = type(effects.jobs.decode(next(j for j in jobs if j["job"] == "favourited")))
    real = effects.HANDLERS[liked]
    effects.HANDLERS[liked] = lambda job: applied.append(job.name) or real(job)
    try:
        drain()
    finally:
        effects.HANDLERS[liked] = real
    assert applied == ["favourited"]  # once: the event was not retried
    assert [n["notification_type"] for n in effects_repo.notifications(ids_["alice"])] == \
        ["favourite"]
    assert dead_lettered(runtime, "EffectsDLQ") == []
