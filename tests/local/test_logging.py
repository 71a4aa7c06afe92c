"""Every log line of an invocation names that invocation's function and request id, even while
another function runs in the same process (the local stack invokes handlers from the gateway's
and the pipeline's threads; all of them share one Powertools Logger)."""

from __future__ import annotations

import io
import json
import logging
import sys
import threading

import pytest


@pytest.fixture
def log_lines():
    from stratus.core.observability import logger

    stream = io.StringIO()
    capture = logging.StreamHandler(stream)
    capture.setFormatter(logger.registered_formatter)  # the formatter production lines get
    logger.addHandler(capture)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    logger.removeHandler(capture)


def test_concurrent_invocations_of_two_functions_log_their_own_names(runtime, log_lines,
                                                                     monkeypatch):
    from stratus.api.instance import instance

    from local.lambda_runtime import invoke

    # Both invocations wait here, after each has set up its logging context, so each of them
    # logs while the other one is running.
    both_running = threading.Barrier(2, timeout=30)
    instance_v2 = instance.instance_v2

    def slow_instance_v2():
        both_running.wait()
        return instance_v2()

    def failing_route(record):
        both_running.wait()
        raise RuntimeError("queue unreachable")

    monkeypatch.setattr(instance, "instance_v2", slow_instance_v2)
    runtime.stack.handler("DispatchFunction")
    monkeypatch.setattr(sys.modules["stratus_fn_DispatchFunction"], "route", failing_route)
    record = {"eventID": "e-1", "eventName": "INSERT",
              "dynamodb": {"SequenceNumber": "7", "Keys": {}}}
    results = {}

    def http():
        scope = {"type": "http", "method": "GET", "path": "/api/v2/instance",
                 "raw_path": b"/api/v2/instance", "query_string": b"",
                 "headers": [(b"host", b"localhost:8000")], "client": ("127.0.0.1", 1)}
        results["http"] = runtime.gateway.handle(scope, b"")[0]

    def stream():
        results["stream"] = invoke(runtime.stack, "DispatchFunction", {"Records": [record]},
                                   request_id="stream-invocation")

    threads = [threading.Thread(target=http), threading.Thread(target=stream)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == {"http": 200,
                       "stream": {"batchItemFailures": [{"itemIdentifier": "7"}]}}

    lines = log_lines()
    [request] = [line for line in lines if line["message"] == "request"]
    assert request["path"] == "/api/v2/instance"
    assert request["function_name"] == "InstanceFunction"
    assert request["function_request_id"] == request["correlation_id"]
    [failure] = [line for line in lines if line["message"] == "dispatch failed"]
    assert failure["function_name"] == "DispatchFunction"
    assert failure["function_request_id"] == "stream-invocation"
    assert "correlation_id" not in failure  # nothing of the HTTP invocation leaks in


def test_lines_outside_any_invocation_name_no_function(runtime, log_lines, client):
    from stratus.core.observability import logger

    assert client.get("/api/v1/instance").status_code == 200
    logger.info("between invocations")
    [line] = [line for line in log_lines() if line["message"] == "between invocations"]
    assert "function_name" not in line and "correlation_id" not in line
