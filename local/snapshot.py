"""Keeping the local stack's data across restarts of `make dev`.

moto keeps everything in memory. On a clean stop the dev server writes the tables, media
objects, one-off schedules and the instance secret to `.stratus/snapshot.json`; the next start
loads them back before the background loops run (the stream is then read from its latest
position, so restored items do not trigger their side effects a second time). This is a
development convenience that scans whole tables; nothing like it runs on AWS.
"""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

from stratus.repo.client import client

logger = logging.getLogger("stratus.local")


def save(stack: Any, path: Path) -> dict[str, int]:
    ddb, s3 = client("dynamodb"), client("s3")
    data: dict[str, Any] = {"tables": {}, "objects": {}, "schedules": [], "secrets": {}}
    for logical, name in stack.table_names.items():
        items: list[dict[str, Any]] = []
        for page in ddb.get_paginator("scan").paginate(TableName=name):
            items.extend(page.get("Items", []))
        data["tables"][logical] = items
    for logical, bucket in stack.bucket_names.items():
        objects = {}
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for entry in page.get("Contents", []):
                obj = s3.get_object(Bucket=bucket, Key=entry["Key"])
                objects[entry["Key"]] = {"type": obj.get("ContentType", "application/octet-stream"),
                                         "body": base64.b64encode(obj["Body"].read()).decode()}
        data["objects"][logical] = objects
    scheduler = client("scheduler")
    for summary in scheduler.list_schedules().get("Schedules", []):
        detail = scheduler.get_schedule(Name=summary["Name"])
        data["schedules"].append({k: detail[k] for k in (
            "Name", "ScheduleExpression", "FlexibleTimeWindow", "Target") if k in detail}
            | {"ActionAfterCompletion": detail.get("ActionAfterCompletion", "NONE")})
    secrets = client("secretsmanager")
    for logical, arn in stack.secret_arns.items():
        data["secrets"][logical] = secrets.get_secret_value(SecretId=arn)["SecretString"]
    path.write_text(json.dumps(data, default=str))
    return {logical: len(items) for logical, items in data["tables"].items()}


def restore(stack: Any, path: Path) -> bool:
    if not path.exists():
        return False
    data = json.loads(path.read_text())
    ddb, s3 = client("dynamodb"), client("s3")
    for logical, items in data.get("tables", {}).items():
        name = stack.table_names.get(logical)
        for start in range(0, len(items) if name else 0, 25):
            ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": item}}
                                                      for item in items[start:start + 25]]})
    for logical, objects in data.get("objects", {}).items():
        bucket = stack.bucket_names.get(logical)
        for key, obj in objects.items() if bucket else []:
            s3.put_object(Bucket=bucket, Key=key, Body=base64.b64decode(obj["body"]),
                          ContentType=obj["type"])
    scheduler = client("scheduler")
    for schedule in data.get("schedules", []):
        scheduler.create_schedule(**schedule)
    secrets = client("secretsmanager")
    for logical, value in data.get("secrets", {}).items():
        if logical in stack.secret_arns:
            secrets.put_secret_value(SecretId=stack.secret_arns[logical], SecretString=value)
    logger.info("restored the local stack's data from %s", path)
    return True
