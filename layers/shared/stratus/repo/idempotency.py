"""The Idempotency table, as Powertools' persistence layer (with our lazily made client)."""

from __future__ import annotations

import os
from typing import Any

from stratus.repo.client import client


def persistence_layer() -> Any:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(table_name=os.environ["IDEMPOTENCY_TABLE"],
                                    boto3_client=client("dynamodb"))
