"""`make bench`'s instruments (bench/costs.py): the Recorder on a few real requests
(every invocation timed and charged, the DynamoDB units its responses reported, SQS and e-mail
counted by the request that caused them), and the contention and filtered-listing parts."""

from __future__ import annotations

import pytest

from bench import costs as bench_costs


def test_the_recorder_charges_each_request_what_it_caused(runtime):
    (author, fan), app = bench_costs.people("rec", 2)
    from stratus.api.statuses import post as posting

    sid = posting.create(author.viewer, {"status": "record me"})
    runtime.pipeline.drain()
    app_token = bench_costs.app_token(app)
    with bench_costs.Recorder(runtime) as recorder:
        for label, send in [
            ("like", lambda: bench_costs.request(runtime, "POST",
                                                 f"/api/v1/statuses/{sid}/favourite",
                                                 token=fan.token)),
            ("sign-up", lambda: bench_costs.request(
                runtime, "POST", "/api/v1/accounts", token=app_token,
                data={"username": "newcomer", "email": "newcomer@example.org",
                      "password": "a long enough password", "agreement": "true",
                      "locale": "en"}))]:
            recorder.cause = recorder.label = label
            assert send()[0] == 200
            recorder.label = None
            runtime.pipeline.drain()
            recorder.cause = None
    like = [i for i in recorder.invocations if i.cause == "like"]
    assert [i.trigger for i in like].count("http") == 1
    http = next(i for i in like if i.trigger == "http")
    assert http.function == "StatusesFunction" and http.label == "like"
    assert http.wall > 0 and http.calls and http.dynamodb_calls and http.answer_bytes > 0
    assert http.dynamodb.write >= 1 and http.dynamodb.read > 0  # as the responses reported
    # Behind the request: the stream's dispatch, the counters, the notification.
    assert {"DispatchFunction", "CountersFunction"} <= {i.function for i in like}
    assert all(i.memory_mb == 512 for i in like)  # the template's Globals
    # Each SQS batch: sent, received, deleted. The jobs that go by asynchronous invocation
    # (effects, stream, search, federation) cost Lambda requests, not SQS requests.
    by_queue = [i for i in like if i.trigger == "sqs"]
    assert by_queue and recorder.by_cause["like"]["sqs"] == 3 * len(by_queue)
    assert {"EffectsFunction", "StreamWorkerFunction"} <= \
        {i.function for i in like if i.trigger == "other"}
    assert recorder.by_cause["sign-up"]["emails"] == 1
    assert recorder.outside.total == 0  # every DynamoDB call was made by an invocation
    for i in recorder.invocations:
        assert i.corrected(cpu_scaled=True) >= i.corrected() >= 0
        assert i.own <= i.cpu


def test_the_recorder_lets_go_of_the_stack(runtime):
    from stratus.core import observability, outbound

    request = outbound.request
    level = observability.logger.log_level
    with bench_costs.Recorder(runtime):
        bench_costs.request(runtime, "GET", "/api/v2/instance")
    assert "handler" not in vars(runtime.stack) and "pump_queue" not in vars(runtime.pipeline)
    assert bench_costs._active is None
    assert outbound.request is request and observability.logger.log_level == level


def test_the_log_levels_and_memory_are_read_from_the_template():
    template = {"Parameters": {"LogLevel": {"Default": "INFO"}},
                "Globals": {"Function": {"MemorySize": 512, "Environment": {"Variables": {
                    "POWERTOOLS_LOG_LEVEL": {"Ref": "LogLevel"}}}}},
                "Resources": {
                    "A": {"Type": "AWS::Serverless::Function", "Properties": {}},
                    "B": {"Type": "AWS::Serverless::Function", "Properties": {
                        "MemorySize": 128,
                        "Environment": {"Variables": {"POWERTOOLS_LOG_LEVEL": "WARNING"}}}}}}
    assert bench_costs.log_levels(template) == {"A": "INFO", "B": "WARNING"}
    assert bench_costs.memory_sizes(template) == {"A": 512, "B": 128}


@pytest.mark.parametrize("event, trigger", [
    ({"requestContext": {"http": {"method": "GET"}}}, "http"),
    ({"requestContext": {"connectionId": "x", "routeKey": "$connect"}}, "websocket"),
    ({"Records": [{"eventSource": "aws:dynamodb"}]}, "stream"),
    ({"Records": [{"eventSource": "aws:sqs"}]}, "sqs"),
    ({"source": "aws.events", "detail": {}}, "schedule"),
])
def test_what_invoked_a_function_is_told_by_its_event(event, trigger):
    assert bench_costs.trigger_of(event) == trigger


def test_concurrent_likes_and_a_filtered_page_are_reported(runtime):
    result = bench_costs.contention(runtime, fans=5)
    assert {k: result[k] for k in ("answered", "ok", "5xx", "final_count")} == \
        {"answered": 5, "ok": 5, "5xx": 0, "final_count": 5}
    listed = bench_costs.filtered_listings(runtime, [("tiny", [True, False, False])])
    assert listed["tiny"]["statuses"] == 1
    assert listed["tiny"]["examined"] == 3  # every entry of the history, filtered by DynamoDB
    assert listed["tiny"]["calls"]["Query"] >= 1 and listed["tiny"]["read_units"] > 0
