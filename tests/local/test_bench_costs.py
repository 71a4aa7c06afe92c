"""`make bench`'s cost model (local/bench_costs.py) on a few requests: every invocation behind a
request is timed and charged, and the figures add up to dollars per million requests."""

from __future__ import annotations

import pytest

from local import bench_costs


@pytest.fixture
def community(runtime):
    return bench_costs.Community(runtime, size=3)


def test_a_few_requests_are_timed_charged_and_priced(runtime, community):
    order = ["GET /api/v1/statuses/:id", "POST /api/v1/statuses/:id/favourite",
             "POST /api/v1/statuses", "POST /api/v1/accounts (sign-up)"]
    result = bench_costs.run_mix(runtime, community, rounds=1, order=order, warm=False)
    recorder = result.recorder
    assert {label: dict(codes) for label, codes in result.statuses.items()} == \
        {label: {200: 1} for label in order}
    assert recorder.api_requests == 4
    functions = {i.function for i in recorder.invocations}
    # The HTTP functions, and behind them the workers: the stream's dispatch, the counters
    # (the like, the post), the mailer (the sign-up's confirmation).
    assert {"StatusesFunction", "AccountsFunction", "DispatchFunction", "CountersFunction",
            "MailerFunction"} <= functions
    http = [i for i in recorder.invocations if i.label]
    assert sorted(i.label for i in http) == sorted(order)
    assert all(i.wall > 0 and i.calls and i.dynamodb_calls for i in http)
    assert all(i.memory_mb == 512 for i in recorder.invocations)  # the template's Globals
    like = next(i for i in http if i.label == order[1])
    assert like.dynamodb.write >= 1 and like.dynamodb.read > 0
    assert recorder.emails == 1
    assert recorder.sqs_billed >= 2  # dispatch's sends, the poller's receives and deletes
    assert recorder.outside.read == recorder.outside.write == 0  # all of it is attributed

    costs = bench_costs.costs(recorder, lambda i: i.measured)
    per_million = costs.per_million()
    assert per_million["API Gateway (HTTP API)"] == pytest.approx(1.00)
    assert per_million["Lambda requests"] == pytest.approx(
        len(recorder.invocations) / 4 * 0.20)
    assert per_million["SES, S3, Secrets Manager"] >= 0.10 / 1000 / 4 * 1e6  # one e-mail
    assert per_million["DynamoDB reads"] > 0 and per_million["DynamoDB writes"] > 0
    assert per_million["Lambda compute"] > 0
    # Corrected durations swap emulator time for typical latency; CPU scaling only adds.
    for i in recorder.invocations:
        assert i.corrected(cpu_scaled=True) >= i.corrected() >= 0
    report = bench_costs.report_mix(result)
    assert set(report["per_million"]) == {"measured", "corrected", "corrected, CPU-scaled"}


def test_the_recorder_lets_go_of_the_stack(runtime, community):
    bench_costs.run_mix(runtime, community, rounds=1, order=["GET /api/v2/instance"],
                        warm=False)
    assert "handler" not in vars(runtime.stack) and "pump_queue" not in vars(runtime.pipeline)
    assert bench_costs._active is None


def test_concurrent_likes_and_a_filtered_page_are_reported(runtime):
    result = bench_costs.contention(runtime, fans=5)
    assert {k: result[k] for k in ("answered", "ok", "5xx", "final_count")} == \
        {"answered": 5, "ok": 5, "5xx": 0, "final_count": 5}
    listed = bench_costs.filtered_listings(runtime, [("tiny", [True, False, False])])
    assert listed["tiny"]["statuses"] == 1
    assert listed["tiny"]["examined"] == 3  # every entry of the history, filtered by DynamoDB
    assert listed["tiny"]["calls"]["Query"] >= 1 and listed["tiny"]["read_units"] > 0
