"""`python -m bench cost` (bench/cost.py): its pricing arithmetic on made-up invocations
(bench/pricing.py), and the whole bench on a tiny instance in the test's emulator (every kind of
request answered, every invocation behind it charged to it, DynamoDB units as reported; the
quiet and busy passes, the activities, the storage scans, the `--json` object's shape)."""

from __future__ import annotations

import json
import math

import pytest

from bench import costs, mix, pricing, profile
from bench import instance as fixture
from bench.costs import PRICES, Invocation
from bench.pricing import PerEvent, month
from local import capacity

MB = 512


def invocation(function: str = "StatusesFunction", *, trigger: str = "http",
               cpu: float = 0.0101, calls: list | None = None, read: float = 0.0,
               write: float = 0.0, index_write: float = 0.0, log_bytes: int = 0,
               answer_bytes: int = 0, memory_mb: int = MB) -> Invocation:
    made = Invocation(function, memory_mb, None, trigger, "kind", wall=cpu, cpu=cpu,
                      calls=calls or [], log_bytes=log_bytes, answer_bytes=answer_bytes)
    made.dynamodb = capacity.Charge(read=read, write=write, index_write=index_write)
    return made


def measured(*invocations: Invocation, samples: int = 1, **counts: int) -> mix.Measured:
    found = mix.Measured(samples=samples, invocations=list(invocations))
    found.counts.update(counts)
    return found


# --- durations --------------------------------------------------------------------------------
def test_calls_in_flight_together_are_one_round_and_cost_their_slowest_latency():
    calls = [("dynamodb", 0.000, 0.010, 0.0, 0.001),
             ("dynamodb", 0.002, 0.012, 0.0, 0.001),   # overlaps the first: same round
             ("http", 0.020, 0.030, 0.001, 0.002)]     # after: a round of its own
    made = invocation(cpu=0.050, calls=calls)
    assert [len(r) for r in costs.rounds(calls)] == [2, 1]
    # Own CPU: the invocation's, less what went on inside each round (once per round).
    assert made.own == pytest.approx(0.050 - 0.001 - 0.001)
    assert made.corrected() == pytest.approx(made.own + 0.004 + 0.150)
    # A 512 MB function has 512/1769 of a vCPU: its own time stretches, its waits do not.
    assert made.corrected(cpu_scaled=True) == pytest.approx(made.own * 1769 / 512 + 0.154)


# --- one event --------------------------------------------------------------------------------
def test_an_event_is_priced_by_service_from_what_its_invocations_did():
    http = invocation(cpu=0.0201, read=10, write=2, index_write=1, log_bytes=600,
                      answer_bytes=10_000)
    worker = invocation("CountersFunction", trigger="sqs", cpu=0.0049, write=4,
                        memory_mb=1024)
    event = PerEvent.of(measured(http, worker, sqs=3, ws_messages=2, ws_bytes=1000,
                                 emails=1, s3_put=2, s3_get=4))
    p = PRICES
    assert event.dollars["API Gateway HTTP API"] == p["http_api_request"]  # the worker is not
    assert event.dollars["Lambda requests"] == 2 * p["lambda_request"]
    assert event.dollars["DynamoDB reads"] == 10 * p["dynamodb_read_unit"]
    assert event.dollars["DynamoDB writes (tables)"] == 6 * p["dynamodb_write_unit"]
    assert event.dollars["DynamoDB writes (GSIs)"] == 1 * p["dynamodb_write_unit"]
    assert event.dollars["SQS"] == 3 * p["sqs_request"]
    assert event.dollars["API Gateway WebSocket messages"] == 2 * p["websocket_message"]
    assert event.dollars["SES"] == p["ses_email"]
    assert event.dollars["S3"] == pytest.approx(2 * p["s3_put"] + 4 * p["s3_get"])
    platform = costs.PLATFORM_LOG_BYTES
    assert event.dollars["CloudWatch Logs"] == pytest.approx(
        (600 + 2 * platform) / 1e9 * p["logs_ingested_gb"])
    assert event.dollars["Data transfer out"] == pytest.approx(11_000 / 1e9 * 0.09)
    # Lambda bills each invocation's duration rounded up to the ms, at its memory: measured
    # (wall), corrected (CPU), corrected and scaled to the vCPU share its memory buys.
    assert event.compute["measured"] == pytest.approx(
        (0.021 * 0.5 + 0.005 * 1.0) * p["lambda_gb_second"])
    scaled = math.ceil(0.0201 * 1769 / 512 * 1000) / 1000 * 0.5 + \
        math.ceil(0.0049 * 1769 / 1024 * 1000) / 1000 * 1.0
    assert event.compute["corrected, CPU-scaled"] == pytest.approx(scaled * p["lambda_gb_second"])
    assert event.roots == {"StatusesFunction": 1}  # an SQS worker continues its sender's trace
    assert event.invocations == {"StatusesFunction": 1, "CountersFunction": 1}


def test_an_event_is_the_mean_of_its_samples_and_a_mix_the_weighted_mean():
    one = PerEvent.of(measured(invocation(read=4), invocation(read=8), samples=2))
    assert one.read_units == 6 and one.invocations == {"StatusesFunction": 1}
    other = PerEvent.of(measured(invocation(read=30)))
    mixed = pricing.blend([(3, one), (1, other)])
    assert mixed.read_units == pytest.approx((3 * 6 + 30) / 4)
    assert mixed.dollars["DynamoDB reads"] == pytest.approx(
        (3 * 6 + 30) / 4 * PRICES["dynamodb_read_unit"])


def test_failed_conditions_are_billed_though_no_response_reported_them():
    found = measured(invocation(write=1))
    found.unreported_write = 2
    assert PerEvent.of(found).dollars["DynamoDB writes (tables)"] == \
        3 * PRICES["dynamodb_write_unit"]


# --- a month ----------------------------------------------------------------------------------
def test_cold_starts_follow_each_functions_traffic():
    # A function invoked much less than once per idle lifetime starts cold every time.
    rare = 100
    assert pricing.cold_starts(rare, 0.05) == rare
    # A busy one starts cold when an environment is recycled (2 h), per environment in flight.
    busy = 10 * pricing.SECONDS_PER_MONTH  # 10 a second, 0.2 s each: 2 in flight
    assert pricing.cold_starts(busy, 0.2) == pytest.approx(
        2 * pricing.SECONDS_PER_MONTH / pricing.RECYCLE_SECONDS)


def test_x_ray_records_one_trace_a_second_then_five_percent():
    reservoir = pricing.SECONDS_PER_MONTH
    assert pricing.traced_share(reservoir / 2) == 1.0
    assert pricing.traced_share(3 * reservoir) == pytest.approx((1 + 0.05 * 2) / 3)


def test_a_month_adds_connection_minutes_cold_starts_and_traces_for_traced_functions():
    client = PerEvent.of(measured(invocation(read=2, cpu=0.01)))
    inbound = PerEvent.of(measured(invocation("InboxFunction", read=1, cpu=0.01)))
    connect = PerEvent.of(measured(invocation("StreamingFunction", trigger="websocket")))
    traced = pricing.Deployment({"StatusesFunction": MB, "InboxFunction": MB,
                                 "StreamingFunction": MB},
                                {"StatusesFunction": True, "InboxFunction": False,
                                 "StreamingFunction": False},
                                {"StatusesFunction": True})
    small = profile.at(100)
    found = month(small, client, inbound, connect, traced, idle=4.0,
                  storage={"DynamoDB storage": 1.5})
    clients = 100 * small.client_requests
    inbound_requests = 100 * small.inbound_requests
    assert found.requests == pytest.approx(clients + inbound_requests)
    assert found.dollars["DynamoDB reads"] == pytest.approx(
        (2 * clients + inbound_requests) * PRICES["dynamodb_read_unit"])
    assert found.read_units == pytest.approx(2 * clients + inbound_requests)
    minutes = 100 * small.connection_minutes
    assert found.dollars["API Gateway WebSocket connection-minutes"] == pytest.approx(
        minutes * PRICES["websocket_connection_minute"])
    # Reconnections: one $connect/$disconnect invocation per SESSION_MINUTES of connection.
    assert found.dollars["Lambda requests"] == pytest.approx(
        (clients + inbound_requests + minutes / pricing.SESSION_MINUTES)
        * PRICES["lambda_request"])
    # Only the traced function's roots are traces; 150,000 a month is under the reservoir.
    assert found.dollars["X-Ray"] == pytest.approx(clients * PRICES["xray_trace"])
    assert found.dollars["Lambda INIT (cold starts)"] > 0
    assert found.dollars["Secrets Manager / SSM"] > 0  # the secret's holder, per cold start
    assert found.total == pytest.approx(found.variable + 4.0 + 1.5)  # idle and storage billed
    untraced = pricing.Deployment(traced.memory, dict.fromkeys(traced.memory, False), {})
    assert month(small, client, inbound, connect, untraced, idle=None).dollars["X-Ray"] == 0


def test_provisioned_capacity_is_the_months_rate_over_70_percent_at_unit_hour_prices():
    month_seconds = pricing.SECONDS_PER_MONTH
    found = pricing.provisioned(700 * month_seconds, 70 * month_seconds, rest=3.0)
    assert found["rcu"] == pytest.approx(1000) and found["wcu"] == pytest.approx(100)
    hours = month_seconds / 3600
    assert found["dollars"] == pytest.approx(hours * (1000 * 0.00013 + 100 * 0.00065))
    assert found["variable"] == pytest.approx(3.0 + found["dollars"])
    # A quiet stack pays auto scaling's minimum; the free tier's 25 WCU and RCU cover it.
    idle = pricing.provisioned(0, 0)
    assert idle["rcu"] == idle["wcu"] == pricing.MIN_UNITS
    assert pricing.provisioned(0, 0, free_tier=True)["dollars"] == 0


def test_a_month_with_provisioned_capacity_replaces_only_the_request_units():
    event = PerEvent.of(measured(invocation(read=40, write=10, cpu=0.01)))
    deployment = pricing.Deployment({"StatusesFunction": MB}, {"StatusesFunction": False}, {})
    found = month(profile.at(10_000), event, event, event, deployment, idle=1.0)
    requests_units = sum(found.dollars[k] for k in pricing.DYNAMODB_REQUESTS)
    provisioned = found.provisioned()
    assert provisioned["variable"] == pytest.approx(found.variable - requests_units
                                                    + provisioned["dollars"])
    assert found.provisioned_total == pytest.approx(provisioned["variable"] + 1.0)


def test_events_combine_linearly_for_a_receiver_more_or_less():
    low = PerEvent.of(measured(invocation(read=10, write=20, cpu=0.01)))
    high = PerEvent.of(measured(invocation(read=13, write=50, cpu=0.01),
                                invocation("FanoutFunction", write=10, cpu=0.01)))
    per = pricing.combine([(1 / 30, high), (-1 / 30, low)])  # 30 receivers more
    assert per.write_units == pytest.approx(40 / 30) and per.read_units == pytest.approx(0.1)
    at_100 = pricing.combine([(1.0, low), (85, per)])
    assert at_100.write_units == pytest.approx(20 + 85 * 40 / 30)
    assert at_100.invocations["FanoutFunction"] == pytest.approx(85 / 30)


def test_the_deployment_is_read_from_the_template_with_parameter_defaults():
    template = {
        "Parameters": {"Tracing": {"Default": "off"}},
        "Conditions": {"Traced": {"Fn::Equals": [{"Ref": "Tracing"}, "on"]}},
        "Globals": {"Function": {"MemorySize": 512,
                                 "Tracing": {"Fn::If": ["Traced", "Active", "PassThrough"]},
                                 "Environment": {"Variables": {"A": "1"}}}},
        "Resources": {
            "Plain": {"Type": "AWS::Serverless::Function", "Properties": {}},
            "Big": {"Type": "AWS::Serverless::Function",
                    "Properties": {"MemorySize": 1024, "Tracing": "Active",
                                   "Environment": {"Variables": {
                                       "INSTANCE_SECRET_ARN": {"Ref": "Secret"}}}}}}}
    found = pricing.Deployment.of(template)
    assert found.memory == {"Plain": 512, "Big": 1024}
    assert found.traced == {"Plain": False, "Big": True}
    assert found.secret == {"Plain": False, "Big": True}
    template["Parameters"]["Tracing"]["Default"] = "on"
    assert pricing.Deployment.of(template).traced["Plain"] is True


def test_the_follower_counts_have_the_stated_median_and_tail():
    import random
    import statistics

    counts = fixture.follower_counts(random.Random(1))
    assert len(counts) == fixture.REGULAR_MEMBERS
    assert max(counts) < fixture.BIG_AT
    assert 130 <= statistics.median(counts) <= 150  # the lognormal's median, below the tail
    assert fixture.big_share() == pytest.approx(0.0026, abs=0.0002)


# --- the bench, small -------------------------------------------------------------------------
TINY = {"REGULAR_MEMBERS": 3, "BIG_FOLLOWERS": (60,), "LISTENERS": 2, "PUBLIC_LISTENERS": 1,
        "PUSH_SUBSCRIBERS": 1, "MEMBERS_FOLLOWED": 2, "REMOTE_POSTERS": 2, "POSTER_HOSTS": 1,
        "POSTER_RECEIVERS": 3, "HISTORY_POSTS": 2, "REMOTE_NOTES": 1, "REMOTE_POOL": 40,
        "LOCAL_POOL": 30, "REMOTE_HOSTS": 8}


@pytest.fixture
def tiny(monkeypatch):
    """An instance of a few accounts, and a mix of a few kinds sampled once."""
    for name, value in TINY.items():
        monkeypatch.setattr(fixture, name, value)
    monkeypatch.setattr("bench.activities.RECEIVERS", 3)
    monkeypatch.setattr("bench.activities.FURTHER", 4)
    monkeypatch.setattr("bench.activities.SAMPLES", 1)
    wanted = {"GET /api/v1/timelines/home", "POST /api/v1/statuses/:id/favourite",
              mix.REGULAR_POST, mix.BIG_POST, mix.SIGN_UP}
    kinds = [mix.Kind(k.label, k.weight, 1, k.send, k.key, k.busy) for k in mix.CLIENT_MIX
             if k.label in wanted]
    kinds += [mix.Kind(k.label, k.weight, 1, k.send, k.key, k.busy) for k in mix.INBOUND_MIX
              if k.label.startswith(("POST /inbox Create", "POST /inbox Like"))]
    return kinds


def test_the_bench_charges_each_request_everything_it_causes(runtime, tiny):
    from bench.cost import measure_all
    from local import emulator

    peers = fixture.Peers()
    total, _ = emulator.CONSUMED.snapshot()
    recorded = []
    real = mix.measure

    def measure(*args, **kwargs):
        found, recorder = real(*args, **kwargs)
        recorded.append((found, recorder))
        return found, recorder

    mix_measure = pytest.MonkeyPatch()
    mix_measure.setattr(mix, "measure", measure)
    try:
        result = measure_all(runtime, peers, lambda line: None, kinds=tiny, k=2, shards=2)
    finally:
        mix_measure.undo()
        peers.close()
    total_after, _ = emulator.CONSUMED.snapshot()
    quiet = result.quiet
    answers = {label: dict(m.statuses) for label, m in quiet.items()}
    assert all(set(a) <= {200, 202} for a in answers.values() if a), answers
    post = quiet[mix.REGULAR_POST]
    functions = {i.function for i in post.invocations}
    # The post's request, and behind it the stream's dispatch, fan-out to the followers'
    # homes, federation and a delivery to the remote followers' servers.
    assert {"StatusesFunction", "DispatchFunction", "FanoutFunction", "FederationFunction",
            "DeliveryFunction"} <= functions
    assert post.counts["sqs"] > 0 and peers.posts > 0
    assert [i.trigger for i in post.invocations].count("http") == 1
    like = quiet["POST /inbox Like (of a local status)"]
    assert {"InboxFunction", "InboxWorkerFunction"} <= {i.function for i in like.invocations}
    # Busy: each kind sent k = 2 at a time, one drain per pair; what they store measured.
    busy = result.busy[mix.REGULAR_POST]
    assert busy.samples == 2 and busy.groups == 1 and [
        i.trigger for i in busy.invocations].count("http") == 2
    assert any(v > 0 for (store, _), v in busy.stored.items() if store == "MainTable")
    assert result.busy[mix.SIGN_UP].samples == 1  # rare kinds: their samples, once
    # The units charged are the ones the local DynamoDB reported in its answers (and the
    # failed conditions it billed besides): nothing charged twice, nothing left out.
    charged = sum(i.dynamodb.read + i.dynamodb.write + i.dynamodb.index_write
                  for found, _ in recorded for m in found.values() for i in m.invocations)
    charged += sum(m.unreported_read + m.unreported_write
                   for found, _ in recorded for m in found.values())
    assert charged == pytest.approx(total_after.total - total.total, rel=0.02)
    assert all(recorder.outside.total == 0 for _, recorder in recorded)
    # Logs at the template's level (INFO): every HTTP request logs its line.
    assert all(i.log_bytes > 0 for m in quiet.values() for i in m.invocations
               if i.trigger == "http")
    assert "handler" not in vars(runtime.stack) and costs._active is None
    assert "pump_stream" not in vars(runtime.pipeline)
    # The activities: one Create to 3 local receivers, then to 4 more; a like; a post.
    acts = result.as_json()["activities"]
    assert set(acts) == {"inbound_create", "local_like", "local_post"}
    assert acts["inbound_create"]["receivers"] == 3
    for figures in acts.values():
        assert set(figures) >= {"invocations", "sqs", "read_units", "write_units"}
        assert figures["invocations"] >= 1 and figures["write_units"] > 0
    further = acts["inbound_create"]["per_further_receiver"]
    assert further["write_units"] > 0  # a home entry each
    found = result.as_json()
    assert set(found["per_mau_month"]) == {"100", "10000", "1000000"}
    assert all(set(v) == {"pay_per_request", "provisioned"}
               for v in found["per_mau_month"].values())
    assert set(found["per_million_requests"]) == {"pay_per_request", "provisioned"}
    assert found["per_million_requests"]["pay_per_request"] == pytest.approx(
        sum(found["by_service"].values()), rel=1e-3)
    assert set(found["storage_12_months"]["10000"]) >= {"without_expiry", "with_expiry"}
    assert found["sizes"]["100"]["mode"] == "quiet"  # half a request a second: quiet
    json.dumps(found)
