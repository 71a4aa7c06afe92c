"""SQS worker: applies instance counter changes (users, local posts, weekly activity)."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

from stratus.jobs.messages import ItemChanged
from stratus.observability import job_handler
from stratus.services import stats

processor = BatchProcessor(event_type=EventType.SQS)


def _record(record: Any) -> None:
    stats.apply_change(ItemChanged.from_dict(json.loads(record.body)))


def _handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=_record, processor=processor,
                                    context=context)


handler = job_handler(_handle)
