"""The pipeline by hand: stream → dispatch without the workers, the jobs left on a queue, a
duplicate delivery, stream records and their routes, Lambda sample events, and a count of the
DynamoDB calls made."""

from __future__ import annotations

import json

from stratus.jobs.outbox import route
from stratus.repo.base import serialize
from stratus.repo.client import client as aws


def dispatch_only(runtime) -> None:
    """Stream → dispatch, leaving the jobs on their queues."""
    for source in runtime.pipeline.streams:
        while runtime.pipeline.pump_stream(source):
            pass


def queued(runtime, queue: str) -> list[str]:
    """The jobs waiting on `queue` (a function's asynchronous invocations: `<Function>:async`,
    each event's jobs), as JSON, taken off it."""
    sqs = aws("sqs")
    bodies = []
    while True:
        got = sqs.receive_message(QueueUrl=runtime.stack.queue_urls[queue],
                                  MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return bodies
        for message in got:
            if queue.endswith(":async"):
                bodies += [json.dumps(job) for job in json.loads(message["Body"])["jobs"]]
            else:
                bodies.append(message["Body"])
            sqs.delete_message(QueueUrl=runtime.stack.queue_urls[queue],
                               ReceiptHandle=message["ReceiptHandle"])


def deliver_twice(runtime, queue: str) -> int:
    """Every job waiting on `queue` is put back twice (a duplicate delivery), each on its own."""
    bodies = queued(runtime, queue)
    url = runtime.stack.queue_urls[queue]
    for body in bodies:
        if queue.endswith(":async"):
            body = json.dumps({"jobs": [json.loads(body)]})
        aws("sqs").send_message(QueueUrl=url, MessageBody=body)
        aws("sqs").send_message(QueueUrl=url, MessageBody=body)
    return len(bodies)


def record(event: str, new: dict | None = None, old: dict | None = None, **extra) -> dict:
    """A DynamoDB stream record of an item change (with the item's `Keys`, as DynamoDB sends
    them, when the image has its keys)."""
    images: dict = {"SequenceNumber": "1"}
    image = new or old or {}
    if "PK" in image:
        images["Keys"] = serialize({"PK": image["PK"], "SK": image["SK"]})
    if new:
        images["NewImage"] = serialize(new)
    if old:
        images["OldImage"] = serialize(old)
    return {"eventID": "e1", "eventName": event, "dynamodb": images, **extra}


STATUS = {"type": "status", "id": "10", "account_id": "1", "visibility": "public",
          "tags": ["a"], "mention_ids": ["2"], "local": True}


def routed(rec: dict) -> list[tuple[str, str]]:
    """The (queue, job name) pairs the outbox routes a stream record to."""
    return [(queue, job.name) for queue, job in route(rec)]


def sample(name: str) -> dict:
    """A Lambda sample event of events/."""
    from local import cfn

    return json.loads((cfn.ROOT / "events" / f"{name}.json").read_text())


def count_dynamodb_calls():
    """Start counting the DynamoDB operations made: (the list of their names, a function that
    stops counting). A warm cache renewed in the background (`parallel.detached`) is no call
    of the request being counted."""
    from stratus.core import parallel
    from stratus.repo.client import dynamodb

    calls: list[str] = []
    client = dynamodb()
    client.meta.events.register("before-call.dynamodb",
                                lambda model, **_: None if parallel.is_detached()
                                else calls.append(model.name),
                                unique_id="roles-test-count")
    return calls, lambda: client.meta.events.unregister("before-call.dynamodb",
                                                        unique_id="roles-test-count")
