"""The idle cost model (bench/idle.py) on small templates whose bill is known, and on
template.yaml: alarms are opt-in, and everything in it is priced."""

from __future__ import annotations

import copy
import io
import json
from contextlib import redirect_stdout

import pytest

from bench import idle as bench_idle
from local import cfn

MONTH_MINUTES = 730 * 60


def template(resources: dict, **extra) -> dict:
    return {"Parameters": {"Alarms": {"Type": "String", "Default": "false",
                                      "AllowedValues": ["true", "false"]}},
            "Conditions": {"AlarmsEnabled": {"Fn::Equals": [{"Ref": "Alarms"}, "true"]}},
            "Globals": {"Function": {"MemorySize": 512, "Tracing": "Active"}},
            "Resources": resources, **extra}


def worker(queue: str, **event_props) -> dict:
    return {"Type": "AWS::Serverless::Function",
            "Properties": {"CodeUri": "x/", "Handler": "h.handler", "Events": {"Jobs": {
                "Type": "SQS", "Properties": {"Queue": {"Fn::GetAtt": [queue, "Arn"]},
                                              **event_props}}}}}


def alarm(queue: str, conditional: bool) -> dict:
    resource = {"Type": "AWS::CloudWatch::Alarm", "Properties": {
        "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible",
        "Dimensions": [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}],
        "Statistic": "Maximum", "Period": 300, "EvaluationPeriods": 1, "Threshold": 0,
        "ComparisonOperator": "GreaterThanThreshold"}}
    if conditional:
        resource["Condition"] = "AlarmsEnabled"
    return resource


def test_an_sqs_mapping_long_polls_when_idle():
    idle = bench_idle.compute(template({
        "JobsQueue": {"Type": "AWS::SQS::Queue"},
        "Worker": worker("JobsQueue"),
        "CappedQueue": {"Type": "AWS::SQS::Queue"},
        "Capped": worker("CappedQueue", ScalingConfig={"MaximumConcurrency": 5}),
    }), runs={}, cold_start_metric=False)
    by = idle.by_resource()
    # 5 pollers, a 20-second long poll each: 15 ReceiveMessage a minute, $0.40 a million
    assert by["WorkerJobs"] == pytest.approx(5 * 3 * MONTH_MINUTES * 0.40 / 1e6, abs=1e-4)
    assert by["WorkerJobs"] == pytest.approx(0.2628, abs=1e-4)
    assert by["JobsQueue"] == by["Worker"] == 0  # a queue and a function cost nothing idle
    assert idle.per_month == pytest.approx(2 * 0.2628, abs=1e-3)
    # Lambda's optimization to 2 pollers is not available with a maximum concurrency
    floor = idle.again(pollers=bench_idle.POLLERS_FLOOR).by_resource()
    assert floor["WorkerJobs"] == pytest.approx(2 * 3 * MONTH_MINUTES * 0.40 / 1e6, abs=1e-4)
    assert floor["CappedJobs"] == by["CappedJobs"] == pytest.approx(0.2628, abs=1e-4)


def test_an_alarm_costs_ten_cents_unless_its_condition_is_false():
    snippet = template({"DLQ": {"Type": "AWS::SQS::Queue"},
                        "Always": alarm("DLQ", conditional=False),
                        "OptIn": alarm("DLQ", conditional=True)})
    idle = bench_idle.compute(snippet, runs={}, cold_start_metric=False)
    assert idle.by_resource() == {"DLQ": 0, "Always": 0.10}
    on = bench_idle.compute(snippet, {"Alarms": "true"}, runs={}, cold_start_metric=False)
    assert on.by_resource() == {"DLQ": 0, "Always": 0.10, "OptIn": 0.10}
    assert on.per_month == pytest.approx(0.20)
    high = copy.deepcopy(snippet)
    high["Resources"]["Always"]["Properties"]["Period"] = 10
    assert bench_idle.compute(high, runs={}).by_resource()["Always"] == 0.30
    with pytest.raises(ValueError):
        bench_idle.compute(snippet, {"Alarms": "yes"})


def test_a_schedule_every_minute_invokes_its_function():
    snippet = template({"Ticker": {"Type": "AWS::Serverless::Function", "Properties": {
        "CodeUri": "x/", "Handler": "h.handler", "Events": {"Tick": {
            "Type": "Schedule", "Properties": {"Schedule": "rate(1 minute)"}}}}}})
    run = bench_idle.Run(calls=10, read_units=5.0, write_units=0.0)
    idle = bench_idle.compute(snippet, runs={"TickerTick": run}, cold_start_metric=True)
    line = next(li for li in idle.lines if li.resource == "TickerTick")
    runs = MONTH_MINUTES  # 43,800
    # warm (a minute apart), one cold start every two hours: 365 INITs of a second
    billed = runs * (10 * 0.004 + 0.020) + 365 * 1.0
    assert line.items == pytest.approx({
        "scheduler invocations": runs * 1.00 / 1e6,
        "Lambda requests": runs * 0.20 / 1e6,
        "Lambda GB-s (INIT included)": billed * 0.5 * 0.0000133334,
        "DynamoDB reads": runs * 5 * 0.125 / 1e6,
        "DynamoDB writes": 0.0,
        "CloudWatch Logs": runs * 1500 / 1e9 * (0.50 + 0.03),
        "X-Ray traces": runs * 5.00 / 1e6,
    })
    assert line.dollars == pytest.approx(0.354, abs=1e-3)  # X-Ray's traces: $0.22 of it
    # Powertools' ColdStart metric: billed for the 365 hours that have a cold start
    assert idle.by_resource()["Ticker/ColdStart"] == pytest.approx(0.30 * 365 / 730)
    assert "Ticker/ColdStart" not in bench_idle.compute(
        snippet, runs={"TickerTick": run}, cold_start_metric=False).by_resource()
    # an hourly schedule starts cold every time
    hourly = copy.deepcopy(snippet)
    hourly["Resources"]["Ticker"]["Properties"]["Events"]["Tick"]["Properties"]["Schedule"] = \
        "rate(1 hour)"
    note = next(li.note for li in bench_idle.compute(hourly, runs={"TickerTick": run}).lines
                if li.resource == "TickerTick")
    assert "730 runs" in note and "730 cold" in note


def test_schedule_expressions():
    assert bench_idle.runs_per_month("rate(5 minutes)") == 8760
    assert bench_idle.runs_per_month("rate(1 day)") == pytest.approx(730 / 24)
    assert bench_idle.runs_per_month("cron(0 * * * ? *)") == 730
    assert bench_idle.runs_per_month("cron(15 3 * * ? *)") == pytest.approx(730 / 24)
    assert bench_idle.runs_per_month("at(2030-01-01T00:00:00)") == 0
    with pytest.raises(ValueError):
        bench_idle.runs_per_month("every day")


def test_the_template_creates_no_alarm_with_its_default_parameters():
    real = cfn.load_template()
    assert real["Parameters"]["Alarms"]["Default"] == "false"
    alarms = [k for k, v in real["Resources"].items() if v["Type"] == "AWS::CloudWatch::Alarm"]
    assert len(alarms) == 14
    assert all(real["Resources"][k].get("Condition") == "AlarmsEnabled" for k in alarms)
    conditions = bench_idle.conditions(real, bench_idle.parameters(real))
    assert conditions["AlarmsEnabled"] is False
    idle = bench_idle.compute(real)
    assert not idle.of_kind("CloudWatch alarm")
    assert not idle.unpriced, idle.unpriced  # every resource of the template is priced
    on = bench_idle.compute(real, {"Alarms": "true"})
    assert len(on.of_kind("CloudWatch alarm")) == 14
    assert on.per_month - idle.per_month == pytest.approx(1.40)
    # what remains: 6 long-polling mappings (the other 7 workers take their jobs by
    # asynchronous invocation, which nothing polls), the secret, the schedules
    assert len(idle.of_kind("SQS event-source mapping")) == 6
    assert idle.by_resource()["InstanceSecret"] == 0.40


def test_idle_json():
    out = io.StringIO()
    with redirect_stdout(out):
        assert bench_idle.cli(["--json"]) == 0
    figures = json.loads(out.getvalue())
    assert figures["per_month"] == pytest.approx(sum(figures["by_resource"].values()), abs=1e-3)
    assert figures["parameters"] == {"Alarms": "false"}
    assert "CountersFunctionJobs" in figures["by_resource"]
    assert bench_idle.cli(["--param", "Nope=1"]) == 2
