"""Bad bodies and replayed signatures (docs/security.md, "Federation threats"): a deeply nested
activity is a 400 at the inbox, not a 500; a queued message that can never be run is dropped,
not retried until it is dead-lettered; and a captured request cannot be replayed later by
giving it a fresh `created` (or `expires`) that its signature does not cover."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from tests.rig.hostile import count_state


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def raw_post(client, peer, path: str, body: bytes, **signing):
    return client.post(path, content=body, headers=peer.headers(path, body, **signing))


def like(peer) -> dict:
    return peer.activity("Like", "http://localhost:8000/users/nobody/statuses/1")


# --- at the inbox -------------------------------------------------------------------------------
def test_attack_deeply_nested_activity_is_a_400(client, drain, hostile):
    """100 000 levels (200 KB, well under the 1 MB limit): RecursionError in the parser once."""
    mallory = hostile.actor("mallory")
    activity = json.dumps(like(mallory))[:-1] + ', "tag": ' + nested(100_000) + "}"
    before = count_state()
    response = raw_post(client, mallory, "/inbox", activity.encode())
    assert response.status_code == 400, response.text
    assert "error" in response.json()
    drain()
    assert count_state() == before


def test_attack_activity_nested_past_the_depth_limit_is_a_400(client, drain, hostile):
    """40 levels parse, but every walk of the document would have to be bounded: refused."""
    mallory = hostile.actor("mallory")
    activity = json.dumps({**like(mallory), "tag": json.loads(nested(40))})
    response = raw_post(client, mallory, "/inbox", activity.encode())
    assert response.status_code == 400, response.text


def test_an_activity_of_ordinary_depth_is_taken(client, hostile):
    mallory = hostile.actor("mallory")
    activity = json.dumps({**like(mallory), "tag": json.loads(nested(20))})
    assert raw_post(client, mallory, "/inbox", activity.encode()).status_code == 202


def test_an_oversized_activity_is_a_413(client, hostile):
    mallory = hostile.actor("mallory")
    activity = json.dumps({**like(mallory), "content": "x" * (1024 * 1024)})
    assert raw_post(client, mallory, "/inbox", activity.encode()).status_code == 413


# --- in the workers -----------------------------------------------------------------------------
def sqs_event(*bodies: str) -> dict:
    return {"Records": [{
        "messageId": f"m{n}", "receiptHandle": f"r{n}", "body": body,
        "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {},
        "md5OfBody": "", "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:InboxQueue",
        "awsRegion": "us-east-1",
    } for n, body in enumerate(bodies)]}


def inbox_job(activity: str) -> str:
    return '{"job": "inbox_activity", "actor_id": "1", "owner_id": null, "activity": ' + \
        activity + "}"


def test_attack_deeply_nested_job_is_dropped_not_retried(runtime):
    """A message nobody could run (put on the queue by hand, or by a bug) is dropped at once,
    and the rest of its batch runs."""
    from local.lambda_runtime import invoke

    event = sqs_event(inbox_job(nested(100_000)), inbox_job(json.dumps(
        {"id": "https://a.example/1", "type": "Like", "actor": "https://a.example/u"})))
    assert invoke(runtime.stack, "InboxWorkerFunction", event) == {"batchItemFailures": []}


@pytest.mark.parametrize("body", ["not json", '"text"', '{"job": "nope"}', '{"job": ["x"]}',
                                  '{"job": "inbox_activity"}', inbox_job(nested(40))])
def test_a_message_that_is_no_job_is_dropped(runtime, body):
    from local.lambda_runtime import invoke

    assert invoke(runtime.stack, "InboxWorkerFunction", sqs_event(body)) == \
        {"batchItemFailures": []}


def test_a_job_that_recurses_without_end_is_dropped_and_a_failure_is_still_retried(runtime):
    from stratus.core.observability import JobLimits, sqs_batch_handler

    from local.lambda_runtime import isolated

    def record(item) -> None:
        if item.body == "deep":
            raise RecursionError("maximum recursion depth exceeded")
        raise RuntimeError("the table is busy")

    context = SimpleNamespace(function_name="Test", function_version="1", aws_request_id="r",
                              invoked_function_arn="arn:aws:lambda:us-east-1:0:function:Test",
                              memory_limit_in_mb=128, log_group_name="t", log_stream_name="t",
                              get_remaining_time_in_millis=lambda: 60_000)
    handler = sqs_batch_handler(record, limits=JobLimits(seconds=10),
                                send_again=lambda records, context: None)
    result = isolated(handler)(sqs_event("deep", "busy"), context)
    assert result == {"batchItemFailures": [{"itemIdentifier": "m1"}]}


def test_a_job_carrying_an_activity_as_deep_as_the_inbox_takes_decodes():
    from stratus.core import jsondoc
    from stratus.jobs import messages

    activity = {"id": "https://a.example/1", "type": "Note", "actor": "https://a.example/u",
                "tag": json.loads(nested(jsondoc.MAX_DEPTH - 1))}
    job = messages.InboxActivity(activity=activity, actor_id="1", owner_id=None)
    assert messages.decode(json.dumps(job.to_dict())) == job


# --- the signature window -----------------------------------------------------------------------
HOURS_AGO = 3 * 3600


def captured(peer, path: str, body: bytes) -> dict[str, str]:
    """A request as it was signed three hours ago (draft-cavage: Date, Digest, signed)."""
    return peer.headers(path, body, now=time.time() - HOURS_AGO)


def test_attack_replayed_request_with_an_unsigned_fresh_created_is_refused(client, drain,
                                                                          hostile):
    """hs2019 reads the window from `created` — only when `(created)` is signed; here the
    signature covers the three-hour-old Date, and `created=` was added afterwards."""
    mallory = hostile.actor("mallory")
    body = json.dumps(like(mallory)).encode()
    headers = captured(mallory, "/inbox", body)
    headers["Signature"] = headers["Signature"].replace('algorithm="rsa-sha256"',
                                                        'algorithm="hs2019"') + \
        f',created="{int(time.time())}"'
    response = client.post("/inbox", content=body, headers=headers)
    assert response.status_code == 401, response.text
    assert "time window" in response.json()["error"]


def test_attack_replayed_request_with_an_unsigned_later_expires_is_refused(client, hostile):
    mallory = hostile.actor("mallory")
    body = json.dumps(like(mallory)).encode()
    headers = captured(mallory, "/inbox", body)
    headers["Signature"] += f',expires="{int(time.time()) + 3600}"'
    response = client.post("/inbox", content=body, headers=headers)
    assert response.status_code == 401, response.text
    assert "time window" in response.json()["error"]


def test_a_fresh_request_is_taken(client, hostile):
    mallory = hostile.actor("mallory")
    body = json.dumps(like(mallory)).encode()
    assert raw_post(client, mallory, "/inbox", body).status_code == 202
