"""Pricing of `python -m bench cost` (bench/cost.py): what the measured events cost by service,
their means and mixes, and a month of an instance (cold starts, X-Ray sampling, connection-
minutes) billed pay-per-request or with provisioned capacity.

**An event** (`PerEvent`) is one request of a kind and everything it caused, averaged over the
kind's samples: dollars by service that do not depend on the instance's size, and what the
size-dependent parts are computed from (invocations and durations by function for cold starts,
trace roots for X-Ray). Events mix linearly (`blend`, a weighted mean; `combine`, any linear
combination: an event of a kind at another number of receivers is the measured event plus the
difference in receivers times the measured cost of one more receiver).

**A month** (`month`): the events a month of `mau` MAU sends (the profile's counts: bench/
profile.py) at their prices, plus Lambda INIT and Secrets Manager reads at each function's cold
starts (`cold_starts`: Poisson arrivals against the idle lifetime, and busy environments
recycled), X-Ray traces recorded (Lambda's sampling: one a second, then 5 %), connection-minutes,
and the storage line's bill for the month (bench/storage.py). `provisioned` replaces DynamoDB's
request units by the capacity they need: each month's units per second over auto scaling's
target utilisation (70 %), priced per capacity-unit hour (`PROVISIONED`; the free tier's 25 WCU
and 25 RCU, always free, apply to one account's provisioned tables and are shown apart).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import costs
from .costs import PRICES, Invocation
from .profile import DAYS_PER_MONTH, Profile

SECONDS_PER_MONTH = DAYS_PER_MONTH * 86400
SESSION_MINUTES = 10  # API Gateway closes a WebSocket idle for 10 minutes; clients reconnect
INIT_SECONDS = 1.0  # a cold start's INIT, billed (issue #22 measured 0.7-1.3 s with tracing on)
IDLE_LIFETIME = 45 * 60  # an idle environment is kept 45-60 min (Yan Cui's measurements)
RECYCLE_SECONDS = 2 * 3600  # and recycled after ~4 h even when busy (half, to be safe)
COLD_START_LOG_BYTES = 700  # INIT_START, the EMF ColdStart line, Powertools' empty-metrics warning
XRAY_RESERVOIR = 1.0  # traces a second Lambda records before the fixed rate (not configurable)
XRAY_RATE = 0.05
ROOTS = ("http", "websocket", "stream", "schedule")  # invocations that start a trace
# Provisioned capacity, us-east-1 (DynamoDB pricing, "Provisioned capacity"): per unit-hour.
PROVISIONED = {"wcu_hour": 0.00065, "rcu_hour": 0.00013}
TARGET_UTILISATION = 0.70  # auto scaling's target: capacity = consumed / 0.7
MIN_UNITS = 8  # auto scaling's minimum, 1 unit per table and index (4 tables, 4 GSIs)
FREE_TIER_UNITS = 25  # WCU and RCU of provisioned capacity free every month (the free tier)
DYNAMODB_REQUESTS = ("DynamoDB reads", "DynamoDB writes (tables)", "DynamoDB writes (GSIs)")


# ------------------------------------------------------------------------------------- pricing
def _resolve(value: Any, template: dict[str, Any]) -> Any:
    """A template value with the parameters at their defaults: Ref, Fn::If, Fn::Equals, Fn::Not
    (what Tracing or an environment variable may be made of)."""
    params = {k: v.get("Default") for k, v in template.get("Parameters", {}).items()}
    if isinstance(value, dict) and len(value) == 1:
        (name, arg), = value.items()
        if name == "Ref":
            return params.get(arg, arg)
        if name == "Fn::If":
            condition = template.get("Conditions", {}).get(arg[0])
            return _resolve(arg[1] if _resolve(condition, template) else arg[2], template)
        if name == "Fn::Equals":
            return str(_resolve(arg[0], template)) == str(_resolve(arg[1], template))
        if name == "Fn::Not":
            return not _resolve(arg[0], template)
        if name == "Condition":
            return _resolve(template.get("Conditions", {}).get(arg), template)
    return value


@dataclass(frozen=True)
class Deployment:
    """What the template says that prices depend on, per function."""

    memory: dict[str, int]
    traced: dict[str, bool]  # Tracing: Active
    secret: dict[str, bool]  # holds the instance secret's ARN (reads it once per environment)

    @classmethod
    def of(cls, template: dict[str, Any]) -> Deployment:
        shared = template.get("Globals", {}).get("Function", {})
        shared_env = (shared.get("Environment") or {}).get("Variables") or {}
        traced, secret = {}, {}
        for name, res in template["Resources"].items():
            if res.get("Type") != "AWS::Serverless::Function":
                continue
            props = res.get("Properties", {})
            tracing = _resolve(props.get("Tracing", shared.get("Tracing", "PassThrough")),
                               template)
            traced[name] = tracing == "Active"
            env = {**shared_env, **((props.get("Environment") or {}).get("Variables") or {})}
            secret[name] = "INSTANCE_SECRET_ARN" in env
        return cls(costs.memory_sizes(template), traced, secret)


DURATIONS = {
    "measured": lambda i: i.measured,
    "corrected": lambda i: i.corrected(),
    "corrected, CPU-scaled": lambda i: i.corrected(cpu_scaled=True),
}
HEADLINE = "corrected, CPU-scaled"


@dataclass
class PerEvent:
    """One event of a kind (a request and what it causes, or a reconnection), averaged over
    its samples: dollars by service that do not depend on the instance's size, and what the
    size-dependent parts (cold starts, X-Ray) are computed from."""

    dollars: dict[str, float]
    compute: dict[str, float]  # Lambda compute by duration variant
    invocations: Counter[str]  # by function
    seconds: dict[str, float]  # mean billed duration by function (the headline variant)
    roots: dict[str, float]  # trace roots, by function
    http_requests: float
    read_units: float
    write_units: float
    log_bytes: float
    # by function: Lambda (requests and compute, the headline variant) and DynamoDB dollars
    lambda_by_function: dict[str, float] = field(default_factory=dict)
    dynamodb_by_function: dict[str, float] = field(default_factory=dict)

    @staticmethod
    def of(measured: Any) -> PerEvent:
        """From a kind's `mix.Measured`: its samples' invocations and counts."""
        n = max(measured.samples, 1)
        invocations = measured.invocations
        counts = measured.counts
        p = PRICES

        def gb_seconds(duration: Callable[[Invocation], float]) -> float:
            return sum(math.ceil(duration(i) * 1000) / 1000 * i.memory_mb / 1024
                       for i in invocations)

        reads = sum(i.dynamodb.read for i in invocations) + measured.unreported_read
        table_writes = sum(i.dynamodb.write for i in invocations)
        index_writes = sum(i.dynamodb.index_write for i in invocations)
        writes = table_writes + index_writes + measured.unreported_write
        http = [i for i in invocations if i.trigger == "http"]
        logs = sum(i.log_bytes for i in invocations) + \
            costs.PLATFORM_LOG_BYTES * len(invocations)
        out_bytes = sum(i.answer_bytes + i.outbound_bytes for i in invocations) + \
            counts["ws_bytes"]
        dollars = {
            "API Gateway HTTP API": len(http) * p["http_api_request"],
            "API Gateway WebSocket messages": counts["ws_messages"] * p["websocket_message"],
            "Lambda requests": len(invocations) * p["lambda_request"],
            "DynamoDB reads": reads * p["dynamodb_read_unit"],
            "DynamoDB writes (tables)": (table_writes + measured.unreported_write)
            * p["dynamodb_write_unit"],
            "DynamoDB writes (GSIs)": index_writes * p["dynamodb_write_unit"],
            "DynamoDB Streams": 0.0,  # GetRecords by a Lambda trigger is free
            "SQS": counts["sqs"] * p["sqs_request"],
            "S3": counts["s3_put"] * p["s3_put"] + counts["s3_get"] * p["s3_get"],
            "SES": counts["emails"] * p["ses_email"],
            "CloudWatch Logs": logs / 1e9 * p["logs_ingested_gb"],
            "Secrets Manager / SSM": counts["secrets"] * p["secrets_call"],
            "Data transfer out": out_bytes / 1e9 * p["transfer_out_gb"],
        }
        by_function: dict[str, list[Invocation]] = defaultdict(list)
        for i in invocations:
            by_function[i.function].append(i)
        headline = DURATIONS[HEADLINE]
        lambda_by_function = {
            f: (len(group) * p["lambda_request"] + sum(
                math.ceil(headline(i) * 1000) / 1000 * i.memory_mb / 1024 for i in group)
                * p["lambda_gb_second"]) / n for f, group in by_function.items()}
        dynamodb_by_function = {
            f: sum(i.dynamodb.read * p["dynamodb_read_unit"]
                   + (i.dynamodb.write + i.dynamodb.index_write) * p["dynamodb_write_unit"]
                   for i in group) / n for f, group in by_function.items()}
        return PerEvent(
            dollars={k: v / n for k, v in dollars.items()},
            compute={name: gb_seconds(fn) * p["lambda_gb_second"] / n
                     for name, fn in DURATIONS.items()},
            invocations=Counter({f: len(group) / n for f, group in by_function.items()}),
            seconds={f: statistics.mean(headline(i) for i in group)
                     for f, group in by_function.items()},
            roots={f: c / n for f, c in Counter(i.function for i in invocations
                                                if i.trigger in ROOTS).items()},
            http_requests=len(http) / n, read_units=reads / n, write_units=writes / n,
            log_bytes=logs / n, lambda_by_function=lambda_by_function,
            dynamodb_by_function=dynamodb_by_function)


def combine(terms: list[tuple[float, PerEvent]]) -> PerEvent:
    """The linear combination of events (weights of any sign: a difference of two events is
    the cost of what one has more than the other)."""
    def add(get: Callable[[PerEvent], dict[str, float]]) -> dict[str, float]:
        found: dict[str, float] = defaultdict(float)
        for weight, event in terms:
            for key, value in get(event).items():
                found[key] += weight * value
        return dict(found)

    invocations = add(lambda e: dict(e.invocations))
    seconds: dict[str, float] = {}
    for function, count in invocations.items():  # invocation-weighted mean durations
        busy = sum(w * e.invocations.get(function, 0) * e.seconds.get(function, 0)
                   for w, e in terms)
        seconds[function] = max(busy / count, 0.0) if count > 1e-12 else 0.0
    return PerEvent(
        dollars=add(lambda e: e.dollars), compute=add(lambda e: e.compute),
        invocations=Counter(invocations), seconds=seconds, roots=add(lambda e: e.roots),
        http_requests=sum(w * e.http_requests for w, e in terms),
        read_units=sum(w * e.read_units for w, e in terms),
        write_units=sum(w * e.write_units for w, e in terms),
        log_bytes=sum(w * e.log_bytes for w, e in terms),
        lambda_by_function=add(lambda e: e.lambda_by_function),
        dynamodb_by_function=add(lambda e: e.dynamodb_by_function))


def blend(events: list[tuple[float, PerEvent]]) -> PerEvent:
    """The weighted mean of several kinds' events (weights need not add up to 1)."""
    total = sum(w for w, _ in events) or 1.0
    return combine([(w / total, e) for w, e in events])


def cold_starts(invocations: float, seconds: float) -> float:
    """Cold starts a month of a function invoked `invocations` times a month, each taking
    `seconds`: every invocation after an idle gap longer than IDLE_LIFETIME (Poisson
    arrivals), and while warm, each environment once every RECYCLE_SECONDS."""
    if invocations <= 0:
        return 0.0
    rate = invocations / SECONDS_PER_MONTH
    idle = math.exp(-rate * IDLE_LIFETIME)
    environments = max(1.0, rate * seconds)  # Little's law: invocations in flight
    recycled = environments * SECONDS_PER_MONTH / RECYCLE_SECONDS
    return invocations * idle + min(invocations * (1 - idle), recycled)


def traced_share(roots: float) -> float:
    """Of `roots` trace roots a month, the share X-Ray records with Lambda's sampling."""
    if roots <= 0:
        return 0.0
    reservoir = XRAY_RESERVOIR * SECONDS_PER_MONTH
    return (min(roots, reservoir) + XRAY_RATE * max(roots - reservoir, 0)) / roots


@dataclass
class Month:
    """An instance of `mau` monthly active users for a month."""

    mau: int
    client: float  # client API requests
    inbound: float  # requests from other servers
    connection_minutes: float
    dollars: dict[str, float]  # variable cost by service (pay-per-request)
    compute_variants: dict[str, float]  # Lambda compute by duration variant
    idle: float | None
    storage: dict[str, float] = field(default_factory=dict)  # the month's storage bill
    read_units: float = 0.0  # DynamoDB request units a month
    write_units: float = 0.0

    @property
    def requests(self) -> float:
        return self.client + self.inbound

    @property
    def variable(self) -> float:
        return sum(self.dollars.values())

    @property
    def total(self) -> float:
        return self.variable + (self.idle or 0.0) + sum(self.storage.values())

    def per_million(self) -> dict[str, float]:
        return {k: v / self.requests * 1e6 for k, v in self.dollars.items()}

    def provisioned(self, *, free_tier: bool = False) -> dict[str, float]:
        """DynamoDB's request units as provisioned capacity with auto scaling: capacity units,
        their dollars a month, and the variable cost with them instead of request units."""
        return provisioned(self.read_units, self.write_units, self.variable
                           - sum(self.dollars.get(k, 0.0) for k in DYNAMODB_REQUESTS),
                           free_tier=free_tier)

    @property
    def provisioned_total(self) -> float:
        return self.provisioned()["variable"] + (self.idle or 0.0) + sum(self.storage.values())


def provisioned(read_units: float, write_units: float, rest: float = 0.0, *,
                free_tier: bool = False) -> dict[str, float]:
    """Capacity for `read_units` and `write_units` a month at auto scaling's target utilisation
    (the month's mean rate: auto scaling follows the day's curve), at least `MIN_UNITS` each;
    `rest`: the month's other variable costs, added to give `variable`."""
    rcu = max(read_units / SECONDS_PER_MONTH / TARGET_UTILISATION, MIN_UNITS)
    wcu = max(write_units / SECONDS_PER_MONTH / TARGET_UTILISATION, MIN_UNITS)
    hours = SECONDS_PER_MONTH / 3600
    billed_rcu = max(rcu - FREE_TIER_UNITS, 0.0) if free_tier else rcu
    billed_wcu = max(wcu - FREE_TIER_UNITS, 0.0) if free_tier else wcu
    dollars = hours * (billed_rcu * PROVISIONED["rcu_hour"] + billed_wcu * PROVISIONED["wcu_hour"])
    return {"rcu": rcu, "wcu": wcu, "dollars": dollars, "variable": rest + dollars}


def month(profile: Profile, client: PerEvent, inbound: PerEvent, connect: PerEvent,
          deployment: Deployment, idle: float | None,
          storage: dict[str, float] | None = None) -> Month:
    """A month of `profile.mau` MAU: `client` is the mean client request, `inbound` the mean
    request from another server (each with what it causes), `connect` a WebSocket session."""
    mau = profile.mau
    volumes = [(mau * profile.client_requests, client),
               (mau * profile.inbound_requests, inbound),
               (mau * profile.connection_minutes / SESSION_MINUTES, connect)]
    dollars: dict[str, float] = defaultdict(float)
    variants: dict[str, float] = defaultdict(float)
    invocations: Counter[str] = Counter()
    busy: dict[str, float] = defaultdict(float)  # invocation-seconds, for mean durations
    roots: dict[str, float] = defaultdict(float)
    reads = writes = 0.0
    for events, event in volumes:
        for service, value in event.dollars.items():
            dollars[service] += events * value
        for variant, value in event.compute.items():
            variants[variant] += events * value
        for function, count in event.invocations.items():
            invocations[function] += events * count
            busy[function] += events * count * event.seconds.get(function, 0.0)
        for function, count in event.roots.items():
            roots[function] += events * count
        reads += events * event.read_units
        writes += events * event.write_units
    dollars["Lambda compute"] = variants[HEADLINE]
    dollars["API Gateway WebSocket connection-minutes"] = \
        mau * profile.connection_minutes * PRICES["websocket_connection_minute"]
    p = PRICES
    init = cold_logs = cold_secrets = 0.0
    for function, count in invocations.items():
        if count <= 0:
            continue
        cold = cold_starts(count, busy[function] / count)
        init += cold * INIT_SECONDS * deployment.memory.get(function, 512) / 1024
        cold_logs += cold * COLD_START_LOG_BYTES
        cold_secrets += cold if deployment.secret.get(function) else 0.0
    dollars["Lambda INIT (cold starts)"] = init * p["lambda_gb_second"]
    dollars["CloudWatch Logs"] += cold_logs / 1e9 * p["logs_ingested_gb"]
    dollars["Secrets Manager / SSM"] += cold_secrets * p["secrets_call"]
    traced_roots = sum(c for f, c in roots.items() if deployment.traced.get(f))
    share = traced_share(traced_roots)
    dollars["X-Ray"] = traced_roots * share * p["xray_trace"]
    # Every invocation of a recorded trace adds Lambda's XRAY line to its logs.
    traced_invocations = sum(c for f, c in invocations.items() if deployment.traced.get(f))
    dollars["CloudWatch Logs"] += traced_invocations * share * costs.XRAY_LOG_BYTES / 1e9 \
        * p["logs_ingested_gb"]
    return Month(mau, volumes[0][0], volumes[1][0], mau * profile.connection_minutes,
                 dict(dollars), dict(variants), idle, dict(storage or {}), reads, writes)
