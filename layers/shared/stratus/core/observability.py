"""Powertools Logger, Tracer and Metrics, and the wrappers every Lambda handler uses.

Service name and metrics namespace come from POWERTOOLS_* environment variables (template.yaml
Globals). Tracing is a no-op outside Lambda (POWERTOOLS_TRACE_DISABLED in the local stack/tests).

The Tracer is made at the first invocation that traces, not at import: making it imports the
X-Ray SDK and patches botocore (with `Tracing: Active`, ~100 ms of every function's INIT, and
the SDK's module body even with tracing off). A handler's first invocation makes it before any
AWS client is made (clients are made at first use, in the repo layer), so every call is traced
as before; with tracing off (the local stack, the tests) the SDK is never imported. Only
botocore is patched: Powertools' default, `patch_all`, also patches `requests` and `sqlite3`,
which no request of ours goes through, and imports them to do it. `python -m bench init`
measures INIT as Lambda runs it (docs/performance.md).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging import correlation_paths

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

logger = Logger()
metrics = Metrics()

TRACED_MODULES = ("botocore",)  # what the X-Ray SDK patches: every AWS call we make
_tracer: Tracer | None = None
_tracer_lock = threading.Lock()


def tracing_enabled() -> bool:
    """Whether Powertools would trace here: not with POWERTOOLS_TRACE_DISABLED, nor outside
    Lambda (no LAMBDA_TASK_ROOT), nor under SAM's or Chalice's local emulation."""
    from aws_lambda_powertools.shared import constants
    from aws_lambda_powertools.shared.functions import resolve_truthy_env_var_choice

    if resolve_truthy_env_var_choice(env=os.getenv(constants.TRACER_DISABLED_ENV, "false")):
        return False
    return bool(os.getenv(constants.LAMBDA_TASK_ROOT_ENV)) and not (
        os.getenv(constants.SAM_LOCAL_ENV) or os.getenv(constants.CHALICE_LOCAL_ENV))


def get_tracer() -> Tracer | None:
    """The process's Powertools Tracer, made (X-Ray SDK imported, botocore patched) at the first
    call; None when tracing is off."""
    global _tracer
    if _tracer is None and tracing_enabled():
        with _tracer_lock:
            if _tracer is None:
                from aws_lambda_powertools import Tracer

                _tracer = Tracer(patch_modules=TRACED_MODULES)
    return _tracer


def _traced(fn: Callable[[dict, Any], Any]) -> Callable[[dict, Any], Any]:
    """`tracer.capture_lambda_handler(capture_response=False)`, the tracer made at the first
    invocation (`get_tracer`): a subsegment per invocation with the ColdStart and Service
    annotations, exceptions recorded. Without tracing, `fn` itself."""
    chosen: Callable[[dict, Any], Any] | None = None

    @functools.wraps(fn)
    def handler(event: dict, context: Any) -> Any:
        nonlocal chosen
        if chosen is None:
            made = get_tracer()
            chosen = fn if made is None else made.capture_lambda_handler(
                fn, capture_response=False)
        return chosen(event, context)

    return handler


HTTP_MARGIN = 1.5  # seconds an HTTP function keeps for its answer after its last outbound request


def http_handler(app: Any) -> Callable[[dict, Any], dict]:
    """Wrap an ASGI app for API Gateway HTTP API events (Mangum), with logs, traces, metrics."""
    from mangum import Mangum

    mangum = Mangum(app, lifespan="off", api_gateway_base_path="/")

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP,
                                  clear_state=True)
    @_traced
    # No ColdStart metric: a custom metric nothing reads, $0.30 a month per function that
    # starts cold in an hour (docs/performance.md, "idle cost"); cold starts show in X-Ray.
    @metrics.log_metrics(capture_cold_start_metric=False)
    def handler(event: dict, context: Any) -> dict:
        remaining = getattr(context, "get_remaining_time_in_millis", None)
        if remaining is None:
            return mangum(event, context)
        from stratus.core import outbound

        # Outbound requests made for this request (an inbox's key fetch, a search's resolve)
        # end before the function does: a slow peer gets a timeout, the client an answer.
        with outbound.budget(max(remaining() / 1000 - HTTP_MARGIN, 0.5)):
            return mangum(event, context)

    handler.http_margin = HTTP_MARGIN  # type: ignore[attr-defined]  # its budget: the time left
    return handler


def job_handler(fn: Callable[[dict, Any], Any], *,
                limits: JobLimits) -> Callable[[dict, Any], Any]:
    """Wrap a non-HTTP handler (streams, schedules, state machine steps, a whole SQS batch) with
    logs, traces and metrics; its outbound requests, if any, share one budget of
    `limits.seconds` (less when the invocation has less left than that and the margin) and
    `limits.requests` (the handler's `limits` attribute, read at each invocation)."""

    @logger.inject_lambda_context(clear_state=True)
    @_traced
    # No ColdStart metric: a custom metric nothing reads, $0.30 a month per function that
    # starts cold in an hour (docs/performance.md, "idle cost"); cold starts show in X-Ray.
    @metrics.log_metrics(capture_cold_start_metric=False)
    def handler(event: dict, context: Any) -> Any:
        from stratus.core import outbound

        chosen: JobLimits = wrapped.limits  # type: ignore[attr-defined]
        left = _time_left(chosen, context)
        seconds = chosen.seconds if left is None else max(min(chosen.seconds, left), 0.5)
        with outbound.budget(seconds, requests=chosen.requests):
            return fn(event, context)

    wrapped = handler
    wrapped.limits = limits  # type: ignore[attr-defined]
    return wrapped


@dataclass(frozen=True)
class JobLimits:
    """What one queued job may spend (stratus.core.outbound.budget): `seconds` of requests in all and
    at most `requests` requests (None: no count); `margin` is kept besides for what the job does
    after its last request (its writes) and for the batch's answer. `seconds + margin` stays
    below the function's timeout (tests/template/test_job_budgets.py), so a job never outlives
    its invocation and a batch always has the time to start its first record."""

    seconds: float
    requests: int | None = None
    margin: float = 5.0


def _time_left(limits: JobLimits, context: Any) -> float | None:
    """Seconds the invocation has left once the margin is kept (None: no Lambda context)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return None if remaining is None else remaining() / 1000 - limits.margin


class NoTimeLeft(Exception):
    """The invocation has not the time one more job may take: the record is not started. It is
    sent again as a new message (`send_again`), its receive not spent; only when nothing of the
    batch could start (an invocation given less time than one job) is it reported failed."""


def _permanent(exc: BaseException) -> bool:
    """A failure that running the job again cannot mend: a message that is no job or a write
    DynamoDB refuses on every attempt (`Permanent`; repo/item_size.Unstorable), or a document
    nested too deeply to walk (jsondoc.TooDeep, or a
    RecursionError from code walking one)."""
    from stratus.core.errors import Permanent
    from stratus.core.jsondoc import TooDeep

    return isinstance(exc, (Permanent, TooDeep, RecursionError))


class JobsFailed(Exception):
    """Some jobs of an asynchronous invocation failed (each is logged): Lambda retries it."""


def _as_records(event: Any, context: Any) -> list[dict]:
    """An asynchronous invocation's jobs (repo/queues.py: `{"jobs": [...]}`; anything else is
    taken as one job, to be dropped if it is none) as SQS records, so that one record handler
    serves both ways."""
    import json

    jobs = event["jobs"] if isinstance(event, dict) and isinstance(event.get("jobs"), list) \
        else [event]
    request = getattr(context, "aws_request_id", None) or "async"
    return [{"messageId": f"{request}/{i}", "receiptHandle": "",
             "body": json.dumps(job, separators=(",", ":")), "attributes": {},
             "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:lambda",
             "eventSourceARN": "", "awsRegion": ""} for i, job in enumerate(jobs)]


def fair(records: list[dict], key: Callable[[dict], str | None]) -> list[dict]:
    """The records taken in turn by `key` (a sender's domain): the first of each key, then
    the second of each, ...; so that one sender's many records ahead of another's do not take
    the time of the whole batch. Records without a key (or whose key cannot be read: a body
    that is no job is the record handler's to drop) keep their turn among the first."""
    rounds: dict[str, list[dict]] = {}
    alone: list[dict] = []
    for record in records:
        try:
            name = key(record)
        except Exception:  # noqa: BLE001 - ordering never fails a batch
            name = None
        if name is None:
            alone.append(record)
        else:
            rounds.setdefault(name, []).append(record)
    ordered, turn = list(alone), 0
    while any(len(group) > turn for group in rounds.values()):
        ordered += [group[turn] for group in rounds.values() if len(group) > turn]
        turn += 1
    return ordered


SendAgain = Callable[[list[dict], Any], None]


def sqs_batch_handler(record_handler: Callable[[Any], Any], *, limits: JobLimits,
                      send_again: SendAgain,
                      fair_by: Callable[[dict], str | None] | None = None
                      ) -> Callable[[dict, Any], Any]:
    """A job consumer, of SQS batches or of asynchronous invocations (`_as_records`): each
    record handled on its own, failures reported per message
    (Powertools BatchProcessor → ReportBatchItemFailures), so one poison message is retried
    and dead-lettered without holding back the rest of the batch.

    A job that can never succeed (`_permanent`) is logged and dropped, not retried until it
    reaches the dead-letter queue. Each record runs inside an outbound budget of
    `limits.seconds` and `limits.requests` (the handler's `limits` attribute, read at each
    invocation), and is started only while the Lambda context has that time and the margin
    left, so a batch never times out half done. The records it had no time to start are not
    failed tries: `send_again(records, context)` (repo/queues.send_again) sends them as new
    messages the way they came — SQS counts every receive towards maxReceiveCount, and Lambda
    every try of an asynchronous event, so records reported failed unrun would reach the
    dead-letter queue behind slow ones — and they are reported done. `fair_by` (a record's
    sender) orders the batch in turns (`fair`)."""
    from aws_lambda_powertools.utilities.batch import (
        BatchProcessor,
        EventType,
        process_partial_response,
    )

    processor = BatchProcessor(event_type=EventType.SQS)

    def handle(event: dict, context: Any) -> Any:
        chosen: JobLimits = handler.limits  # type: ignore[attr-defined]
        unrun: list[dict] = []
        started = 0

        def run(record: Any) -> Any:
            nonlocal started
            try:
                from stratus.core import outbound

                left = _time_left(chosen, context)
                if unrun or (left is not None and left < chosen.seconds):
                    if started:  # not a try: sent again below
                        unrun.append(record.raw_event)
                        return None
                    raise NoTimeLeft(f"{(left or 0) + chosen.margin:.1f} s left, a job may "
                                     f"take {chosen.seconds + chosen.margin:g} s")
                started += 1
                with outbound.budget(chosen.seconds, requests=chosen.requests):
                    return record_handler(record)
            except Exception as exc:
                if not _permanent(exc):
                    raise
                logger.warning("job dropped: it can never succeed", extra={
                    "message_id": getattr(record, "message_id", None),
                    "reason": f"{type(exc).__name__}: {str(exc)[:200]}"})
                return None

        def answer(records: list[dict]) -> dict:
            if fair_by is not None:
                records = fair(records, fair_by)
            result = process_partial_response(event={"Records": records}, record_handler=run,
                                              processor=processor, context=context)
            if unrun:
                try:
                    send_again(unrun, context)
                    logger.info("jobs sent again unrun: no time left in this invocation",
                                extra={"jobs": len(unrun), "ran": started})
                except Exception:  # their receives are spent after all: they come back
                    logger.exception("jobs not sent again", extra={"jobs": len(unrun)})
                    result = {"batchItemFailures": [
                        *(result.get("batchItemFailures") or []),
                        *({"itemIdentifier": r["messageId"]} for r in unrun)]}
            return result

        if isinstance(event, dict) and "Records" in event:
            return answer(list(event["Records"]))
        # An asynchronous invocation: its jobs in order; one that failed fails the event, which
        # Lambda retries whole (jobs are idempotent) and then dead-letters.
        records = _as_records(event, context)
        result = answer(records)
        failed = result.get("batchItemFailures") or []
        if failed:
            raise JobsFailed(f"{len(failed)} of {len(records)} jobs failed")
        return result

    handler = _batch_wrapped(handle)
    handler.limits = limits  # type: ignore[attr-defined]
    return handler


def _batch_wrapped(fn: Callable[[dict, Any], Any]) -> Callable[[dict, Any], Any]:
    """A batch handler with logs, traces and metrics (each record has its own budget)."""

    @logger.inject_lambda_context(clear_state=True)
    @_traced
    @metrics.log_metrics(capture_cold_start_metric=False)
    def handler(event: dict, context: Any) -> Any:
        return fn(event, context)

    return handler
