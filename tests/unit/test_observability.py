"""stratus.core.observability's tracer is made at the first invocation that traces, not at import
(docs/performance.md: the X-Ray SDK and botocore's patching were ~100 ms of every function's
INIT with `Tracing: Active`). Traces are what they were: one subsegment per invocation with the
ColdStart and Service annotations, sent to the daemon; botocore patched before any AWS call.

Each case runs in a fresh interpreter (the tracer, the X-Ray SDK's recorder and its patches are
the process's), with the environment Lambda gives a traced function, the daemon being a UDP
socket of the test."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap

import pytest

from local import cfn

INVOKE = textwrap.dedent("""
    import json, os, sys
    from stratus.core import observability

    def work(event, context):
        if event.get("fail"):
            raise ValueError("no")
        return {"modules": sorted(m for m in ("aws_xray_sdk", "requests", "sqlite3")
                                  if m in sys.modules)}

    handler = observability.job_handler(work, limits=observability.JobLimits(seconds=5))
    at_import = sorted(m for m in ("aws_xray_sdk", "botocore.client") if m in sys.modules)

    class Context:
        function_name, memory_limit_in_mb, aws_request_id = "F", 512, "r1"
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:F"

    answers = []
    for n, event in enumerate(json.loads(sys.argv[1])):
        os.environ["_X_AMZN_TRACE_ID"] = (
            f"Root=1-5759e988-bd862e3fe1be46a99427279{n};Parent=53995c3f42cd8ad8;Sampled=1")
        try:
            answers.append(handler(event, Context()))
        except ValueError as exc:
            answers.append({"raised": str(exc)})
    patched = []
    if "aws_xray_sdk" in sys.modules:
        from aws_xray_sdk.core.patcher import _PATCHED_MODULES
        patched = sorted(_PATCHED_MODULES)
    print(json.dumps({"at_import": at_import, "answers": answers, "patched": patched,
                      "tracer": observability.get_tracer() is not None}))
""")


def _run(events: list[dict], **env: str) -> dict:
    base = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(cfn.ROOT / "layers/shared"),
            "AWS_REGION": cfn.REGION, "AWS_DEFAULT_REGION": cfn.REGION,
            "POWERTOOLS_SERVICE_NAME": "tested", "POWERTOOLS_METRICS_NAMESPACE": "Stratus",
            "POWERTOOLS_METRICS_DISABLED": "true",
            "POWERTOOLS_LOG_LEVEL": "WARNING", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", INVOKE, json.dumps(events)],
                          env={**base, **env}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def daemon():
    """The X-Ray daemon: a UDP socket that keeps what the SDK sends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)

    def received() -> list[dict]:
        documents = []
        while True:
            try:
                data = sock.recv(65536)
            except TimeoutError:
                return documents
            header, _, body = data.decode().partition("\n")
            assert json.loads(header) == {"format": "json", "version": 1}
            documents.append(json.loads(body))

    yield f"127.0.0.1:{sock.getsockname()[1]}", received
    sock.close()


def test_traced_on_lambda_from_the_first_invocation_not_from_import(daemon, tmp_path):
    address, received = daemon
    out = _run([{}, {}, {"fail": True}], LAMBDA_TASK_ROOT=str(tmp_path),
               AWS_LAMBDA_FUNCTION_NAME="F", AWS_XRAY_DAEMON_ADDRESS=address,
               AWS_XRAY_CONTEXT_MISSING="LOG_ERROR")
    assert out["at_import"] == []  # neither the SDK nor botocore's client at INIT
    assert out["tracer"] is True
    assert out["patched"] == ["botocore"]  # every AWS call, and nothing else to import
    # The SDK was there for the first invocation's body; `requests` and `sqlite3`, which
    # Powertools' default patch_all imports to patch, never were.
    assert out["answers"][:2] == [{"modules": ["aws_xray_sdk"]}] * 2
    assert out["answers"][2] == {"raised": "no"}
    # Named after the wrapper, as before the tracer was made lazily.
    segments = [d for d in received() if d.get("name") == "## handler"]
    assert len(segments) == 3
    assert [s["annotations"]["ColdStart"] for s in segments] == [True, False, False]
    assert {s["annotations"]["Service"] for s in segments} == {"tested"}
    assert segments[2]["fault"] and "handler error" in segments[2]["metadata"]["tested"]
    assert segments[2]["cause"]["exceptions"][0]["message"] == "no"


def test_not_traced_outside_lambda_and_the_sdk_never_loaded(daemon):
    address, received = daemon
    out = _run([{}], AWS_XRAY_DAEMON_ADDRESS=address)  # no LAMBDA_TASK_ROOT
    assert out == {"at_import": [], "answers": [{"modules": []}], "patched": [],
                   "tracer": False}
    assert received() == []


def test_not_traced_when_disabled(daemon, tmp_path):
    address, received = daemon
    out = _run([{}], LAMBDA_TASK_ROOT=str(tmp_path), AWS_XRAY_DAEMON_ADDRESS=address,
               POWERTOOLS_TRACE_DISABLED="true")
    assert out["tracer"] is False and out["answers"] == [{"modules": []}]
    assert received() == []
