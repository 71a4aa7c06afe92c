"""`make bench`, second part: likes under contention, filtered listings, and what a realistic
mix of requests costs on AWS (docs/performance.md, "Cost per million requests").

- **Contention**: 100 accounts like one status at once through the local API Gateway (32
  threads); requests answered, 5xx, the count once the pipeline has drained, wall time.
- **Filtered listings**: DynamoDB round trips, entries examined and read units of
  `GET /api/v1/accounts/:id/statuses?only_media=true&limit=40` in a history where most statuses
  match and in a sparse one (1 in 20 of 1,000).
- **Cost of a request mix** (`MIX`): every Lambda invocation it causes (HTTP functions and the
  workers behind the stream and the queues) is timed; every DynamoDB call is charged the request
  units DynamoDB would charge (local/capacity.py); SQS requests are counted as SQS bills them;
  prices (`PRICES`) turn that into dollars per million API requests.

Run alone with `python -m local.bench costs`.
"""

from __future__ import annotations

import base64
import contextvars
import io
import json
import math
import os
import random
import socket
import statistics
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from . import capacity, cfn

# ------------------------------------------------------------------------------------- prices
# us-east-1, on-demand, no free tier; checked 2026-11-22 (sources in docs/performance.md).
PRICES = {
    "lambda_gb_second": 0.0000133334,   # arm64, first 7.5 billion GB-s a month
    "lambda_request": 0.20 / 1e6,
    "dynamodb_read_unit": 0.125 / 1e6,   # on-demand read request unit (since 2024-11-01)
    "dynamodb_write_unit": 0.625 / 1e6,  # on-demand write request unit
    "sqs_request": 0.40 / 1e6,           # standard queue, per 64 KB chunk of payload
    "http_api_request": 1.00 / 1e6,      # HTTP API, first 300 million, per 512 KB
    "ses_email": 0.10 / 1000,
    "s3_put": 0.005 / 1000,              # PUT, COPY, POST, LIST
    "s3_get": 0.0004 / 1000,             # GET and others
    "secrets_call": 0.05 / 10000,
}
SQS_CHUNK = 64 * 1024
# Typical latency of one call from Lambda, for the corrected variant (an assumption, stated in
# docs/performance.md): DynamoDB single-digit milliseconds, the others somewhat slower.
TYPICAL_LATENCY = {"dynamodb": 0.004, "sqs": 0.008, "s3": 0.015, "ses": 0.030,
                   "secretsmanager": 0.015, "scheduler": 0.020}
DEFAULT_LATENCY = 0.010
FULL_VCPU_MB = 1769  # Lambda gives a function one full vCPU at 1,769 MB, proportionally less below

# What a Mastodon client does, per 100 API requests (endpoints the stack serves today): reads
# dominate, as in any social app; timelines and notifications are not built yet, so an author's
# statuses page stands in for timeline reads.
MIX = [
    ("GET /api/v1/statuses/:id", 20),
    ("GET /api/v1/accounts/:id/statuses?limit=20", 20),
    ("GET /api/v1/statuses/:id/context", 15),
    ("GET /api/v1/accounts/:id", 10),
    ("GET /api/v1/accounts/verify_credentials", 10),
    ("GET /api/v2/instance", 5),
    ("GET /api/v1/favourites", 5),
    ("POST /api/v1/statuses/:id/favourite", 6),
    ("POST /api/v1/statuses", 5),
    ("POST /api/v1/statuses/:id/reblog", 3),
    ("POST /api/v1/accounts (sign-up)", 1),
]
MIX_ROUNDS = 2  # measured passes of the 100-request mix (after one warm-up pass)

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                       "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")  # one pixel


# ------------------------------------------------------------------------------------ recording
@dataclass
class Invocation:
    function: str
    memory_mb: int
    label: str | None  # the mix entry an HTTP invocation served
    wall: float = 0.0
    overhead: float = 0.0  # the recorder's own work inside the invocation
    calls: list[tuple[str, float]] = field(default_factory=list)  # (service, seconds)
    dynamodb: capacity.Charge = field(default_factory=capacity.Charge)
    dynamodb_calls: int = 0

    @property
    def aws_seconds(self) -> float:
        return sum(seconds for _, seconds in self.calls)

    @property
    def measured(self) -> float:
        return max(self.wall - self.overhead, 0.0)

    @property
    def own(self) -> float:
        """Time in the function's own code (Python, botocore's serialising included)."""
        return max(self.wall - self.overhead - self.aws_seconds, 0.0)

    def corrected(self, *, cpu_scaled: bool = False) -> float:
        latency = sum(TYPICAL_LATENCY.get(service, DEFAULT_LATENCY) for service, _ in self.calls)
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


class Recorder:
    """While active: times every Lambda invocation of `runtime`, attributes each AWS call to the
    invocation that made it, charges DynamoDB calls their request units and counts SQS, SES, S3
    and Secrets Manager requests as those services bill them."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.memory = memory_sizes(runtime.stack.template)
        self.meter = capacity.Meter(
            capacity.tables_from_template(runtime.stack.template, runtime.stack.table_names),
            capacity.MotoStore(cfn.ACCOUNT, cfn.REGION))
        self.invocations: list[Invocation] = []
        self.label: str | None = None
        self.api_requests = 0
        self.lock = threading.Lock()
        self.outside = capacity.Charge()  # DynamoDB work no invocation made (should be none)
        self.moto_reported = 0.0
        self.sqs_billed = 0
        self._poller_deletes = 0
        self.emails = 0
        self.s3_put = self.s3_get = 0
        self.secrets = 0
        self.unpriced: Counter[str] = Counter()

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
                http = isinstance(event, dict) and "requestContext" in event
                invocation = Invocation(logical_id, self.memory.get(logical_id, 512),
                                        self.label if http else None)
                token = _current.set(invocation)
                started = time.perf_counter()
                try:
                    return real(event, context)
                finally:
                    invocation.wall = time.perf_counter() - started
                    _current.reset(token)
                    with self.lock:
                        self.invocations.append(invocation)
            return timed

        def counted_pump_queue(source: Any) -> int:
            before = self._poller_deletes
            done = pump_queue(source)
            # Lambda's poller deletes a batch with DeleteMessageBatch (ten per request).
            self.sqs_billed += math.ceil((self._poller_deletes - before) / 10)
            return done

        stack.handler = handler
        pipeline.pump_queue = counted_pump_queue
        _active = self
        return self

    def __exit__(self, *exc: Any) -> None:
        global _active
        _active = None
        del self.runtime.stack.handler
        del self.runtime.pipeline.pump_queue

    # -- AWS calls -----------------------------------------------------------------------------
    def call_started(self, service: str, operation: str, params: dict[str, Any],
                     context: dict[str, Any]) -> None:
        started = time.perf_counter()
        state = self.meter.before(operation, params) if service == "dynamodb" else None
        now = time.perf_counter()
        invocation = _current.get()
        if invocation is not None:
            invocation.overhead += now - started
        context["stratus.bench"] = (now, state, params)

    def call_ended(self, service: str, operation: str, parsed: dict[str, Any] | None,
                   context: dict[str, Any]) -> None:
        ended = time.perf_counter()
        entry = context.pop("stratus.bench", None)
        if entry is None:
            return
        started, state, params = entry
        invocation = _current.get()
        if invocation is not None:
            invocation.calls.append((service, ended - started))
        if parsed is None:  # no answer came (a connection error): nothing to charge
            return
        with self.lock:
            if service == "dynamodb" and state is not None:
                charged = self.meter.after(operation, state, parsed)
                self.moto_reported += capacity.reported_units(parsed)
                if invocation is not None:
                    invocation.dynamodb += charged
                    invocation.dynamodb_calls += 1
                else:
                    self.outside += charged
            elif service == "sqs":
                self._count_sqs(operation, params, parsed, inside=invocation is not None)
            elif invocation is not None:
                self._count_other(service, operation)
        if invocation is not None:
            invocation.overhead += time.perf_counter() - ended

    def _count_sqs(self, operation: str, params: dict[str, Any], parsed: dict[str, Any],
                   *, inside: bool) -> None:
        def chunks(size: int) -> int:
            return max(1, math.ceil(size / SQS_CHUNK))

        if operation == "ReceiveMessage":
            messages = parsed.get("Messages") or []
            if not messages and not inside:
                return  # the poller's empty receives: a fixed cost, not per request (see docs)
            self.sqs_billed += chunks(sum(len(m.get("Body", "").encode()) for m in messages))
        elif not inside and operation == "DeleteMessage":
            self._poller_deletes += 1  # billed per batch by counted_pump_queue
        elif not inside and operation == "ChangeMessageVisibility":
            return  # the local poller's quick retry; Lambda lets the visibility timeout run out
        elif operation == "SendMessageBatch":
            self.sqs_billed += chunks(sum(len(e.get("MessageBody", "").encode())
                                          for e in params.get("Entries", [])))
        elif operation == "SendMessage":
            self.sqs_billed += chunks(len(params.get("MessageBody", "").encode()))
        else:
            self.sqs_billed += 1

    def _count_other(self, service: str, operation: str) -> None:
        if service == "ses" and operation in ("SendRawEmail", "SendEmail"):
            self.emails += 1
        elif service == "s3" and operation in ("PutObject", "CopyObject", "ListObjectsV2",
                                               "ListObjects", "CreateMultipartUpload"):
            self.s3_put += 1
        elif service == "s3" and operation == "DeleteObject":
            pass  # free
        elif service == "s3":
            self.s3_get += 1
        elif service == "secretsmanager":
            self.secrets += 1
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


# ----------------------------------------------------------------------------------- the costs
@dataclass
class Costs:
    api_requests: int
    invocations: int
    gb_seconds: float
    read_units: float
    write_units: float
    sqs_requests: int
    emails: int
    s3_put: int
    s3_get: int
    secrets: int

    def dollars(self) -> dict[str, float]:
        p = PRICES
        return {"Lambda compute": self.gb_seconds * p["lambda_gb_second"],
                "Lambda requests": self.invocations * p["lambda_request"],
                "DynamoDB reads": self.read_units * p["dynamodb_read_unit"],
                "DynamoDB writes": self.write_units * p["dynamodb_write_unit"],
                "SQS": self.sqs_requests * p["sqs_request"],
                "API Gateway (HTTP API)": self.api_requests * p["http_api_request"],
                "SES, S3, Secrets Manager": (self.emails * p["ses_email"]
                                             + self.s3_put * p["s3_put"]
                                             + self.s3_get * p["s3_get"]
                                             + self.secrets * p["secrets_call"])}

    def per_million(self) -> dict[str, float]:
        return {k: v / self.api_requests * 1e6 for k, v in self.dollars().items()}


def gb_seconds(invocations: list[Invocation], duration) -> float:
    """Lambda bills each invocation's duration rounded up to the millisecond."""
    return sum(math.ceil(duration(i) * 1000) / 1000 * i.memory_mb / 1024 for i in invocations)


def costs(recorder: Recorder, duration) -> Costs:
    charges = [i.dynamodb for i in recorder.invocations] + [recorder.outside]
    return Costs(recorder.api_requests, len(recorder.invocations),
                 gb_seconds(recorder.invocations, duration),
                 sum(c.read for c in charges), sum(c.write + c.index_write for c in charges),
                 recorder.sqs_billed, recorder.emails, recorder.s3_put, recorder.s3_get,
                 recorder.secrets)


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


class Community:
    """Twenty accounts with a few statuses, threads and likes each: what the mix reads and
    writes."""

    def __init__(self, runtime: Any, size: int = 20) -> None:
        from stratus.api.statuses import interactions
        from stratus.api.statuses import post as posting

        self.runtime = runtime
        self.members, self.app = people("mix", size)
        self.statuses: list[tuple[str, str]] = []  # (status id, author id)
        self.threads: list[str] = []
        for n, person in enumerate(self.members):
            for i in range(5):
                sid = posting.create(person.viewer, {"status": TEXT.format(tag=f"walk{i}")})
                self.statuses.append((sid, person.account_id))
            if n % 4 == 0:
                root = parent = self.statuses[-1][0]
                for j in range(6):
                    replier = self.members[(n + j + 1) % size]
                    parent = posting.create(replier.viewer, {"status": f"Reply {j}: lovely.",
                                                              "in_reply_to_id": parent})
                self.threads.append(root)
        rng = random.Random(11)
        for person in self.members:
            for sid, _ in rng.sample(self.statuses, 3):
                interactions.favourite(person.viewer, sid)
        runtime.pipeline.drain()
        self.rng = random.Random(7)
        self.liked: set[tuple[str, str]] = set()
        # A client signs up with a client-credentials token it got from /oauth/token before;
        # they are made here, outside the measured requests.
        self.app_tokens = [app_token(self.app) for _ in range(10)]
        self.signups = 0
        self.posts = 0

    def someone(self) -> Person:
        return self.rng.choice(self.members)

    def fresh_pair(self, exclude_own: bool) -> tuple[Person, str]:
        while True:
            person, (sid, author) = self.someone(), self.rng.choice(self.statuses)
            if (person.account_id, sid) in self.liked or (exclude_own and author ==
                                                          person.account_id):
                continue
            self.liked.add((person.account_id, sid))
            return person, sid

    def send(self, label: str) -> int:
        """One request of the mix; returns its HTTP status."""
        rt, who = self.runtime, self.someone()
        sid, author = self.rng.choice(self.statuses)
        if label == "GET /api/v1/statuses/:id":
            return request(rt, "GET", f"/api/v1/statuses/{sid}", token=who.token)[0]
        if label == "GET /api/v1/accounts/:id/statuses?limit=20":
            return request(rt, "GET", f"/api/v1/accounts/{author}/statuses", token=who.token,
                           query="limit=20")[0]
        if label == "GET /api/v1/statuses/:id/context":
            root = self.rng.choice(self.threads)
            return request(rt, "GET", f"/api/v1/statuses/{root}/context", token=who.token)[0]
        if label == "GET /api/v1/accounts/:id":
            return request(rt, "GET", f"/api/v1/accounts/{author}", token=who.token)[0]
        if label == "GET /api/v1/accounts/verify_credentials":
            return request(rt, "GET", "/api/v1/accounts/verify_credentials", token=who.token)[0]
        if label == "GET /api/v2/instance":
            return request(rt, "GET", "/api/v2/instance")[0]
        if label == "GET /api/v1/favourites":
            return request(rt, "GET", "/api/v1/favourites", token=who.token)[0]
        if label == "POST /api/v1/statuses/:id/favourite":
            person, sid = self.fresh_pair(exclude_own=False)
            return request(rt, "POST", f"/api/v1/statuses/{sid}/favourite",
                           token=person.token)[0]
        if label == "POST /api/v1/statuses/:id/reblog":
            person, sid = self.fresh_pair(exclude_own=True)
            return request(rt, "POST", f"/api/v1/statuses/{sid}/reblog", token=person.token)[0]
        if label == "POST /api/v1/statuses":
            self.posts += 1
            status, _, body = request(rt, "POST", "/api/v1/statuses", token=who.token,
                                      data={"status": TEXT.format(tag=f"new{self.posts}")})
            if status == 200:
                self.statuses.append((body["id"], who.account_id))
            return status
        if label == "POST /api/v1/accounts (sign-up)":
            self.signups += 1
            n = self.signups
            token = self.app_tokens.pop() if self.app_tokens else app_token(self.app)
            return request(rt, "POST", "/api/v1/accounts", token=token,
                           ip=f"198.51.100.{n % 250 + 1}",
                           data={"username": f"newcomer{n}", "email": f"newcomer{n}@example.org",
                                 "password": "a long enough password", "agreement": "true",
                                 "locale": "en"})[0]
        raise ValueError(label)


def mix_order(seed: int = 3) -> list[str]:
    order = [label for label, weight in MIX for _ in range(weight)]
    random.Random(seed).shuffle(order)
    return order


@dataclass
class MixResult:
    recorder: Recorder
    statuses: dict[str, Counter]
    seconds: float


def run_mix(runtime: Any, community: Community, *, rounds: int = MIX_ROUNDS,
            drain_every: int = 1, order: list[str] | None = None, warm: bool = True
            ) -> MixResult:
    """Warm every function with one unmeasured pass, then measure `rounds` passes of the mix
    (`order`: one pass, default `mix_order()`), draining the pipeline after every `drain_every`
    requests (1: each event is its own worker invocation, as at low traffic, where every poll of
    the stream or a queue finds one record)."""
    if warm:
        for label in order or mix_order(seed=1):
            community.send(label)
        runtime.pipeline.drain()
    answers: dict[str, Counter] = defaultdict(Counter)
    started = time.perf_counter()
    with Recorder(runtime) as recorder:
        for r in range(rounds):
            for i, label in enumerate(order or mix_order(seed=100 + r)):
                recorder.label = label
                answers[label][community.send(label)] += 1
                recorder.api_requests += 1
                recorder.label = None
                if (i + 1) % drain_every == 0:
                    runtime.pipeline.drain()
        runtime.pipeline.drain()
    return MixResult(recorder, answers, time.perf_counter() - started)


# ------------------------------------------------------------------------------------ reports
def _dollars(value: float) -> str:
    return f"{value:8.2f}"


def report_mix(result: MixResult) -> dict[str, Any]:
    recorder = result.recorder
    variants = {
        "measured": lambda i: i.measured,
        "corrected": lambda i: i.corrected(),
        "corrected, CPU-scaled": lambda i: i.corrected(cpu_scaled=True),
    }
    per_million = {name: costs(recorder, fn).per_million() for name, fn in variants.items()}
    n = recorder.api_requests
    invocations = recorder.invocations
    print(f"\nCost of the request mix: {n} API requests ({len(MIX)} kinds, per 100: "
          + ", ".join(f"{label} {w}" for label, w in MIX) + ")")
    bad = {label: dict(c) for label, c in result.statuses.items()
           if set(c) - {200}}
    if bad:
        print(f"  answers other than 200: {bad}")
    print(f"{'request':45} {'n':>4} {'measured ms':>12} {'corrected ms':>13} "
          f"{'DDB calls':>10} {'RRU':>6} {'WRU':>6}")
    by_label: dict[str, list[Invocation]] = defaultdict(list)
    for inv in invocations:
        if inv.label:
            by_label[inv.label].append(inv)
    for label, _ in MIX:
        group = by_label.get(label, [])
        if not group:
            continue
        print(f"{label:45} {len(group):4d} "
              f"{statistics.median(i.measured for i in group) * 1000:12.1f} "
              f"{statistics.median(i.corrected() for i in group) * 1000:13.1f} "
              f"{statistics.mean(i.dynamodb_calls for i in group):10.1f} "
              f"{statistics.mean(i.dynamodb.read for i in group):6.1f} "
              f"{statistics.mean(i.dynamodb.write + i.dynamodb.index_write for i in group):6.1f}")
    workers: dict[str, list[Invocation]] = defaultdict(list)
    for inv in invocations:
        if inv.label is None:
            workers[inv.function].append(inv)
    print(f"{'worker invocations':45} {'n':>4} {'measured ms':>12} {'corrected ms':>13} "
          f"{'DDB calls':>10} {'RRU':>6} {'WRU':>6}")
    for function, group in sorted(workers.items()):
        print(f"{function:45} {len(group):4d} "
              f"{statistics.median(i.measured for i in group) * 1000:12.1f} "
              f"{statistics.median(i.corrected() for i in group) * 1000:13.1f} "
              f"{statistics.mean(i.dynamodb_calls for i in group):10.1f} "
              f"{statistics.mean(i.dynamodb.read for i in group):6.1f} "
              f"{statistics.mean(i.dynamodb.write + i.dynamodb.index_write for i in group):6.1f}")
    reads = sum(i.dynamodb.read for i in invocations) + recorder.outside.read
    missed = sum(i.dynamodb.missed for i in invocations) + recorder.outside.missed
    writes = sum(i.dynamodb.write for i in invocations) + recorder.outside.write
    index_writes = sum(i.dynamodb.index_write for i in invocations) + recorder.outside.index_write
    aws_share = sum(i.aws_seconds for i in invocations) / max(
        sum(i.measured for i in invocations), 1e-9)
    print(f"per API request: {len(invocations) / n:.2f} Lambda invocations, "
          f"{reads / n:.2f} read units ({missed / n:.2f} of them on keys that found no item), "
          f"{writes / n:.2f} write units "
          f"(+ {index_writes / n:.2f} to GSIs), {recorder.sqs_billed / n:.2f} SQS requests; "
          f"emulator calls are {aws_share:.0%} of measured handler time; the emulator itself "
          f"reported {recorder.moto_reported / n:.2f} capacity units per request (its constants)")
    if recorder.unpriced:
        print(f"  calls not priced: {dict(recorder.unpriced)}")
    print("\nDollars per million API requests of the mix (us-east-1 on-demand prices)")
    print(f"{'':26}" + "".join(f"{name:>24}" for name in variants))
    for item in next(iter(per_million.values())):
        print(f"{item:26}" + "".join(f"{_dollars(pm[item]):>24}" for pm in per_million.values()))
    print(f"{'total':26}" + "".join(f"{_dollars(sum(pm.values())):>24}"
                                    for pm in per_million.values()))
    return {"per_million": per_million, "invocations_per_request": len(invocations) / n,
            "read_units_per_request": reads / n, "missed_read_units_per_request": missed / n,
            "write_units_per_request": (writes + index_writes) / n,
            "sqs_per_request": recorder.sqs_billed / n}


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
    meter = capacity.Meter(
        capacity.tables_from_template(runtime.stack.template, runtime.stack.table_names),
        capacity.MotoStore(cfn.ACCOUNT, cfn.REGION))
    results = {}
    print("\nGET /api/v1/accounts/:id/statuses?only_media=true&limit=40")
    print(f"{'history':44} {'statuses':>8} {'DDB calls':>9} {'by operation':>36} "
          f"{'examined':>8} {'RRU':>6} {'of it: index':>12} {'on misses':>9} {'next':>5}")
    for person, (name, _) in zip(authors, histories):
        charges: list[tuple[str, capacity.Charge]] = []
        meter.attach(dynamodb(), lambda operation, charged, _: charges.append((operation, charged)))
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
    """The three parts, smallest table first (moto's Query walks the whole table, so its latency
    grows with the data the later parts add)."""
    import warnings

    # Powertools warns of empty metrics at each flush; metrics are off in the local stack.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    community = Community(runtime)
    mix = report_mix(run_mix(runtime, community))
    return {"mix": mix, "contention": contention(runtime),
            "filtered": filtered_listings(runtime)}


def start_emulator() -> tuple[Any, Any]:
    """The stack against a moto server in this process (as `make bench` runs it)."""
    os.environ.update(POWERTOOLS_SERVICE_NAME="bench", POWERTOOLS_METRICS_DISABLED="true",
                      POWERTOOLS_TRACE_DISABLED="true", POWERTOOLS_LOG_LEVEL="WARNING")
    from moto.server import ThreadedMotoServer
    from werkzeug.serving import WSGIRequestHandler

    from .emulator import prepare
    from .runtime import AWS_DEFAULTS, STATE_DIR, start

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


def main() -> None:
    """`python -m local.bench costs`: this part alone, against its own emulator."""
    runtime, emulator = start_emulator()
    try:
        run(runtime)
    finally:
        emulator.stop()


if __name__ == "__main__":
    main()
