"""Jobs by asynchronous invocation (repo/queues.py): how they are sent, and how a worker runs
an invocation's jobs. The local pipeline's side of it (Lambda's retries, the on-failure record,
a restart) is in test_redelivery.py and tests/local/test_side_effects.py."""

from __future__ import annotations

import json

import pytest
from stratus.core import observability
from stratus.core.config import settings
from stratus.repo import queues


class Lambda:
    """Records each Invoke as Lambda would take it."""

    def __init__(self):
        self.invokes = []

    def invoke(self, **params):
        self.invokes.append(params)
        return {"StatusCode": 202}


@pytest.fixture
def invoked(monkeypatch):
    fake = Lambda()
    monkeypatch.setenv("EFFECTS_FUNCTION", "stack-EffectsFunction")
    monkeypatch.setenv("CARDS_FUNCTION", "stack-CardsFunction")
    monkeypatch.setattr(queues, "client", lambda service: {"lambda": fake}[service])
    return fake


def test_jobs_go_ten_to_an_invocation_in_the_order_they_were_sent(invoked):
    jobs = [{"job": "probe", "n": n} for n in range(23)]
    queues.send("effects", jobs)
    assert [(i["FunctionName"], i["InvocationType"]) for i in invoked.invokes] == \
        [("stack-EffectsFunction", "Event")] * 3
    sent = [json.loads(i["Payload"])["jobs"] for i in invoked.invokes]
    assert [len(payload) for payload in sent] == [10, 10, 3]
    assert [job for payload in sent for job in payload] == jobs


def test_an_event_stays_under_lambdas_payload_limit(invoked):
    """Ten jobs of 40 KB would be 400 KB: they go in events of at most 250,000 bytes."""
    jobs = [{"job": "probe", "n": n, "receivers": ["1" * 40_000]} for n in range(10)]
    queues.send("effects", jobs)
    sizes = [len(i["Payload"].encode()) for i in invoked.invokes]
    assert all(size <= queues.MAX_EVENT_BYTES for size in sizes) and len(sizes) == 2
    sent = [job for i in invoked.invokes for job in json.loads(i["Payload"])["jobs"]]
    assert sent == jobs


def test_a_long_kind_of_job_goes_alone(invoked):
    queues.send("cards", [{"job": "fetch_card", "n": n} for n in range(3)])
    assert [len(json.loads(i["Payload"])["jobs"]) for i in invoked.invokes] == [1, 1, 1]


def test_an_invocation_cannot_be_delayed(invoked):
    with pytest.raises(ValueError):
        queues.send("effects", [{"job": "probe"}], delays=[60])
    assert invoked.invokes == []


def test_a_kind_without_a_function_goes_by_its_queue(monkeypatch):
    monkeypatch.delenv("COUNTERS_FUNCTION", raising=False)
    assert settings().job_function("counters") is None
    monkeypatch.setenv("EFFECTS_FUNCTION", "f")
    assert settings().job_function("effects") == "f"


class Context:
    function_name, memory_limit_in_mb, aws_request_id = "EffectsFunction", 512, "r1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:EffectsFunction"

    def get_remaining_time_in_millis(self):
        return 60_000


def worker(ran):
    def record(record):
        job = json.loads(record.body)
        if job.get("job") != "probe":
            from stratus.jobs.messages import Poison

            raise Poison("no job")
        ran.append(job["n"])
        if job.get("fail"):
            raise RuntimeError("the table is busy")

    from local.lambda_runtime import isolated

    # isolated: the log keys of each call stay in it (tests/local/test_logging.py)
    return isolated(observability.sqs_batch_handler(
        record, limits=observability.JobLimits(seconds=5),
        send_again=lambda records, context: None))


def test_an_invocations_jobs_run_in_order_and_a_poison_one_is_dropped():
    ran = []
    event = {"jobs": [{"job": "probe", "n": 1}, {"job": "mystery"}, {"job": "probe", "n": 2}]}
    assert worker(ran)(event, Context()) == {"batchItemFailures": []}
    assert ran == [1, 2]


def test_a_failed_job_fails_the_invocation_after_the_others_ran():
    """Lambda then retries the whole event (the jobs are idempotent) and, after its retries,
    sends it to the on-failure destination."""
    ran = []
    event = {"jobs": [{"job": "probe", "n": 1}, {"job": "probe", "n": 2, "fail": True},
                      {"job": "probe", "n": 3}]}
    with pytest.raises(observability.JobsFailed, match="1 of 3 jobs failed"):
        worker(ran)(event, Context())
    assert ran == [1, 2, 3]


def test_an_sqs_batch_still_reports_its_failures_per_message():
    ran = []
    records = [{"messageId": str(n), "receiptHandle": "h", "body": json.dumps(job),
                "attributes": {}, "messageAttributes": {}, "md5OfBody": "",
                "eventSource": "aws:sqs", "eventSourceARN": "arn", "awsRegion": "us-east-1"}
               for n, job in enumerate([{"job": "probe", "n": 1, "fail": True},
                                        {"job": "probe", "n": 2}])]
    assert worker(ran)({"Records": records}, Context()) == \
        {"batchItemFailures": [{"itemIdentifier": "0"}]}
    assert ran == [1, 2]
