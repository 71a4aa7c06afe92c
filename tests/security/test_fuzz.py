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
