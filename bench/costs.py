"""What requests cost, measured: the instruments of `python -m bench cost`
(bench/cost.py), and two parts of `make bench` that use them.

- **`Recorder`**: while active, times every Lambda invocation of the local stack (HTTP functions,
  the WebSocket API's function and the workers behind the stream and the queues) and attributes
  to it every AWS call it makes (on the shared boto3 clients, with its start and end, so calls
  in flight together count as one round) and every outbound HTTP request (federation
  deliveries, web push: `stratus.core.outbound.request`). It reads the DynamoDB request units
  each call's response reports (the local DynamoDB answers `ReturnConsumedCapacity` with the
  units DynamoDB would charge: local/capacity.py, local/emulator.py), counts SQS requests as SQS
  bills them, WebSocket messages (PostToConnection, per 32 KB), S3, SES and Secrets Manager
  calls, the bytes each invocation logs (Powertools at the template's log level) and each HTTP
  answer's bytes, and says which invocations start an X-Ray trace.
- **Contention**: 100 accounts like one status at once through the local API Gateway (32
  threads); requests answered, 5xx, the count once the pipeline has drained, wall time.
- **Filtered listings**: DynamoDB round trips, entries examined and read units of
  `GET /api/v1/accounts/:id/statuses?only_media=true&limit=40` in a history where most statuses
  match and in a sparse one (1 in 20 of 1,000).

`run` (part of `make bench`) runs contention and filtered listings; the cost of a realistic mix
runs in its own process (`python -m bench cost`, also part of `make bench`).
"""

from __future__ import annotations

import base64
import contextvars
import io
import json
import logging
import math
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from local import capacity

# ------------------------------------------------------------------------------------- prices
# us-east-1, on-demand, no free tier; checked 2026-11-22 and 2026-11-27 (sources in
# docs/performance.md).
PRICES = {
    "lambda_gb_second": 0.0000133334,   # arm64, first 7.5 billion GB-s a month
    "lambda_request": 0.20 / 1e6,
    "dynamodb_read_unit": 0.125 / 1e6,   # on-demand read request unit (since 2024-11-01)
    "dynamodb_write_unit": 0.625 / 1e6,  # on-demand write request unit
    "sqs_request": 0.40 / 1e6,           # standard queue, per 64 KB chunk of payload
    "http_api_request": 1.00 / 1e6,      # HTTP API, first 300 million, per 512 KB
    "websocket_message": 1.00 / 1e6,     # WebSocket API, first billion, per 32 KB
    "websocket_connection_minute": 0.25 / 1e6,
    "ses_email": 0.10 / 1000,
    "s3_put": 0.005 / 1000,              # PUT, COPY, POST, LIST
    "s3_get": 0.0004 / 1000,             # GET and others
    "secrets_call": 0.05 / 10000,
    "logs_ingested_gb": 0.50,            # CloudWatch Logs, standard class (Lambda's log groups)
    "xray_trace": 5.00 / 1e6,            # X-Ray traces recorded
    "transfer_out_gb": 0.09,             # data out to the internet, first 10 TB a month
}
SQS_CHUNK = 64 * 1024
WEBSOCKET_CHUNK = 32 * 1024
# Typical latency of one call from Lambda, for the corrected durations (an assumption, stated in
# docs/performance.md): DynamoDB single-digit milliseconds, the others somewhat slower; `http`
# is an outbound request to another server (an inbox, a push service): TLS and its answer.
TYPICAL_LATENCY = {"dynamodb": 0.004, "sqs": 0.008, "s3": 0.015, "ses": 0.030,
                   "secretsmanager": 0.015, "ssm": 0.010, "scheduler": 0.020,
                   "apigatewaymanagementapi": 0.010, "http": 0.150}
DEFAULT_LATENCY = 0.010
FULL_VCPU_MB = 1769  # Lambda gives a function one full vCPU at 1,769 MB, proportionally less below
# Lambda's own lines per invocation (START, END, REPORT; the XRAY line when the invocation is
# traced), as it writes them in its default text format.
_RID = "8f507cfc-17bd-4697-b07a-ac58fc914c95"
PLATFORM_LOG_BYTES = len(f"START RequestId: {_RID} Version: $LATEST\n"
                         f"END RequestId: {_RID}\n"
                         f"REPORT RequestId: {_RID}\tDuration: 12.34 ms\tBilled Duration: 13 ms\t"
                         f"Memory Size: 512 MB\tMax Memory Used: 118 MB\t\n")
XRAY_LOG_BYTES = len("XRAY TraceId: 1-6759e988-bd862e3fe1be46a994272793\t"
                     "SegmentId: 53995c3f42cd8ad8\tSampled: true\t\n")
TRACE_HEADER = "Root=1-6759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"


# ------------------------------------------------------------------------------------ recording
# (service, started, ended) on time.perf_counter(), then the process's CPU time (process_time)
# at both ends.
Call = tuple[str, float, float, float, float]


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def rounds(calls: list[Call]) -> list[list[Call]]:
    """Calls grouped by overlap: a call that starts before the calls of the round so far have
    all ended joins it (calls in flight together wait as one)."""
    grouped: list[list[Call]] = []
    end = -math.inf
    for call in sorted(calls, key=lambda c: c[1]):
        if grouped and call[1] < end:
            grouped[-1].append(call)
            end = max(end, call[2])
        else:
            grouped.append([call])
            end = call[2]
    return grouped


@dataclass
class Invocation:
    function: str
    memory_mb: int
    label: str | None  # the mix entry an HTTP invocation served
    trigger: str = "other"  # http, websocket, stream, sqs, schedule, other
    cause: str | None = None  # the mix entry whose work this is (HTTP or a worker behind it)
    wall: float = 0.0
    cpu: float = 0.0  # the process's CPU time while it ran
    overhead: float = 0.0  # the recorder's own work inside the invocation (wall)
    overhead_cpu: float = 0.0  # (and its CPU time)
    calls: list[Call] = field(default_factory=list)
    dynamodb: capacity.Charge = field(default_factory=capacity.Charge)
    dynamodb_calls: int = 0
    log_bytes: int = 0  # what the function logged (Lambda's own lines not included)
    answer_bytes: int = 0  # an HTTP answer's body and headers
    outbound_bytes: int = 0  # bodies sent to other servers (deliveries, pushes)

    @property
    def aws_seconds(self) -> float:
        """Time waiting for calls, calls in flight together counted once."""
        return sum(max(c[2] for c in r) - r[0][1] for r in rounds(self.calls))

    @property
    def measured(self) -> float:
        return max(self.wall - self.overhead, 0.0)

    @property
    def own(self) -> float:
        """CPU time of the function's own code (Python; botocore's serialising counts as the
        calls'): the process's CPU time while it ran, less what went on inside its calls (the
        emulator answers in this process) and the recorder's. CPU time, not wall time: other
        processes on the machine do not lengthen it."""
        inside = sum(max(c[4] for c in r) - min(c[3] for c in r) for r in rounds(self.calls))
        return max(self.cpu - self.overhead_cpu - inside, 0.0)

    def corrected(self, *, cpu_scaled: bool = False) -> float:
        """Own time, plus a typical latency per round of calls (the slowest call's in a round)
        instead of the emulator's."""
        latency = sum(max(TYPICAL_LATENCY.get(c[0], DEFAULT_LATENCY) for c in r)
                      for r in rounds(self.calls))
        own = self.own * (FULL_VCPU_MB / self.memory_mb if cpu_scaled else 1)
        return own + latency


_current: contextvars.ContextVar[Invocation | None] = contextvars.ContextVar(
    "stratus_bench_invocation", default=None)
_active: Recorder | None = None
_installed = False
_install_lock = threading.Lock()


def memory_sizes(template: dict[str, Any]) -> dict[str, int]:
    default = int(template.get("Globals", {}).get("Function", {}).get("MemorySize", 128))
    return {name: int(res.get("Properties", {}).get("MemorySize", default))
            for name, res in template["Resources"].items()
            if res.get("Type") == "AWS::Serverless::Function"}


def log_levels(template: dict[str, Any]) -> dict[str, str]:
    """Each function's POWERTOOLS_LOG_LEVEL as deployed with the parameters' defaults."""
    defaults = {name: str(p.get("Default", "")) for name, p in
                template.get("Parameters", {}).items()}

    def value(raw: Any) -> str | None:
        if isinstance(raw, dict) and "Ref" in raw:
            return defaults.get(raw["Ref"])
        return None if raw is None else str(raw)

    shared = value(((template.get("Globals", {}).get("Function", {}).get("Environment") or {})
                    .get("Variables") or {}).get("POWERTOOLS_LOG_LEVEL")) or "INFO"
    return {name: value(((res.get("Properties", {}).get("Environment") or {})
                         .get("Variables") or {}).get("POWERTOOLS_LOG_LEVEL")) or shared
            for name, res in template["Resources"].items()
            if res.get("Type") == "AWS::Serverless::Function"}


def trigger_of(event: Any) -> str:
    """What invoked a function: an HTTP API request, a WebSocket route, a DynamoDB stream batch,
    an SQS batch, a schedule."""
    if not isinstance(event, dict):
        return "other"
    context = event.get("requestContext")
    if isinstance(context, dict):
        return "websocket" if "connectionId" in context else "http"
    records = event.get("Records")
    if isinstance(records, list) and records:
        source = records[0].get("eventSource") or records[0].get("EventSource") or ""
        return {"aws:dynamodb": "stream", "aws:sqs": "sqs"}.get(source, "other")
    return "schedule" if event.get("source") == "aws.events" or "task" in event else "other"


def _answer_bytes(result: Any) -> int:
    """The size of an HTTP answer as API Gateway sends it: body (decoded) and headers."""
    if not isinstance(result, dict):
        return 0
    body = result.get("body") or ""
    size = len(body.encode()) if isinstance(body, str) else len(body)
    if result.get("isBase64Encoded"):
        size = size * 3 // 4
    headers = result.get("headers") or {}
    return size + sum(len(k) + len(str(v)) + 4 for k, v in headers.items()) + 17


class _LogSink(io.TextIOBase):
    """Stands in for the stream of the Powertools logger's handler: what is written counts
    towards the invocation writing it."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def write(self, text: str) -> int:
        self.recorder.logged(len(text.encode("utf-8")))
        return len(text)


class _WarningCounter(logging.Handler):
    """Warnings and errors of module loggers (Lambda's Python runtime passes them on at its
    default WARNING level), counted as Lambda writes them: `[LEVEL]\\ttime\\trequest\\tmessage`."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(logging.WARNING)
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == self.recorder.powertools_name:
            return  # counted by the Powertools handler's stream
        line = f"[{record.levelname}]\t2026-11-27T12:00:00.000Z\t{_RID}\t{record.getMessage()}\n"
        self.recorder.logged(len(line.encode("utf-8")))


class Recorder:
    """While active: times every Lambda invocation of `runtime` and attributes to it what it
    does (module docstring). `label` names the mix entry being sent; `cause` the entry whose
    effects the pipeline is running (worker invocations are charged to it)."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        template = runtime.stack.template
        self.memory = memory_sizes(template)
        self.levels = log_levels(template)
        self.meter = capacity.Meter()
        self.invocations: list[Invocation] = []
        self.label: str | None = None
        self.cause: str | None = None
        self.api_requests = 0
        self.lock = threading.Lock()
        self.outside = capacity.Charge()  # DynamoDB work no invocation made (should be none)
        # Billed requests by service: sqs, emails, s3_put, s3_get, secrets, ws_messages (per
        # 32 KB), ws_bytes; in all, and by the mix entry they were caused by (`cause`).
        self.counts: Counter[str] = Counter()
        self.by_cause: dict[str | None, Counter[str]] = {}
        self._poller_deletes = 0
        self.outside_log_bytes = 0
        self.unpriced: Counter[str] = Counter()
        self._saved: dict[str, Any] = {}

    def add(self, name: str, count: int) -> None:
        self.counts[name] += count
        self.by_cause.setdefault(self.cause or self.label, Counter())[name] += count

    @property
    def sqs_billed(self) -> int:
        return self.counts["sqs"]

    @property
    def emails(self) -> int:
        return self.counts["emails"]

    # -- lifecycle ---------------------------------------------------------------------------
    def __enter__(self) -> Recorder:
        global _active
        install()
        stack, pipeline = self.runtime.stack, self.runtime.pipeline
        handler_for = type(stack).handler.__get__(stack)
        pump_queue = type(pipeline).pump_queue.__get__(pipeline)

        def handler(logical_id: str) -> Any:
            real = handler_for(logical_id)  # imports on first use: not timed (Lambda INIT)

            def timed(event: dict[str, Any], context: Any) -> Any:
                trigger = trigger_of(event)
                invocation = Invocation(logical_id, self.memory.get(logical_id, 512),
                                        self.label if trigger == "http" else None, trigger,
                                        self.cause or self.label)
                token = _current.set(invocation)
                level = self.levels.get(logical_id, "INFO")
                self._logger().setLevel(level)
                started, cpu = clocks()
                result = None
                try:
                    result = real(event, context)
                    return result
                finally:
                    ended, cpu_ended = clocks()
                    invocation.wall, invocation.cpu = ended - started, cpu_ended - cpu
                    _current.reset(token)
                    if trigger == "http":
                        invocation.answer_bytes = _answer_bytes(result)
                    with self.lock:
                        self.invocations.append(invocation)
            return timed

        def counted_pump_queue(source: Any) -> int:
            before = self._poller_deletes
            done = pump_queue(source)
            # Lambda's poller deletes a batch with DeleteMessageBatch (ten per request).
            self.add("sqs", math.ceil((self._poller_deletes - before) / 10))
            return done

        stack.handler = handler
        pipeline.pump_queue = counted_pump_queue
        self._hook_logs()
        self._hook_outbound()
        self._saved["trace"] = os.environ.get("_X_AMZN_TRACE_ID")
        os.environ["_X_AMZN_TRACE_ID"] = TRACE_HEADER  # Lambda sets it; Powertools logs it
        _active = self
        return self

    def __exit__(self, *exc: Any) -> None:
        global _active
        _active = None
        del self.runtime.stack.handler
        del self.runtime.pipeline.pump_queue
        handler, stream, level, propagate = self._saved.pop("log")
        handler.setStream(stream)
        self._logger().setLevel(level)
        logging.getLogger(self._logger().name).propagate = propagate
        logging.getLogger().removeHandler(self._saved.pop("warnings"))
        from stratus.core import outbound

        outbound.request = self._saved.pop("outbound")
        trace = self._saved.pop("trace")
        if trace is None:
            os.environ.pop("_X_AMZN_TRACE_ID", None)
        else:
            os.environ["_X_AMZN_TRACE_ID"] = trace

    # -- logs and outbound requests ----------------------------------------------------------
    @staticmethod
    def _logger() -> Any:
        from stratus.core.observability import logger

        return logger

    @property
    def powertools_name(self) -> str:
        return self._logger().name

    def _hook_logs(self) -> None:
        logger = self._logger()
        handler = logger.registered_handler
        own = logging.getLogger(logger.name)
        self._saved["log"] = (handler, handler.setStream(_LogSink(self)), logger.log_level,
                              own.propagate)
        own.propagate = False  # its lines go to Lambda's log through its own handler only
        counter = _WarningCounter(self)
        logging.getLogger().addHandler(counter)
        self._saved["warnings"] = counter

    def logged(self, size: int) -> None:
        invocation = _current.get()
        if invocation is not None:
            invocation.log_bytes += size
        else:
            self.outside_log_bytes += size

    def _hook_outbound(self) -> None:
        from stratus.core import outbound

        real = outbound.request
        self._saved["outbound"] = real

        def timed(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            invocation = _current.get()
            started, cpu = clocks()
            try:
                return real(method, url, *args, **kwargs)
            finally:
                if invocation is not None:
                    ended, cpu_ended = clocks()
                    invocation.calls.append(("http", started, ended, cpu, cpu_ended))
                    body = kwargs.get("body") or b""
                    invocation.outbound_bytes += len(body) + 400  # headers, signature

        outbound.request = timed

    # -- AWS calls -----------------------------------------------------------------------------
    def call_started(self, service: str, operation: str, params: dict[str, Any],
                     context: dict[str, Any]) -> None:
        started, cpu = clocks()
        state = self.meter.before(operation, params) if service == "dynamodb" else None
        now, cpu_now = clocks()
        invocation = _current.get()
        if invocation is not None:
            invocation.overhead += now - started
            invocation.overhead_cpu += cpu_now - cpu
        context["stratus.bench"] = (now, cpu_now, state, params)

    def call_ended(self, service: str, operation: str, parsed: dict[str, Any] | None,
                   context: dict[str, Any]) -> None:
        ended, cpu_ended = clocks()
        entry = context.pop("stratus.bench", None)
        if entry is None:
            return
        started, cpu_started, state, params = entry
        invocation = _current.get()
        if invocation is not None:
            invocation.calls.append((service, started, ended, cpu_started, cpu_ended))
        try:
            if parsed is None:  # no answer came (a connection error): nothing to charge
                return
            with self.lock:
                if service == "dynamodb" and state is not None:
                    charged = self.meter.after(operation, state, parsed)
                    if invocation is not None:
                        invocation.dynamodb += charged
                        invocation.dynamodb_calls += 1
                    else:
                        self.outside += charged
                elif service == "sqs":
                    self._count_sqs(operation, params, parsed, inside=invocation is not None)
                elif invocation is not None:
                    self._count_other(service, operation, params)
        finally:
            if invocation is not None:
                now, cpu_now = clocks()
                invocation.overhead += now - ended
                invocation.overhead_cpu += cpu_now - cpu_ended

    def _count_sqs(self, operation: str, params: dict[str, Any], parsed: dict[str, Any],
                   *, inside: bool) -> None:
        def chunks(size: int) -> int:
            return max(1, math.ceil(size / SQS_CHUNK))

        from local import emulator

        if str(params.get("QueueUrl", "")).rsplit("/", 1)[-1] in emulator.ASYNC_QUEUES.values():
            return  # the local stand-in for Lambda's own queue of asynchronous invocations
        if operation == "ReceiveMessage":
            messages = parsed.get("Messages") or []
            if not messages and not inside:
                return  # the poller's empty receives: a fixed cost (python -m bench idle)
            self.add("sqs", chunks(sum(len(m.get("Body", "").encode()) for m in messages)))
        elif not inside and operation == "DeleteMessage":
            self._poller_deletes += 1  # billed per batch by counted_pump_queue
        elif not inside and operation == "ChangeMessageVisibility":
            return  # the local poller's quick retry; Lambda lets the visibility timeout run out
        elif operation == "SendMessageBatch":
            self.add("sqs", chunks(sum(len(e.get("MessageBody", "").encode())
                                       for e in params.get("Entries", []))))
        elif operation == "SendMessage":
            self.add("sqs", chunks(len(params.get("MessageBody", "").encode())))
        else:
            self.add("sqs", 1)

    def _count_other(self, service: str, operation: str, params: dict[str, Any]) -> None:
        if service == "ses" and operation in ("SendRawEmail", "SendEmail"):
            self.add("emails", 1)
        elif service == "s3" and operation in ("PutObject", "CopyObject", "ListObjectsV2",
                                               "ListObjects", "CreateMultipartUpload"):
            self.add("s3_put", 1)
        elif service == "s3" and operation == "DeleteObject":
            pass  # free
        elif service == "s3":
            self.add("s3_get", 1)
        elif service == "secretsmanager":
            self.add("secrets", 1)
        elif service == "lambda" and operation == "Invoke":
            pass  # the invocation it makes is charged as a Lambda request where it runs
        elif service == "apigatewaymanagementapi" and operation == "PostToConnection":
            data = params.get("Data") or b""
            size = len(data.encode() if isinstance(data, str) else data)
            self.add("ws_messages", max(1, math.ceil(size / WEBSOCKET_CHUNK)))
            self.add("ws_bytes", size)
        elif service == "apigatewaymanagementapi":
            pass  # DeleteConnection, GetConnection: not billed as messages
        else:
            self.unpriced[f"{service}:{operation}"] += 1


def install() -> None:
    """Hook every boto3 client of the shared factory (once per process); the hooks do nothing
    unless a `Recorder` is active."""
    global _installed
    if _installed:
        return
    with _install_lock:
        if _installed:
            return
        from stratus.repo import client

        client.on_create(_attach)
        _installed = True


def _attach(made: Any) -> None:
    service = made.meta.service_model.service_name

    def started(params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if _active is not None:
            _active.call_started(service, model.name, params, context)

    def ended(context: dict[str, Any], event_name: str, model: Any = None,
              parsed: dict[str, Any] | None = None, **_: Any) -> None:
        # after-call-error (the request never got an answer) has no model: the event names it.
        if _active is not None:
            operation = model.name if model is not None else event_name.rsplit(".", 1)[-1]
            _active.call_ended(service, operation, parsed, context)

    made.meta.events.register("provide-client-params", started, unique_id="stratus-bench-start")
    made.meta.events.register("after-call", ended, unique_id="stratus-bench-end")
    made.meta.events.register("after-call-error", ended, unique_id="stratus-bench-error")


# ------------------------------------------------------------------------------- the requests
def request(runtime: Any, method: str, path: str, *, token: str | None = None,
            query: str = "", data: dict[str, Any] | None = None, ip: str = "127.0.0.1"
            ) -> tuple[int, dict[str, str], Any]:
    """One request through the local API Gateway."""
    body = urlencode(data or {}, doseq=True).encode()
    headers = [(b"host", b"localhost:8000"),
               (b"content-type", b"application/x-www-form-urlencoded")]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "headers": headers, "client": (ip, 40000)}
    status, response_headers, payload = runtime.gateway.handle(scope, body)
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = None
    return status, {k.decode(): v.decode() for k, v in response_headers}, parsed


@dataclass
class Person:
    account_id: str
    token: str
    viewer: Any


@contextmanager
def quick_password_hashes() -> Iterator[None]:
    """Accounts made for the bench never sign in with their password: hash it with the cheapest
    Argon2 parameters (the default ones take ~0.4 s each here). Sign-ups measured in the mix go
    through the real hasher."""
    from argon2 import PasswordHasher
    from stratus.auth import passwords

    saved = passwords._hasher  # noqa: SLF001 - a bench fixture, restored below
    passwords._hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # noqa: SLF001
    try:
        yield
    finally:
        passwords._hasher = saved  # noqa: SLF001


def people(prefix: str, count: int) -> tuple[list[Person], dict[str, Any]]:
    """`count` confirmed accounts with read/write tokens of one app, made through the services."""
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.auth import identity
    from stratus.repo import oauth as oauth_repo

    app, _ = oauth.create_app(f"{prefix} bench", "urn:ietf:wg:oauth:2.0:oob", "read write", None)
    found = []
    for i in range(count):
        with quick_password_hashes():
            account_id, _ = operator.operator_create(f"{prefix}{i}", f"{prefix}{i}@example.org",
                                                     "bench password 1", role=None,
                                                     confirmed=True)
        token, raw = oauth.new_token(app, account_id, ["read", "write"])
        oauth_repo.put_token(token)
        found.append(Person(account_id, raw, identity.viewer_for_token(raw)))
    return found, app


def app_token(app: dict[str, Any]) -> str:
    """A client-credentials token (what a client signs up with)."""
    from stratus.api.oauth import oauth
    from stratus.repo import oauth as oauth_repo

    token, raw = oauth.new_token(app, None, ["read", "write"])
    oauth_repo.put_token(token)
    return raw


TEXT = ("Watching the tide come in over the mudflats this morning, the light doing that thing "
        "again where everything looks painted. Coffee, then the long walk round. #{tag}")


# ---------------------------------------------------------------------------------- contention
def contention(runtime: Any, fans: int = 100) -> dict[str, Any]:
    """`fans` accounts like one status at once (32 threads through the local API Gateway)."""
    from stratus.api.statuses import post as posting
    from stratus.repo import statuses as statuses_repo

    crowd, _ = people("fan", fans + 1)
    author, crowd = crowd[0], crowd[1:]
    sid = posting.create(author.viewer, {"status": "going viral"})
    runtime.pipeline.drain()
    path = f"/api/v1/statuses/{sid}/favourite"

    def like(person: Person) -> int | str:
        try:
            return request(runtime, "POST", path, token=person.token)[0]
        except Exception as exc:  # noqa: BLE001 - an unanswered request is what we count
            return type(exc).__name__

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=32) as pool:
        answers = list(pool.map(like, crowd))
    wall = time.perf_counter() - started
    started = time.perf_counter()
    runtime.pipeline.drain()
    drained = time.perf_counter() - started
    count = statuses_repo.get(sid)["stats"]["favourites_count"]
    codes = Counter(answers)
    result = {"requests": fans, "answered": sum(isinstance(a, int) for a in answers),
              "ok": codes.get(200, 0),
              "5xx": sum(n for a, n in codes.items() if isinstance(a, int) and a >= 500),
              "final_count": count, "wall_s": wall, "drain_s": drained, "answers": dict(codes)}
    print(f"\n{fans} concurrent favourites of one status (32 threads, local API Gateway): "
          f"{result['answered']} answered, {result['ok']} × 200, {result['5xx']} × 5xx, "
          f"favourites_count after the pipeline drained: {count}; wall {wall:.2f} s "
          f"(drain {drained:.2f} s)")
    return result


# --------------------------------------------------------------------------- filtered listings
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                       "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")  # one pixel


class _Upload:
    def __init__(self, data: bytes) -> None:
        self.file = io.BytesIO(data)


def history(person: Person, media: list[bool]) -> None:
    """Statuses oldest first, the ones marked True with an image attached."""
    from stratus.api.media import media as media_service
    from stratus.api.statuses import post as posting

    for i, with_media in enumerate(media):
        params: dict[str, Any] = {"status": f"entry {i}"}
        if with_media:
            entity, _ = media_service.upload(person.viewer, _Upload(PNG), None, None)
            params["media_ids"] = [entity["id"]]
        posting.create(person.viewer, params)


HISTORIES = [
    ("dense: 50 of 60 have media (newest 10 not)", [True] * 50 + [False] * 10),
    ("sparse: 50 of 1,000 have media (1 in 20)", [i % 20 == 0 for i in range(1000)]),
]


def filtered_listings(runtime: Any, histories: list[tuple[str, list[bool]]] | None = None
                      ) -> dict[str, Any]:
    """One `only_media=true&limit=40` page of each history (`HISTORIES`: oldest status first,
    True where it has media), read by another account."""
    from stratus.repo.client import dynamodb

    histories = histories or HISTORIES
    authors, _ = people("lister", len(histories) + 1)
    reader = authors.pop()
    for author, (_, media) in zip(authors, histories):
        history(author, media)
    meter = capacity.Meter()
    results = {}
    print("\nGET /api/v1/accounts/:id/statuses?only_media=true&limit=40")
    print(f"{'history':44} {'statuses':>8} {'DDB calls':>9} {'by operation':>36} "
          f"{'examined':>8} {'RRU':>6} {'of it: index':>12} {'on misses':>9} {'next':>5}")
    for person, (name, _) in zip(authors, histories):
        charges: list[tuple[str, capacity.Charge]] = []
        meter.attach(dynamodb(), lambda operation, charged: charges.append((operation, charged)))
        try:
            status, headers, body = request(runtime, "GET",
                                            f"/api/v1/accounts/{person.account_id}/statuses",
                                            token=reader.token, query="only_media=true&limit=40")
        finally:
            meter.detach(dynamodb())
        assert status == 200, status
        total = capacity.Charge()
        for _, charged in charges:
            total += charged
        calls = Counter(operation for operation, _ in charges)
        index_read = sum(c.read for operation, c in charges if operation == "Query")
        linked = 'rel="next"' in headers.get("link", "")
        by_op = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
        print(f"{name:44} {len(body):8d} {len(charges):9d} {by_op:>36} {total.examined:8d} "
              f"{total.read:6.1f} {index_read:12.1f} {total.missed:9.1f} "
              f"{'yes' if linked else 'no':>5}")
        results[name] = {"statuses": len(body), "calls": dict(calls), "examined": total.examined,
                         "read_units": total.read, "index_read_units": index_read,
                         "missed_read_units": total.missed,
                         "next": linked}
    return results


# ----------------------------------------------------------------------------------- entry points
def run(runtime: Any) -> dict[str, Any]:
    """`make bench`'s part: contention, then filtered listings (moto's Query walks its partition
    or index, so the data each step adds slows the next a little)."""
    import warnings

    # Powertools warns of empty metrics at each flush; metrics are off in the local stack.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    return {"contention": contention(runtime), "filtered": filtered_listings(runtime)}


def start_emulator() -> tuple[Any, Any]:
    """The stack against a moto server in this process (as `make bench` runs it)."""
    os.environ.update(POWERTOOLS_SERVICE_NAME="bench", POWERTOOLS_METRICS_DISABLED="true",
                      POWERTOOLS_TRACE_DISABLED="true", POWERTOOLS_LOG_LEVEL="WARNING")
    from moto.server import ThreadedMotoServer
    from werkzeug.serving import WSGIRequestHandler

    from local.emulator import prepare
    from local.runtime import AWS_DEFAULTS, STATE_DIR, start

    for key, value in AWS_DEFAULTS.items():
        os.environ.setdefault(key, value)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    emulator = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    WSGIRequestHandler.log_request = lambda *args, **kwargs: None
    prepare()
    emulator.start()
    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
    runtime = start("localhost:8000", "http://localhost:8000",
                    mail_dir=STATE_DIR / "bench-mail",
                    extra_env={"POWERTOOLS_LOG_LEVEL": "WARNING",
                               "POWERTOOLS_SERVICE_NAME": "bench"})
    return runtime, emulator
