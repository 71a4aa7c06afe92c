"""Powertools Logger, Tracer and Metrics, and the wrappers every Lambda handler uses.

Service name and metrics namespace come from POWERTOOLS_* environment variables (template.yaml
Globals). Tracing is a no-op outside Lambda (POWERTOOLS_TRACE_DISABLED in the local stack/tests).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths

logger = Logger()
tracer = Tracer()
metrics = Metrics()


def http_handler(app: Any) -> Callable[[dict, Any], dict]:
    """Wrap an ASGI app for API Gateway HTTP API events (Mangum), with logs, traces, metrics."""
    from mangum import Mangum

    mangum = Mangum(app, lifespan="off", api_gateway_base_path="/")

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP,
                                  clear_state=True)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict, context: Any) -> dict:
        return mangum(event, context)

    return handler


def job_handler(fn: Callable[[dict, Any], Any]) -> Callable[[dict, Any], Any]:
    """Wrap a non-HTTP handler (streams, SQS, schedules) with logs, traces and metrics."""

    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics(capture_cold_start_metric=True)
    def handler(event: dict, context: Any) -> Any:
        return fn(event, context)

    return handler


def sqs_batch_handler(record_handler: Callable[[Any], Any]) -> Callable[[dict, Any], Any]:
    """An SQS consumer: each record handled on its own, failures reported per message
    (Powertools BatchProcessor → ReportBatchItemFailures), so one poison message is retried
    and dead-lettered without holding back the rest of the batch."""
    from aws_lambda_powertools.utilities.batch import (BatchProcessor, EventType,
                                                       process_partial_response)

    processor = BatchProcessor(event_type=EventType.SQS)

    def handle(event: dict, context: Any) -> Any:
        return process_partial_response(event=event, record_handler=record_handler,
                                        processor=processor, context=context)

    return job_handler(handle)
