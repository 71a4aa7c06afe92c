"""Slow peers cannot pin a worker (docs/security.md, "Federation threats"): every outbound
request has one whole-request deadline (connect, TLS, status line, headers, body) that holds
even while bytes keep arriving, as Mastodon's `Request` holds a read deadline; every queued job
runs inside a budget of time and requests below its function's timeout; a batch starts no
record it has no time left for."""

from __future__ import annotations

import json
import socket
import threading
import time
from types import SimpleNamespace

import pytest
from stratus.core import config, outbound

from tests.rig.hostile import count_state
from tests.rig.peers import AP

MARGIN = 1.5  # what a test machine shared by others may add to a deadline


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("INSTANCE_DOMAIN", "social.example")
    monkeypatch.setenv("INSTANCE_SCHEME", "https")
    monkeypatch.setenv("STRATUS_ENVIRONMENT", "test")
    config.reset()
    yield monkeypatch
    config.reset()


def note(hostile, path: str, **extra) -> dict:
    uri = hostile.url(path)
    return {"@context": "https://www.w3.org/ns/activitystreams", "id": uri, "type": "Note",
            "attributedTo": hostile.url("/users/mallory"), "content": "slow",
            "to": ["https://www.w3.org/ns/activitystreams#Public"], **extra}


def timed(call) -> tuple[float, BaseException | None]:
    started = time.monotonic()
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the test looks at it
        return time.monotonic() - started, exc
    return time.monotonic() - started, None


def get(url: str, seconds: float) -> outbound.Response:
    return outbound.request("GET", url, accept=AP, max_bytes=1024 * 1024,
                            deadline=outbound.Deadline(seconds))


# --- one request: one deadline ------------------------------------------------------------------
def test_attack_drip_fed_body(env, hostile):
    """Headers at once, then a byte every 0.2 s: the fetch ends at its deadline, not when the
    last byte arrives (40 bytes: 8 s)."""
    url = hostile.drip("/notes/slow", b'{"id": "x", "type": "Note", "content": "?"}', every=0.2)
    elapsed, error = timed(lambda: get(url, 1.0))
    assert isinstance(error, outbound.TimedOut), error
    assert elapsed < 1.0 + MARGIN


def test_attack_drip_fed_headers(env, hostile):
    """The status line and headers trickle too: the deadline covers them."""
    url = hostile.drip("/notes/slow", b"{}", every=0.2, headers_too=True)
    elapsed, error = timed(lambda: get(url, 1.0))
    assert isinstance(error, outbound.TimedOut), error
    assert elapsed < 1.0 + MARGIN


class DripTLS:
    """A server that answers a TLS ClientHello with the start of a handshake record and then
    one byte every 0.2 s: the handshake never ends on its own."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        with connection:
            try:
                connection.recv(65536)
                connection.sendall(b"\x16\x03\x03\x40\x00")  # a handshake record of 16 KiB
                while not self.stop.wait(0.2):
                    connection.sendall(b"\x02")
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.listener.close()


def test_a_drip_fed_tls_handshake_ends_at_the_deadline(env):
    server = DripTLS()
    try:
        elapsed, error = timed(lambda: get(f"https://127.0.0.1:{server.port}/note", 1.0))
    finally:
        server.close()
    assert isinstance(error, outbound.TimedOut), error
    assert elapsed < 1.0 + MARGIN


def test_a_prompt_answer_is_unaffected_by_the_deadline(env, hostile):
    hostile.serve_json("/notes/1", note(hostile, "/notes/1"))
    response = get(hostile.url("/notes/1"), 1.0)
    assert response.status == 200
    assert json.loads(response.body)["id"] == hostile.url("/notes/1")


# --- a job's budget -----------------------------------------------------------------------------
def test_a_budget_caps_every_deadline_made_inside_it(env, hostile):
    url = hostile.drip("/notes/slow", b'{"id": "x", "type": "Note", "content": "?"}', every=0.2)
    with outbound.budget(1.0):
        elapsed, error = timed(lambda: get(url, 30.0))
    assert isinstance(error, outbound.TimedOut), error
    assert elapsed < 1.0 + MARGIN


def test_a_budget_reaches_the_federation_fetch(client, hostile):
    """fetch_object makes its own 15 s deadline; the job's budget caps it through outbound."""
    from stratus.federation import http

    url = hostile.drip("/notes/slow", json.dumps(note(hostile, "/notes/slow")), every=0.2)
    with outbound.budget(1.0):
        elapsed, error = timed(lambda: http.fetch_object(url))
    assert isinstance(error, outbound.Refused), error
    assert elapsed < 1.0 + MARGIN


def test_a_budget_bounds_how_many_requests_a_job_makes(env, hostile):
    hostile.serve_json("/notes/1", note(hostile, "/notes/1"))
    with outbound.budget(30.0, requests=2):
        get(hostile.url("/notes/1"), 5.0)
        get(hostile.url("/notes/1"), 5.0)
        with pytest.raises(outbound.OverBudget):
            get(hostile.url("/notes/1"), 5.0)
    assert hostile.hits("/notes/1") == 2
    get(hostile.url("/notes/1"), 5.0)  # the next job has a budget of its own


def test_a_redirect_is_one_more_request_of_the_budget(env, hostile):
    hostile.serve_json("/notes/1", note(hostile, "/notes/1"))
    hostile.redirect("/r1", hostile.url("/r2"))
    hostile.redirect("/r2", hostile.url("/notes/1"))
    with outbound.budget(30.0, requests=2):
        with pytest.raises(outbound.OverBudget):
            outbound.request("GET", hostile.url("/r1"), accept=AP, max_bytes=1 << 20,
                             deadline=outbound.Deadline(5), follow_redirects=True)
    assert hostile.hits("/notes/1") == 0


def test_an_inner_budget_cannot_outlast_its_job(env, hostile):
    url = hostile.drip("/notes/slow", b'{"id": "x", "type": "Note", "content": "?"}', every=0.2)
    with outbound.budget(1.0), outbound.budget(60.0):
        elapsed, error = timed(lambda: get(url, 30.0))
    assert isinstance(error, outbound.TimedOut), error
    assert elapsed < 1.0 + MARGIN


def test_attack_reply_chain_exhausts_budget(client, drain, runtime, hostile, monkeypatch):
    """A Create replying to a chain of notes, each served slowly (3 s, under the 15 s of one
    fetch): the inbox worker's job stops fetching when its budget is spent, and the reply
    itself is still stored, without the parents it had no time for."""
    from stratus.core.observability import JobLimits

    mallory = hostile.actor("mallory")
    chain = [note(hostile, f"/notes/{n}",
                  **({"inReplyTo": hostile.url(f"/notes/{n + 1}")} if n < 3 else {}))
             for n in (1, 2, 3)]
    for n, parent in enumerate(chain, start=1):
        body = json.dumps(parent).encode()
        hostile.drip(f"/notes/{n}", body, every=3.0 / len(body))
    reply = mallory.note("the reply", inReplyTo=hostile.url("/notes/1"))
    response = hostile.post_as(client, mallory, mallory.activity("Create", reply))
    assert response.status_code == 202, response.text
    before = count_state()

    worker = runtime.stack.handler("InboxWorkerFunction")
    monkeypatch.setattr(worker, "limits", JobLimits(seconds=1.5, requests=16))
    elapsed, error = timed(drain)
    assert error is None
    assert elapsed < 1.5 + 4 * MARGIN  # three parents would have taken 9 s
    asked = [path for path, _ in hostile.requests if path.startswith("/notes/")]
    assert asked == ["/notes/1"]  # the chain stopped at the first parent it had no time for
    after = count_state()
    assert after.get("status", 0) == before.get("status", 0) + 1  # the reply, alone


def test_the_inbox_worker_has_a_budget_below_its_timeout(runtime):
    for logical_id in ("InboxWorkerFunction", "FederationFunction", "DeliveryFunction",
                       "CardsFunction", "PushWorkerFunction"):
        limits = runtime.stack.handler(logical_id).limits
        timeout = runtime.stack.functions[logical_id].timeout
        assert limits is not None, logical_id
        assert limits.seconds + limits.margin <= timeout, logical_id
        assert limits.requests is not None and limits.requests >= 1, logical_id


# --- a batch ------------------------------------------------------------------------------------
def sqs_event(count: int) -> dict:
    return {"Records": [{
        "messageId": f"m{n}", "receiptHandle": f"r{n}", "body": json.dumps({"n": n}),
        "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {},
        "md5OfBody": "", "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:q", "awsRegion": "us-east-1",
    } for n in range(count)]}


class Clock:
    """A Lambda context whose remaining time the records spend."""

    def __init__(self, seconds: float) -> None:
        self.left = seconds
        self.function_name, self.function_version = "Test", "1"
        self.invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:Test"
        self.memory_limit_in_mb, self.aws_request_id = 128, "req"
        self.log_group_name = self.log_stream_name = "test"

    def get_remaining_time_in_millis(self) -> int:
        return int(self.left * 1000)


def test_a_batch_starts_no_record_it_has_no_time_for(runtime):
    """The records it had no time to start are sent again as new messages and reported done:
    they were not tried, and SQS would count their receive towards the dead-letter queue."""
    from stratus.core.observability import JobLimits, sqs_batch_handler

    from local.lambda_runtime import isolated

    ran: list[int] = []
    sent: list[str] = []
    context = Clock(60.0)

    def record(item) -> None:
        ran.append(json.loads(item.body)["n"])
        context.left -= 20.0  # each job spends its whole budget

    handler = sqs_batch_handler(
        record, limits=JobLimits(seconds=20.0, requests=8, margin=5.0),
        send_again=lambda records, _context: sent.extend(r["messageId"] for r in records))
    result = isolated(handler)(sqs_event(4), context)
    assert ran == [0, 1]  # 60 s: two jobs of 20 s and the margin; not a third
    assert sent == ["m2", "m3"]
    assert result["batchItemFailures"] == []


def test_records_that_cannot_be_sent_again_are_reported_failed(runtime):
    from stratus.core.observability import JobLimits, sqs_batch_handler

    from local.lambda_runtime import isolated

    context = Clock(30.0)

    def record(item) -> None:
        context.left -= 20.0

    def broken(records, _context) -> None:
        raise RuntimeError("SQS is down")

    handler = sqs_batch_handler(record, limits=JobLimits(seconds=20.0, margin=5.0),
                                send_again=broken)
    result = isolated(handler)(sqs_event(3), context)
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == ["m1", "m2"]


def test_an_invocation_with_no_time_for_one_job_reports_its_records_failed(runtime):
    """Nothing could start (an invocation given less time than one job): sending the records
    again would go round for ever, so they are reported failed and their receives count."""
    from stratus.core.observability import JobLimits, sqs_batch_handler

    from local.lambda_runtime import isolated

    sent: list[dict] = []
    handler = sqs_batch_handler(lambda item: None, limits=JobLimits(seconds=20.0, margin=5.0),
                                send_again=lambda records, _context: sent.extend(records))
    from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

    with pytest.raises(BatchProcessingError):  # every record failed: Lambda returns the batch
        isolated(handler)(sqs_event(2), Clock(10.0))
    assert sent == []


def test_each_record_of_a_batch_runs_inside_the_budget(runtime, hostile):
    from stratus.core.observability import JobLimits, sqs_batch_handler

    from local.lambda_runtime import isolated

    url = hostile.drip("/notes/slow", b'{"id": "x", "type": "Note", "content": "?"}', every=0.2)
    errors: list[BaseException | None] = []

    def record(item) -> None:
        errors.append(timed(lambda: get(url, 30.0))[1])

    handler = sqs_batch_handler(record, limits=JobLimits(seconds=1.0, requests=8, margin=0.5),
                                send_again=lambda records, context: None)
    started = time.monotonic()
    isolated(handler)(sqs_event(1), SimpleNamespace(**vars(Clock(60.0)),
                                                    get_remaining_time_in_millis=lambda: 60000))
    assert time.monotonic() - started < 1.0 + MARGIN
    assert isinstance(errors[0], outbound.TimedOut)


def test_an_http_function_keeps_its_outbound_requests_inside_its_invocation(env, hostile):
    """An API request that fetches (an inbox's key, a search's resolve) with a deadline longer
    than the function's time left: the fetch ends before the function does, and the client
    gets an answer (here 3 s left, a 15 s fetch of a drip-fed document)."""
    from fastapi import FastAPI
    from stratus.core.observability import HTTP_MARGIN, http_handler

    url = hostile.drip("/users/slow", b'{"id": "x", "type": "Person"}' * 4, every=0.2)
    app = FastAPI()

    @app.get("/probe")
    def probe() -> dict:
        elapsed, error = timed(lambda: get(url, 15.0))
        return {"error": type(error).__name__ if error else None}

    event = {"version": "2.0", "routeKey": "GET /probe", "rawPath": "/probe",
             "rawQueryString": "", "headers": {"host": "social.example"},
             "requestContext": {"http": {"method": "GET", "path": "/probe",
                                         "sourceIp": "127.0.0.1", "protocol": "HTTP/1.1"},
                                "requestId": "r", "stage": "$default"},
             "isBase64Encoded": False}
    from local.lambda_runtime import isolated

    env.setenv("POWERTOOLS_METRICS_NAMESPACE", "Test")
    started = time.monotonic()
    answer = isolated(http_handler(app))(event, Clock(3.0))
    assert time.monotonic() - started < 3.0 - HTTP_MARGIN + MARGIN
    assert answer["statusCode"] == 200
    assert json.loads(answer["body"])["error"] in ("TimedOut", "OverBudget")


def test_attack_slow_dns_answer_ends_at_the_deadline(env, monkeypatch):
    """A name whose lookup hangs (a resolver waiting on the attacker's slow name server): the
    request ends at its deadline, not when the resolver gives up."""
    import socket as sockets

    real = sockets.getaddrinfo

    def slow(host, port, *args, **kwargs):
        time.sleep(5.0)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(outbound.socket, "getaddrinfo", slow)
    elapsed, error = timed(lambda: get("http://localhost:9/users/slow", 0.5))
    assert isinstance(error, outbound.TimedOut), error
    assert elapsed < 0.5 + MARGIN


def test_attack_hung_dns_lookups_do_not_block_later_ones(env, monkeypatch):
    """Five names whose lookups never answer (each request given up at its deadline, its
    lookup left running): a lookup of another name still answers at once — with a fixed pool
    of four resolver threads, the hung lookups held every thread and every later lookup of the
    warm process timed out behind them."""
    import socket as sockets

    from stratus.core import addresses

    env.setenv("STRATUS_ENVIRONMENT", "development")  # names other than loopback are looked up
    config.reset()
    release = threading.Event()

    def getaddrinfo(host, port, *args, **kwargs):
        if host.startswith("hung"):
            release.wait(30)  # a name server that never answers
            raise sockets.gaierror("no answer")
        return [(sockets.AF_INET, sockets.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(addresses.socket, "getaddrinfo", getaddrinfo)
    try:
        for number in range(5):
            elapsed, error = timed(lambda n=number: addresses.resolve(
                f"hung{n}.example", 443, deadline=outbound.Deadline(0.3)))
            assert isinstance(error, outbound.TimedOut), error
            assert elapsed < 0.3 + MARGIN
        started = time.monotonic()
        assert addresses.resolve("answers.example", 443,
                                 deadline=outbound.Deadline(2.0)) == "127.0.0.1"
        assert time.monotonic() - started < 0.5
    finally:
        release.set()


def test_a_hung_name_asked_again_holds_no_more_threads(env, monkeypatch):
    """The same hung name asked many times shares one lookup, and the lookups that may be
    running at once are bounded: past the bound a lookup is refused at once."""
    import socket as sockets

    from stratus.core import addresses

    env.setenv("STRATUS_ENVIRONMENT", "development")
    config.reset()
    release = threading.Event()

    def getaddrinfo(host, port, *args, **kwargs):
        release.wait(30)
        raise sockets.gaierror("no answer")

    monkeypatch.setattr(addresses.socket, "getaddrinfo", getaddrinfo)
    running = addresses.pending_lookups()  # an earlier test's lookup may still be sleeping
    monkeypatch.setattr(addresses, "MAX_PENDING", running + 3)
    before = threading.active_count()
    try:
        for _ in range(10):
            with pytest.raises(outbound.TimedOut):
                addresses.resolve("hung.example", 443, deadline=outbound.Deadline(0.05))
        assert addresses.pending_lookups() == running + 1
        assert threading.active_count() - before <= 1
        for name in ("hung2.example", "hung3.example"):
            with pytest.raises(outbound.TimedOut):
                addresses.resolve(name, 443, deadline=outbound.Deadline(0.05))
        elapsed, error = timed(lambda: addresses.resolve("hung4.example", 443,
                                                         deadline=outbound.Deadline(5.0)))
        assert isinstance(error, outbound.TimedOut) and "still running" in str(error), error
        assert elapsed < 0.5  # refused at once, not after its deadline
    finally:
        release.set()
    assert _eventually(lambda: addresses.pending_lookups() <= running)


def _eventually(predicate, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
