"""SQS worker: hashtag index entries and notification records derived from status activity."""

from __future__ import annotations

import json
from typing import Any

from stratus.observability import sqs_batch_handler
from stratus.services import effects


def _record(record: Any) -> None:
    effects.handle(json.loads(record.body))


handler = sqs_batch_handler(_record)
