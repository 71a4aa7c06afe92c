"""Keeping the local stack's data, and its unfinished work, across restarts of `make dev`.

moto keeps everything in memory. On a clean stop the dev server writes to
`.stratus/snapshot.json` the tables, media objects, one-off schedules and the instance secret,
and the work still under way: the stream records the pipeline has not yet handed over
successfully and every message in the queues (visible, in flight or waiting for a retry; the
asynchronous invocations waiting in theirs included). The next start loads the data, moves the
stream reader past the writes the restore itself made (their side effects happened before the
stop), then hands the saved records back to their function and puts the saved messages back in
their queues: each pending side effect runs once after the restart, and none twice. This is a
development convenience that scans whole tables; nothing like it runs on AWS, where the stream
and the queues outlive any one process.
"""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from typing import Any

from stratus.repo.client import client

from . import emulator

logger = logging.getLogger("stratus.local")

_BYTES = "$bytes"  # how binary values (DynamoDB B/BS, SQS Binary attributes) are written


def _encode(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return {_BYTES: base64.b64encode(value).decode()}
    return str(value)


def _decode(obj: dict[str, Any]) -> Any:
    return base64.b64decode(obj[_BYTES]) if set(obj) == {_BYTES} else obj


def save(stack: Any, path: Path, pipeline: Any) -> dict[str, int]:
    ddb, s3 = client("dynamodb"), client("s3")
    data: dict[str, Any] = {"tables": {}, "objects": {}, "schedules": [], "secrets": {},
                            "stream_backlog": {}, "messages": {}, "executions": []}
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
    data["stream_backlog"] = pipeline.backlog()
    data["executions"] = pipeline.running()
    for logical, url in stack.queue_urls.items():
        messages = emulator.queue_messages(url)
        if messages:
            data["messages"][logical] = messages
    path.write_text(json.dumps(data, default=_encode))
    counts = {logical: len(items) for logical, items in data["tables"].items()}
    counts["pending records"] = sum(len(r) for r in data["stream_backlog"].values())
    counts["queued messages"] = sum(len(m) for m in data["messages"].values())
    counts["running executions"] = len(data["executions"])
    return counts


def restore(stack: Any, path: Path, pipeline: Any) -> bool:
    if not path.exists():
        return False
    data = json.loads(path.read_text(), object_hook=_decode)
    ddb, s3 = client("dynamodb"), client("s3")
    for logical, items in data.get("tables", {}).items():
        name = stack.table_names.get(logical)
        for start in range(0, len(items) if name else 0, 25):
            ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": item}}
                                                      for item in items[start:start + 25]]})
    # The restore's own writes are on the stream now: their side effects already happened.
    pipeline.skip_stream()
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
    resumed = pipeline.resume(data.get("stream_backlog") or {})
    sqs, requeued = client("sqs"), 0
    for logical, messages in (data.get("messages") or {}).items():
        url = stack.queue_urls.get(logical)
        for start in range(0, len(messages) if url else 0, 10):
            entries = [{"Id": str(i), **_sendable(m)}
                       for i, m in enumerate(messages[start:start + 10])]
            failed = sqs.send_message_batch(QueueUrl=url, Entries=entries).get("Failed")
            if failed:
                raise RuntimeError(f"could not put saved messages back in {logical}: {failed}")
            requeued += len(entries)
    running = pipeline.resume_running(data.get("executions") or [])
    logger.info("restored the local stack's data from %s (%d pending stream records, "
                "%d queued messages, %d running executions)", path, resumed, requeued, running)
    return True


def _sendable(message: dict[str, Any]) -> dict[str, Any]:
    """SendMessage arguments: binary attribute values as bytes (the emulator keeps base64)."""
    attributes = {}
    for name, value in (message.get("MessageAttributes") or {}).items():
        value = dict(value)
        if isinstance(value.get("BinaryValue"), str):
            value["BinaryValue"] = base64.b64decode(value["BinaryValue"])
        attributes[name] = value
    return {"MessageBody": message["MessageBody"],
            **({"MessageAttributes": attributes} if attributes else {})}
