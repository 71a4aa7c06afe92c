"""SQS worker: applies instance counter changes (users, local posts, weekly activity)."""

from __future__ import annotations

import json
from typing import Any

from stratus.jobs.messages import ItemChanged
from stratus.observability import sqs_batch_handler
from stratus.services import stats


def _record(record: Any) -> None:
    stats.apply_change(ItemChanged.from_dict(json.loads(record.body)))


handler = sqs_batch_handler(_record)
