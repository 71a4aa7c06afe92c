"""A short `make fuzz` (local/fuzz.py) in the test suite: schemathesis with the community spec
and the server's own, against the local stack behind a real HTTP server; no 5xx and no traceback
in the server's log. The full run (≥ 10,000 requests) and its figures: docs/security.md."""

from __future__ import annotations

from local.fuzz import run


def test_short_fuzz_run_has_no_server_errors(tmp_path):
    figures = run(max_examples=2, phases="examples,fuzzing", seed=8, workdir=tmp_path,
                  hostile="sample")
    log = (tmp_path / "server.log").read_text(errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("FUZZ 5XX")]
    assert figures["requests"] >= 500 and figures["hostile_requests"] > 200, figures
    assert figures["server_errors"] == 0 and figures["tracebacks"] == 0, errors[:20]
    # Both specs ran: schemathesis exits 0 when every check passed.
    assert figures["schemathesis_exit"] == {"community": 0, "stratus": 0}, figures


def test_short_inbox_fuzz_has_no_server_errors_and_changes_nothing(tmp_path):
    """200 hostile POSTs to the inboxes (local.fuzz.inbox_requests: malformed, nested and
    oversized bodies, wrong types in every field, bad signatures, correctly signed activities
    that must change nothing), the queues drained: no 5xx, no traceback in the server's log
    (the inbox worker's included), no item of the table changed."""
    import re

    figures = run(max_examples=0, phases="examples", seed=8, workdir=tmp_path, hostile="off",
                  inbox=200, specs=())
    inbox = figures["inbox"]
    log = (tmp_path / "server.log").read_text(errors="replace")
    raised = sorted(set(re.findall(r"^\w[\w.]*(?:Error|Exception): .*$", log, re.MULTILINE)))
    assert inbox["activities"] == 200
    # Refused at each step and taken: the attacks reached the worker as well as the edge.
    assert {202, 400, 401, 404, 413} <= {int(s) for s in inbox["answers"]}, inbox["answers"]
    assert inbox["server_errors"] == 0, inbox["errors"]
    assert inbox["tracebacks"] == 0, raised[:10]
    assert inbox["state_changes"] == 0, inbox["changed"]
