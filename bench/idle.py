"""`python -m bench idle [--json] [--param NAME=VALUE ...] [--measure]`: what the stack
costs a month with no traffic at all, computed from template.yaml (issue #22, "Idle": ≤ $1).

Every resource of the template is priced, with the parameters' defaults unless `--param` says
otherwise and each resource's `Condition` evaluated (the alarms are opt-in: `Alarms`). What SAM
generates is named as SAM names it: a function's SQS or DynamoDB event becomes the event-source
mapping `<Function><Event>`, a `Schedule` event the EventBridge rule `<Function><Event>`.

What costs money at idle, and why:
- **SQS event-source mappings** long-poll their queue whether or not anything is in it: Lambda's
  pollers call ReceiveMessage, each call waiting up to 20 s (SQS's longest long poll), and SQS
  bills every call. See `POLLERS`.
- **Schedules** invoke their function on every tick: scheduler invocations, Lambda requests and
  GB-s (INIT included, billed since 2025-08-01), DynamoDB units, X-Ray traces, CloudWatch Logs;
  and what the run writes goes down the Main table's stream to the dispatcher (its invocations
  are charged to the stream's mapping). The work of one idle run (an empty stack) was measured
  on the local stack (`RUNS`; `--measure` measures it again).
- **Powertools' ColdStart metric**: every cold start of a function wrapped with
  `capture_cold_start_metric=True` (stratus/core/observability.py) puts one EMF data point of a
  custom metric (dimensions function_name, service); CloudWatch bills a custom metric for each
  hour in which it receives data. POWERTOOLS_METRICS_DISABLED does not stop it (Powertools 3.x
  prints the cold-start metric through `single_metric`, which ignores that setting).
- **CloudWatch alarms**, **Secrets Manager secrets**, **KMS keys**, advanced SSM parameters and
  provisioned DynamoDB capacity have a monthly price of their own.

Free at idle (priced at $0, listed): HTTP and WebSocket APIs, CloudFront, S3, Step Functions,
Lambda functions without provisioned concurrency and their asynchronous invocations (Lambda's
own queue: the workers whose jobs come that way, repo/queues.py), SQS queues nobody polls (the
dead-letter queues), IAM, the DynamoDB stream's mapping itself (Lambda's GetRecords on DynamoDB Streams are
not charged). On-demand DynamoDB tables cost nothing but storage ($0.25/GB-month, PITR
$0.20/GB-month) when idle; storage is data, not traffic, and the idle figure is a fresh stack's:
no data, so $0 (stated per table). Left out: the KMS requests DynamoDB makes for tables encrypted
with the AWS managed key (a few per table each 5 minutes of use: under $0.03 a month).

Prices: us-east-1, on-demand, no free tier (a free tier is per account, not per stack).
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local import cfn

# ------------------------------------------------------------------------------------- prices
# us-east-1, on-demand, no free tier; checked 2026-11-27.
PRICES = {
    # https://aws.amazon.com/sqs/pricing/ - standard queue, per request (a 64 KB chunk)
    "sqs_request": 0.40 / 1e6,
    # https://aws.amazon.com/lambda/pricing/ - arm64; INIT is billed as duration since 2025-08-01
    # (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/)
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second": 0.0000133334,
    # https://aws.amazon.com/eventbridge/pricing/ - Scheduler, per invocation. SAM's `Schedule`
    # events are EventBridge rules, whose scheduled events come from AWS; they are priced here at
    # the Scheduler's rate all the same (an upper bound, a cent a month).
    "scheduler_invocation": 1.00 / 1e6,
    # https://aws.amazon.com/dynamodb/pricing/on-demand/ (since 2024-11-01)
    "dynamodb_read_unit": 0.125 / 1e6,
    "dynamodb_write_unit": 0.625 / 1e6,
    "dynamodb_gb_month": 0.25,           # Standard table class storage
    "dynamodb_pitr_gb_month": 0.20,      # continuous backups
    # https://aws.amazon.com/dynamodb/pricing/provisioned/
    "dynamodb_rcu_hour": 0.00013,
    "dynamodb_wcu_hour": 0.00065,
    # https://aws.amazon.com/cloudwatch/pricing/ - an alarm per metric it watches; custom metrics
    # "prorated by the hour and metered only when you send metrics to CloudWatch"
    "alarm_standard": 0.10,              # period of 60 s or more
    "alarm_high_resolution": 0.30,       # period under 60 s
    "custom_metric_month": 0.30,         # first 10,000 metrics
    "logs_ingest_gb": 0.50,
    "logs_store_gb_month": 0.03,
    # https://aws.amazon.com/xray/pricing/ - traces recorded
    "xray_trace": 5.00 / 1e6,
    # https://aws.amazon.com/secrets-manager/pricing/
    "secret_month": 0.40,
    "secrets_call": 0.05 / 10000,
    # https://aws.amazon.com/kms/pricing/ - a customer managed key
    "kms_key_month": 1.00,
    # https://aws.amazon.com/systems-manager/pricing/ - Parameter Store: standard parameters are
    # free (storage and standard throughput); an advanced one is $0.05 a month
    "ssm_advanced_parameter_month": 0.05,
}
HOURS = 730  # a month, as AWS prices one
MONTH_SECONDS = HOURS * 3600

# ---------------------------------------------------------------------------------- assumptions
# SQS event-source mappings. "For standard queues, Lambda uses long polling to poll a queue until
# it becomes active. [...] When traffic is low, Lambda scales back the processing to five
# concurrent batches, and can optimize to as few as 2 concurrent batches to reduce the SQS calls
# and corresponding costs. However, this optimization is not available when you enable the
# maximum concurrency setting." (Lambda Developer Guide, "Configuring scaling behavior for SQS
# event source mappings"). So an idle mapping keeps 5 pollers, maybe 2, and always 5 with
# ScalingConfig.MaximumConcurrency; each poller's empty long poll returns after 20 s (SQS's
# longest wait): 3 ReceiveMessage calls a minute per poller. The figure takes 5 (Lambda does
# not promise the optimization); the floor, 2, is reported beside it.
POLLERS = 5
POLLERS_FLOOR = 2
POLLERS_MAX_CONCURRENCY = 5
LONG_POLL_SECONDS = 20

# Lambda time of a scheduled run: its DynamoDB calls one after another at a typical latency (the
# one bench/costs.py uses), plus the handler's wrappers (Powertools logger, tracer,
# metrics). Cold starts: Lambda documents no keep-alive. Measured (Yan Cui, "how long does AWS
# Lambda keep your idle functions around", 2017): idle environments kept 45-60 minutes, sometimes
# less, and recycled about 4 hours after they were created even when busy. So a function invoked
# every `COLD_AFTER_SECONDS` or less often starts cold every time; one invoked more often is
# warm but starts cold once every `RECYCLE_SECONDS` (half the measured 4 h, to stay on the safe
# side). A cold start bills `INIT_SECONDS` of INIT (issue #22 measured 0.7-1.3 s with tracing).
DYNAMODB_CALL_SECONDS = 0.004
HANDLER_SECONDS = 0.020
INIT_SECONDS = 1.0
COLD_AFTER_SECONDS = 45 * 60
RECYCLE_SECONDS = 2 * 3600
# CloudWatch Logs per invocation: START, END and REPORT lines (~0.4 KB), a Powertools JSON log
# line (~0.6 KB), on a cold start the EMF ColdStart line and Powertools' "no application metrics"
# warning (~0.5 KB). Log groups are Lambda's own (/aws/lambda/<function>), without retention.
LOG_BYTES_PER_INVOCATION = 1500


@dataclass(frozen=True)
class Run:
    """What one scheduled run does on an idle (empty) stack."""
    calls: int  # DynamoDB calls, one after another
    read_units: float
    write_units: float
    stream_batches: int = 0  # invocations of the stream's consumer its writes cause
    follow_calls: int = 0  # DynamoDB calls of each such invocation
    follows: str = "DispatchFunction"  # that consumer (the Main table's stream)


# Measured on the local stack, 2026-11-27, an empty stack, the second of two runs
# (`python -m bench idle --measure` prints them again); request units as DynamoDB charges
# them (local/capacity.py). Keys: SAM's logical id of the schedule.
RUNS: dict[str, Run] = {
    # trends: 3 rankings (tags, statuses, links) rewritten with their refresh time: 3 stream
    # records, one dispatcher batch that does nothing with them
    "TrendsScheduleFunctionRefresh": Run(calls=15, read_units=6.0, write_units=3.0,
                                         stream_batches=1),
    "TrendsScheduleFunctionReview": Run(calls=9, read_units=4.5, write_units=0.0),
    # activity: one Query per day of the last 180 days, the weeks' logins and the stats item
    "ActivityFunctionHourly": Run(calls=181, read_units=84.0, write_units=13.0,
                                  stream_batches=1),
    "RemoteMediaScheduleFunctionDaily": Run(calls=1, read_units=0.5, write_units=0.0),
}
# A schedule not measured yet: a conservative guess (it writes, so the dispatcher runs).
DEFAULT_RUN = Run(calls=20, read_units=10.0, write_units=2.0, stream_batches=1)

OBSERVABILITY = cfn.ROOT / "layers/shared/stratus/core/observability.py"


def cold_start_metric_on(path: Path = OBSERVABILITY) -> bool:
    """Whether the handlers' wrapper asks Powertools for the ColdStart metric."""
    return "capture_cold_start_metric=True" in path.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------- the model
@dataclass
class Line:
    resource: str  # logical id (SAM's, for what SAM generates)
    kind: str
    items: dict[str, float] = field(default_factory=dict)  # what is billed -> $ a month
    note: str = ""

    @property
    def dollars(self) -> float:
        return sum(self.items.values())


@dataclass
class Idle:
    lines: list[Line]
    parameters: dict[str, str]
    unpriced: list[str]  # "<LogicalId> (<Type>)" of resources this module cannot price
    template: dict[str, Any] = field(repr=False, default_factory=dict)
    runs: dict[str, Run] = field(repr=False, default_factory=dict)
    cold_start_metric: bool = True

    def again(self, given: dict[str, str] | None = None, **options: Any) -> Idle:
        """The same template and runs, other parameters or options."""
        return compute(self.template, {**self.parameters, **(given or {})}, runs=self.runs,
                       cold_start_metric=self.cold_start_metric, **options)

    @property
    def per_month(self) -> float:
        return sum(line.dollars for line in self.lines)

    def by_resource(self) -> dict[str, float]:
        return {line.resource: round(line.dollars, 4) for line in self.lines}

    def of_kind(self, prefix: str) -> list[Line]:
        return [line for line in self.lines if line.kind.startswith(prefix)]


def parameters(template: dict[str, Any], given: dict[str, str] | None = None) -> dict[str, str]:
    declared = template.get("Parameters", {})
    unknown = set(given or {}) - set(declared)
    if unknown:
        raise ValueError(f"no such parameter: {', '.join(sorted(unknown))}")
    values = {name: str(p.get("Default", "")) for name, p in declared.items()}
    values.update(given or {})
    for name, value in values.items():
        allowed = declared[name].get("AllowedValues")
        if allowed is not None and value not in [str(a) for a in allowed]:
            raise ValueError(f"{name}={value!r}: allowed values are {allowed}")
    return values


def conditions(template: dict[str, Any], params: dict[str, str]) -> dict[str, bool]:
    """The template's Conditions, evaluated (Fn::Equals, Not, And, Or, Condition, Ref)."""
    declared = template.get("Conditions", {})
    done: dict[str, bool] = {}

    def value(node: Any) -> Any:
        if isinstance(node, dict) and set(node) == {"Ref"}:
            return params.get(node["Ref"], cfn.Resolver(template, params).ref(node["Ref"]))
        if isinstance(node, dict):
            return truth(node)
        return str(node)

    def truth(node: Any) -> bool:
        (key, arg), = node.items()
        if key == "Condition":
            return named(arg)
        if key == "Fn::Equals":
            return str(value(arg[0])) == str(value(arg[1]))
        if key == "Fn::Not":
            return not truth(arg[0])
        if key == "Fn::And":
            return all(truth(a) for a in arg)
        if key == "Fn::Or":
            return any(truth(a) for a in arg)
        raise ValueError(f"condition function {key} is not evaluated here")

    def named(name: str) -> bool:
        if name not in done:
            done[name] = truth(declared[name])
        return done[name]

    for name in declared:
        named(name)
    return done


def runs_per_month(expression: str) -> float:
    """How often a schedule expression fires in a month: rate(...) exactly, a cron(...) by its
    minute, hour and day fields (enough for the usual shapes)."""
    rate = re.fullmatch(r"rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)", expression)
    if rate:
        seconds = int(rate.group(1)) * {"minute": 60, "hour": 3600, "day": 86400}[
            rate.group(2).rstrip("s")]
        return MONTH_SECONDS / seconds
    cron = re.fullmatch(r"cron\((.+)\)", expression)
    if cron:
        minute, hour, dom, _month, dow = cron.group(1).split()[:5]

        def count(part: str, span: int) -> float:
            if part in ("*", "?"):
                return span
            if part.startswith(("*/", "0/")):
                return span / int(part.split("/")[1])
            return len(part.split(","))

        per_day = count(minute, 60) * count(hour, 24)
        days = HOURS / 24
        if dom not in ("*", "?"):
            days = count(dom, 30.4) * (days / 30.4)
        elif dow not in ("*", "?"):
            days = days * count(dow.replace("-", ","), 7) / 7
        return per_day * days
    if expression.startswith("at("):
        return 0.0  # a one-off
    raise ValueError(f"schedule expression not understood: {expression!r}")


def _memory(props: dict[str, Any], globals_: dict[str, Any]) -> int:
    return int(props.get("MemorySize", globals_.get("MemorySize", 128)))


def _traced(props: dict[str, Any], globals_: dict[str, Any]) -> bool:
    return props.get("Tracing", globals_.get("Tracing", "PassThrough")) == "Active"


def _target(ref: Any) -> str | None:
    """The logical id an Fn::GetAtt / Ref names."""
    if isinstance(ref, dict):
        if "Fn::GetAtt" in ref:
            return ref["Fn::GetAtt"][0]
        if "Ref" in ref:
            return ref["Ref"]
    return None


def sqs_mapping_line(logical: str, function: str, props: dict[str, Any], *,
                     pollers: int = POLLERS) -> Line:
    capped = bool((props.get("ScalingConfig") or {}).get("MaximumConcurrency"))
    n = POLLERS_MAX_CONCURRENCY if capped else pollers
    requests = n * (60 / LONG_POLL_SECONDS) * 60 * HOURS
    queue = _target(props.get("Queue") or props.get("EventSourceArn")) or "?"
    why = ("MaximumConcurrency set: never fewer than 5" if capped
           else "Lambda's idle number" if n == POLLERS else "Lambda's documented floor")
    return Line(logical, "SQS event-source mapping",
                {"SQS ReceiveMessage (empty long polls)": requests * PRICES["sqs_request"]},
                f"{function} <- {queue}: {n} pollers ({why}) x 3 polls a minute = "
                f"{requests:,.0f} requests")


def alarm_line(logical: str, props: dict[str, Any]) -> Line:
    metrics = props.get("Metrics")
    if metrics:  # metric math: each metric it reads is an alarm metric
        count = sum(1 for m in metrics if "MetricStat" in m) or 1
        period = min(int(m["MetricStat"].get("Period", 60)) for m in metrics
                     if "MetricStat" in m) if any("MetricStat" in m for m in metrics) else 60
    else:
        count, period = 1, int(props.get("Period", 60))
    price = PRICES["alarm_standard"] if period >= 60 else PRICES["alarm_high_resolution"]
    return Line(logical, "CloudWatch alarm", {"alarm metrics": count * price},
                f"{count} metric, {'standard' if period >= 60 else 'high'} resolution")


def cold_starts(runs: float) -> float:
    """Cold starts a month of a function invoked `runs` times a month, evenly spread."""
    if runs <= 0:
        return 0.0
    if MONTH_SECONDS / runs >= COLD_AFTER_SECONDS:
        return runs
    return min(runs, MONTH_SECONDS / RECYCLE_SECONDS)


def compute(template: dict[str, Any] | None = None, given: dict[str, str] | None = None, *,
            runs: dict[str, Run] | None = None, pollers: int = POLLERS,
            cold_start_metric: bool | None = None) -> Idle:
    template = template if template is not None else cfn.load_template()
    runs = RUNS if runs is None else runs
    cold_start_metric = cold_start_metric_on() if cold_start_metric is None else cold_start_metric
    params = parameters(template, given)
    conds = conditions(template, params)
    resources = template.get("Resources", {})
    globals_ = template.get("Globals", {}).get("Function", {})
    lines: list[Line] = []
    unpriced: list[str] = []
    stream_mappings: dict[str, str] = {}  # function -> its DynamoDB stream mapping
    # (function, invocations a month, DynamoDB calls each) of what the schedules' writes invoke
    follow: list[tuple[str, float, int]] = []

    def active(resource: dict[str, Any]) -> bool:
        return "Condition" not in resource or conds[resource["Condition"]]

    schedules: list[tuple[str, str, str, dict[str, Any], str]] = []
    cold_runs: dict[str, float] = {}  # function -> cold starts a month at idle

    def schedule(logical: str, function: str, expression: str, fn_props: dict[str, Any],
                 kind: str) -> None:
        schedules.append((logical, function, expression, fn_props, kind))

    def price_schedule(logical: str, function: str, expression: str, fn_props: dict[str, Any],
                       kind: str, function_runs: float) -> None:
        per_month = runs_per_month(expression)
        run = runs.get(logical, DEFAULT_RUN)
        memory_gb = _memory(fn_props, globals_) / 1024
        seconds = run.calls * DYNAMODB_CALL_SECONDS + HANDLER_SECONDS
        # the function's cold starts, shared among its schedules by their runs
        cold = cold_starts(function_runs) * per_month / function_runs if function_runs else 0.0
        billed = per_month * math.ceil(seconds * 1000) / 1000 + cold * INIT_SECONDS
        items = {
            "scheduler invocations": per_month * PRICES["scheduler_invocation"],
            "Lambda requests": per_month * PRICES["lambda_request"],
            "Lambda GB-s (INIT included)": billed * memory_gb * PRICES["lambda_gb_second"],
            "DynamoDB reads": per_month * run.read_units * PRICES["dynamodb_read_unit"],
            "DynamoDB writes": per_month * run.write_units * PRICES["dynamodb_write_unit"],
            "CloudWatch Logs": _logs(per_month),
        }
        if _traced(fn_props, globals_):
            items["X-Ray traces"] = per_month * PRICES["xray_trace"]
        note = (f"{expression}: {per_month:,.0f} runs of {function}, {run.calls} DynamoDB calls "
                f"each ({'measured' if logical in runs else 'not measured: guessed'}), "
                f"{cold:,.0f} cold")
        lines.append(Line(logical, kind, items, note))
        cold_runs[function] = cold_runs.get(function, 0.0) + cold
        if run.stream_batches:
            follow.append((run.follows, per_month * run.stream_batches, run.follow_calls))

    free_kinds = {
        "AWS::Serverless::LayerVersion": "Lambda stores layers for free",
        "AWS::Serverless::HttpApi": "billed per request",
        "AWS::ApiGatewayV2::Api": "billed per message and connection-minute",
        "AWS::ApiGatewayV2::Route": "", "AWS::ApiGatewayV2::Integration": "",
        "AWS::ApiGatewayV2::RouteResponse": "", "AWS::ApiGatewayV2::Stage": "",
        "AWS::ApiGatewayV2::DomainName": "no charge for a custom domain",
        "AWS::ApiGatewayV2::ApiMapping": "",
        "AWS::Lambda::Permission": "",
        "AWS::IAM::Role": "", "AWS::IAM::Policy": "", "AWS::IAM::ManagedPolicy": "",
        "AWS::S3::Bucket": "storage of what it holds: none on a fresh stack",
        "AWS::S3::BucketPolicy": "",
        "AWS::CloudFront::Distribution": "pay-as-you-go: requests and transfer only",
        "AWS::CloudFront::OriginAccessControl": "", "AWS::CloudFront::ResponseHeadersPolicy": "",
        "AWS::SQS::Queue": "billed per request; nothing polls a dead-letter queue",
        "AWS::Serverless::StateMachine": "Standard workflows: per state transition",
        "AWS::StepFunctions::StateMachine": "Standard workflows: per state transition",
        "AWS::Logs::LogGroup": "storage of what it holds",
        "AWS::SNS::Topic": "billed per request",
    }
    for logical, resource in resources.items():
        if not active(resource):
            continue
        kind, props = resource.get("Type"), resource.get("Properties", {})
        if kind == "AWS::Serverless::Function":
            extra = ""
            if props.get("ProvisionedConcurrencyConfig"):
                unpriced.append(f"{logical} (provisioned concurrency)")
            for event_name, event in props.get("Events", {}).items():
                etype, eprops = event.get("Type"), event.get("Properties", {})
                sam_id = f"{logical}{event_name}"
                if etype == "SQS":
                    if eprops.get("Enabled", True) is not False:
                        lines.append(sqs_mapping_line(sam_id, logical, eprops, pollers=pollers))
                elif etype == "DynamoDB":
                    table = _target(eprops.get("Stream")) or "?"
                    stream_mappings[logical] = sam_id
                    lines.append(Line(sam_id, "DynamoDB stream mapping", {},
                                      f"{logical} <- {table} stream: Lambda's GetRecords are "
                                      f"free"))
                elif etype in ("Schedule", "ScheduleV2"):
                    if eprops.get("Enabled", True) is False or eprops.get("State") == "DISABLED":
                        continue
                    expression = eprops.get("Schedule") or eprops.get("ScheduleExpression")
                    schedule(sam_id, logical, expression, props,
                             "EventBridge rule (schedule)" if etype == "Schedule"
                             else "EventBridge Scheduler schedule")
                elif etype in ("HttpApi", "Api"):
                    extra = "billed per request"
                else:
                    unpriced.append(f"{sam_id} ({etype} event)")
            lines.append(Line(logical, "Lambda function", {},
                              extra or "no charge without provisioned concurrency"))
        elif kind == "AWS::Lambda::EventSourceMapping":
            source = _target(props.get("EventSourceArn")) or ""
            if resources.get(source, {}).get("Type") == "AWS::SQS::Queue":
                lines.append(sqs_mapping_line(logical, _target(props.get("FunctionName")) or "?",
                                              props, pollers=pollers))
            else:
                lines.append(Line(logical, "event-source mapping", {}, "stream reads are free"))
        elif kind in ("AWS::Events::Rule", "AWS::Scheduler::Schedule") and \
                props.get("ScheduleExpression"):
            targets = props.get("Targets") or [props.get("Target", {})]
            for target in targets:
                function = _target(target.get("Arn"))
                fn = resources.get(function or "", {})
                if fn.get("Type") == "AWS::Serverless::Function":
                    schedule(logical, function, props["ScheduleExpression"],
                             fn.get("Properties", {}), "EventBridge schedule")
                else:
                    unpriced.append(f"{logical} (schedule of a target not priced)")
        elif kind == "AWS::CloudWatch::Alarm":
            lines.append(alarm_line(logical, props))
        elif kind == "AWS::CloudWatch::CompositeAlarm":
            lines.append(Line(logical, "CloudWatch alarm", {"composite alarm": 0.50}))
        elif kind == "AWS::SecretsManager::Secret":
            replicas = len(props.get("ReplicaRegions", []))
            lines.append(Line(logical, "Secrets Manager secret",
                              {"secret": (1 + replicas) * PRICES["secret_month"]},
                              "read once per Lambda environment, by functions that run only on "
                              "traffic: no calls at idle (measured)"))
        elif kind == "AWS::SSM::Parameter":
            advanced = props.get("Tier") == "Advanced"
            lines.append(Line(logical, "SSM parameter",
                              {"advanced parameter": PRICES["ssm_advanced_parameter_month"]}
                              if advanced else {}, "standard: free"))
        elif kind in ("AWS::KMS::Key", "AWS::KMS::ReplicaKey"):
            lines.append(Line(logical, "KMS key", {"customer managed key":
                                                   PRICES["kms_key_month"]}))
        elif kind == "AWS::DynamoDB::Table":
            lines.append(_table_line(logical, props))
        elif kind in free_kinds:
            lines.append(Line(logical, kind.split("::", 1)[1], {}, free_kinds[kind]))
        else:
            unpriced.append(f"{logical} ({kind})")

    per_function: dict[str, float] = {}
    for _logical, function, expression, _props, _kind in schedules:
        per_function[function] = per_function.get(function, 0.0) + runs_per_month(expression)
    for spec in schedules:
        price_schedule(*spec, per_function[spec[1]])

    # The stream's consumer, invoked by what the schedules write (the dispatcher): charged to
    # its stream mapping.
    for function in dict.fromkeys(f for f, _, _ in follow):
        times = sum(n for f, n, _ in follow if f == function)
        if function not in stream_mappings:
            unpriced.append(f"{function} (invoked by the schedules' writes, no stream mapping)")
            continue
        line = next(li for li in lines if li.resource == stream_mappings[function])
        fn_props = resources[function].get("Properties", {})
        memory_gb = _memory(fn_props, globals_) / 1024
        calls = max(c for f, _, c in follow if f == function)
        seconds = calls * DYNAMODB_CALL_SECONDS + HANDLER_SECONDS
        cold = cold_starts(times)
        billed = times * math.ceil(seconds * 1000) / 1000 + cold * INIT_SECONDS
        line.items.update({
            "Lambda requests": times * PRICES["lambda_request"],
            "Lambda GB-s (INIT included)": billed * memory_gb * PRICES["lambda_gb_second"],
            "CloudWatch Logs": _logs(times),
        })
        if _traced(fn_props, globals_):
            line.items["X-Ray traces"] = times * PRICES["xray_trace"]
        line.note += (f"; {times:,.0f} invocations a month for the schedules' writes, "
                      f"{cold:,.0f} cold")
        cold_runs[function] = cold_runs.get(function, 0.0) + cold

    if cold_start_metric:
        for function, cold in cold_runs.items():
            if not cold:
                continue
            # billed for each hour with data; cold starts an hour or more apart: one hour each
            hours = min(HOURS, cold)
            lines.append(Line(f"{function}/ColdStart", "custom metric (Powertools ColdStart)",
                              {"metric-hours": hours / HOURS * PRICES["custom_metric_month"]},
                              f"{cold:,.0f} cold starts a month -> "
                              f"{hours:,.0f} metric-hours of {HOURS}"))
    return Idle(lines, params, unpriced, template, runs, cold_start_metric)


def _logs(invocations: float) -> float:
    gb = invocations * LOG_BYTES_PER_INVOCATION / 1e9
    # ingestion, and the month's logs stored (no retention is set: they stay, and add up)
    return gb * (PRICES["logs_ingest_gb"] + PRICES["logs_store_gb_month"])


def _table_line(logical: str, props: dict[str, Any]) -> Line:
    mode = props.get("BillingMode", "PROVISIONED")
    items: dict[str, float] = {}
    if mode == "PROVISIONED":
        throughput = [props.get("ProvisionedThroughput") or {}] + [
            g.get("ProvisionedThroughput") or {} for g in props.get("GlobalSecondaryIndexes", [])]
        rcu = sum(int(t.get("ReadCapacityUnits", 0)) for t in throughput)
        wcu = sum(int(t.get("WriteCapacityUnits", 0)) for t in throughput)
        items["provisioned capacity"] = HOURS * (rcu * PRICES["dynamodb_rcu_hour"]
                                                 + wcu * PRICES["dynamodb_wcu_hour"])
        note = f"provisioned: {rcu} RCU, {wcu} WCU, every hour"
    else:
        note = ("on-demand: no charge without requests; storage $0.25/GB-month"
                + (", PITR $0.20/GB-month" if (props.get("PointInTimeRecoverySpecification")
                                               or {}).get("PointInTimeRecoveryEnabled") else "")
                + " of data (none on a fresh stack)"
                + ("; stream read by Lambda: free" if props.get("StreamSpecification") else ""))
    return Line(logical, "DynamoDB table", items, note)


# -------------------------------------------------------------------------------- the levers
# What the SQS mappings left could become (docs/performance.md, "Idle"). Effects, stream, mail,
# media, cards, search and federation already take their jobs by asynchronous invocation
# (repo/queues.py); nothing below is built yet.
QUEUE_PLAN: dict[str, tuple[str, str]] = {
    "CountersFunctionJobs": ("sqs", "batches of 100 aggregated per counter item, 5 workers at "
                                    "most: SQS batching is the point"),
    "DeliveryFunctionJobs": ("federation queue", "re-sent with DelaySeconds on Mastodon's retry "
                                                 "schedule"),
    "InboxWorkerFunctionJobs": ("federation queue", "absorbs inbound bursts, 10 receives"),
    "PushWorkerFunctionJobs": ("federation queue", "growing retry delays: re-sent with a delay "
                                                   "as delivery does, instead of visibility"),
    "TimersFunctionJobs": ("scheduler", "EventBridge Scheduler invokes the function itself "
                                        "(its retry policy and dead-letter queue); the "
                                        "schedules already made target the queue: a migration"),
    "FanoutFunctionJobs": ("async", "capped by reserved concurrency instead of the mapping's "
                                    "MaximumConcurrency (a new account's quota may be 10: a "
                                    "parameter)"),
}


def per_mapping(pollers: int) -> float:
    return pollers * (60 / LONG_POLL_SECONDS) * 60 * HOURS * PRICES["sqs_request"]


def levers(idle: Idle) -> dict[str, Any]:
    """What each change would do to the idle figure (negative: saves)."""
    with_alarms = idle.again({"Alarms": "true"}) if "Alarms" in idle.parameters else idle
    mappings = idle.of_kind("SQS event-source mapping")
    today = sum(m.dollars for m in mappings)
    kept = {QUEUE_PLAN.get(m.resource, ("sqs", ""))[0] for m in mappings} & \
        {"sqs", "federation queue"}
    # what stays on SQS: Counters (capped: 5 pollers) and one merged federation queue
    plan = sum(per_mapping(POLLERS_MAX_CONCURRENCY if k == "sqs" else POLLERS) for k in kept)
    plan_floor = sum(per_mapping(POLLERS_MAX_CONCURRENCY if k == "sqs" else POLLERS_FLOOR)
                     for k in kept)
    secrets = sum(li.dollars for li in idle.of_kind("Secrets Manager secret"))
    metrics = sum(li.dollars for li in idle.of_kind("custom metric"))
    found = {
        "alarms on (Alarms=true)": with_alarms.per_month - idle.per_month,
        f"SQS mappings {len(mappings)} -> {len(kept)} (one federation queue, async invocation)":
            plan - today,
        "InstanceSecret -> SSM SecureString parameter": -secrets,
        "no Powertools ColdStart metric (capture_cold_start_metric=False)": -metrics,
    }
    found = {k: v for k, v in found.items() if abs(v) >= 0.005}  # those still open
    after = idle.per_month + sum(v for k, v in found.items() if not k.startswith("alarms"))
    return {"levers": found, "after_levers": after,
            "after_levers_two_pollers": after - plan + plan_floor,
            "mappings_today": today, "per_mapping": per_mapping(POLLERS),
            "per_mapping_floor": per_mapping(POLLERS_FLOOR)}


def per_million_jobs() -> dict[str, float]:
    """What carrying a million jobs costs each way (requests only; the worker's time is the
    same): SQS bills SendMessage(Batch), ReceiveMessage and DeleteMessageBatch per request,
    Lambda one request per invocation (an asynchronous Invoke is one request; its retries are
    more; the on-failure destination is paid only on failure)."""
    sqs, invoke = PRICES["sqs_request"], PRICES["lambda_request"]
    return {
        "SQS, one job per batch (send, receive, delete, invoke)": 1e6 * (3 * sqs + invoke),
        "SQS, full batches of 10 (sent 10 a request)": 1e6 * (0.3 * sqs + 0.1 * invoke),
        "merged queue, typed messages: as SQS today": 1e6 * (3 * sqs + invoke),
        "asynchronous Invoke, one job each": 1e6 * invoke,
        "asynchronous Invoke, 10 jobs a payload": 1e6 * 0.1 * invoke,
    }


# ---------------------------------------------------------------------------- measure, print
def measure(runtime: Any, template: dict[str, Any] | None = None) -> dict[str, Run]:
    """Each schedule of the template run twice on the (empty) local stack; the second run's
    DynamoDB calls and units, and the stream consumer's invocations its writes cause."""
    from . import costs
    from local.pipeline import invoke

    template = template if template is not None else cfn.load_template()
    pipeline = runtime.pipeline
    while pipeline.pump(schedules=False):
        pass
    found: dict[str, Run] = {}
    for fn in cfn.functions(template):
        events = template["Resources"][fn.logical_id]["Properties"].get("Events", {})
        for name, event in events.items():
            if event.get("Type") not in ("Schedule", "ScheduleV2"):
                continue
            payload = event["Properties"].get("Input")
            payload = json.loads(payload) if payload else {
                "version": "0", "detail-type": "Scheduled Event", "source": "aws.events",
                "detail": {}}
            for _ in range(2):
                recorder = costs.Recorder(runtime)
                with recorder:
                    invoke(runtime.stack, fn.logical_id, payload)
                    while pipeline.pump(schedules=False):
                        pass
            own = [i for i in recorder.invocations if i.function == fn.logical_id]
            others = [i for i in recorder.invocations if i.function != fn.logical_id]
            found[f"{fn.logical_id}{name}"] = Run(
                calls=sum(i.dynamodb_calls for i in own),
                read_units=sum(i.dynamodb.read for i in own),
                write_units=sum(i.dynamodb.write + i.dynamodb.index_write for i in own),
                stream_batches=len(others),
                follow_calls=max((i.dynamodb_calls for i in others), default=0),
                **({"follows": others[0].function} if others else {}))
    return found


def report(idle: Idle) -> str:
    out = ["Idle cost a month (no traffic), from template.yaml; parameters: "
           + ", ".join(f"{k}={v}" for k, v in sorted(idle.parameters.items())
                       if k in ("Alarms",)) + "; us-east-1, on-demand, no free tier"]
    out.append(f"{'resource':42} {'kind':34} {'$/month':>8}  what")
    for line in sorted(idle.lines, key=lambda li: -li.dollars):
        if line.dollars < 0.00005:
            continue
        out.append(f"{line.resource:42} {line.kind:34} {line.dollars:8.4f}  {line.note}")
    free: dict[str, int] = {}
    for line in idle.lines:
        if line.dollars < 0.00005:
            free[line.kind] = free.get(line.kind, 0) + 1
    out.append("free at idle: " + ", ".join(f"{n} {k}" for k, n in sorted(free.items())))
    if idle.unpriced:
        out.append("NOT PRICED: " + ", ".join(idle.unpriced))
    by_kind: dict[str, float] = {}
    for line in idle.lines:
        by_kind[line.kind] = by_kind.get(line.kind, 0) + line.dollars
    out.append("by kind: " + ", ".join(f"{k} ${v:.2f}" for k, v in
                                       sorted(by_kind.items(), key=lambda kv: -kv[1]) if v))
    floor = idle.again(pollers=POLLERS_FLOOR)
    out.append(f"TOTAL ${idle.per_month:.2f} a month (with 2 pollers per uncapped mapping, "
               f"Lambda's documented floor: ${floor.per_month:.2f}); goal $1.00")
    found = levers(idle)
    out.append("\nLevers (change in $/month):")
    for name, delta in found["levers"].items():
        out.append(f"  {name:72} {delta:+8.2f}")
    out.append(f"  {'all but the alarms':72} -> ${found['after_levers']:.2f} "
               f"(2 pollers: ${found['after_levers_two_pollers']:.2f})")
    out.append(f"  one SQS mapping idles at ${found['per_mapping']:.3f} a month "
               f"(${found['per_mapping_floor']:.3f} with 2 pollers)")
    out.append("\nCarrying a million jobs (requests only):")
    for name, dollars in per_million_jobs().items():
        out.append(f"  {name:60} ${dollars:.2f}")
    return "\n".join(out)


def as_json(idle: Idle) -> dict[str, Any]:
    found = levers(idle)
    return {"per_month": round(idle.per_month, 4), "by_resource": dict(sorted(
                idle.by_resource().items(), key=lambda kv: -kv[1])),
            "per_month_two_pollers": round(idle.again(pollers=POLLERS_FLOOR).per_month, 4),
            "parameters": {k: idle.parameters[k] for k in ("Alarms",) if k in idle.parameters},
            "levers": {k: round(v, 4) for k, v in found["levers"].items()},
            "after_levers": round(found["after_levers"], 4),
            "unpriced": idle.unpriced}


def run(runtime: Any = None) -> Idle:
    """`make bench`'s part: the figure and the table (the runs as measured in RUNS)."""
    idle = compute()
    print("\n" + report(idle))
    return idle


def cli(args: list[str], start_stack: Any = None) -> int:
    """`python -m bench idle [--json] [--param NAME=VALUE ...] [--measure]`."""
    usage = "usage: python -m bench idle [--json] [--param NAME=VALUE ...] [--measure]"
    given: dict[str, str] = {}
    json_out = measure_runs = False
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json":
            json_out = True
        elif arg == "--measure":
            measure_runs = True
        elif arg == "--param" and rest and "=" in rest[0]:
            name, value = rest.pop(0).split("=", 1)
            given[name] = value
        else:
            print(usage, file=sys.stderr)
            return 2
    runs = None
    if measure_runs:
        from .output import stdout_to_stderr

        with stdout_to_stderr():  # what the stack prints stays out of the figures
            emulator, runtime = start_stack()
            try:
                runs = measure(runtime)
            finally:
                emulator.stop()
        if not json_out:
            print("Measured runs (an empty stack):")
            for key, value in runs.items():
                print(f"  {key}: {value}")
    try:
        idle = compute(copy.deepcopy(cfn.load_template()), given, runs=runs)
    except ValueError as exc:
        print(f"{exc}\n{usage}", file=sys.stderr)
        return 2
    print(json.dumps(as_json(idle)) if json_out else report(idle))
    return 0
