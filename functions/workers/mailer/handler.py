"""SQS worker: sends the e-mail that job messages ask for (confirmation links)."""

from __future__ import annotations

import json
from typing import Any

from stratus.observability import sqs_batch_handler
from stratus.services import mailer


def _record(record: Any) -> None:
    mailer.handle(json.loads(record.body))


handler = sqs_batch_handler(_record)
