"""SQS worker: sends the e-mail that job messages ask for (confirmation links)."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

from stratus.observability import job_handler
from stratus.services import mailer

processor = BatchProcessor(event_type=EventType.SQS)


def _record(record: Any) -> None:
    mailer.handle(json.loads(record.body))


def _handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=_record, processor=processor,
                                    context=context)


handler = job_handler(_handle)
