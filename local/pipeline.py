"""The event sources Lambda would run: Main table stream → dispatch, SQS → workers (partial
batch failures, DLQ redrive), EventBridge schedules and one-off Scheduler schedules → targets,
and Step Functions executions (local/states.py runs them one state per round).

An invocation by a stream, a queue or an asynchronous event that runs past its function's
Timeout fails, as Lambda stops it there (local/lambda_runtime.invoke's `enforce_timeout`: a
whole SQS batch back, an event retried); a cold start's imports are not part of that time.

`pump()` does one round of everything and says how much work it found: the tests' `drain()`
calls it until the system is quiet. `run()` (the local stack's background threads, one per
stream and per queue as Lambda's event source mappings run side by side, one for the schedules
and executions) pumps each source whenever it may have work: at once after a round that found
some, else when the emulator announces new work on its channel (a stream record, a message sent
to its queue, a schedule created, an execution started: `emulator.ACTIVITY`) or when its next
thing falls due (a rate schedule, a one-off schedule's time, a delayed message or a retry
becoming visible, a state machine's wait), and otherwise sleeps.

Like Lambda's event source mapping, the stream reader keeps its own checkpoint (the last
sequence number it read, per shard): when its shard iterator expires it takes a new one after
that checkpoint, and `backlog()`/`resume()` carry the records it has not yet handed over
successfully across a restart of the local stack (local/snapshot.py).
"""

from __future__ import annotations

import logging
import json
import re
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from stratus.repo.client import client

from . import cfn, emulator, states
from .lambda_runtime import invoke
from .stack import async_queue

logger = logging.getLogger("stratus.local")

_RATE = re.compile(r"^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$")
_UNITS = {"minute": 60, "minutes": 60, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400}


def rate_seconds(expression: str) -> int:
    match = _RATE.match(expression.strip())
    if not match:
        raise ValueError(f"the local stack runs rate(...) schedules only, not {expression!r}")
    return int(match.group(1)) * _UNITS[match.group(2)]


@dataclass
class StreamSource:
    function: str
    stream_arn: str
    batch_size: int
    max_retries: int
    on_failure_queue: str | None
    iterators: dict[str, str | None] = field(default_factory=dict)
    positions: dict[str, str] = field(default_factory=dict)  # shard -> last sequence number read
    pending: list[dict[str, Any]] = field(default_factory=list)  # read, not yet handled
    attempts: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


@dataclass
class QueueSource:
    function: str
    queue: str  # logical id (a function's asynchronous invocations: stack.async_queue)
    url: str
    arn: str
    batch_size: int
    # Asynchronous invocations (the function's EventInvokeConfig): each message is one event,
    # tried 1 + `retries` times, then sent to the `on_failure` queue (logical id), if any.
    retries: int | None = None
    on_failure: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


@dataclass
class ScheduleSource:
    function: str
    every: int
    next_at: float
    name: str
    input: dict[str, Any] | None = None  # the rule's constant input replaces the event


def failed_invocation(function_arn: str, message: dict[str, Any], tries: int,
                      error: BaseException) -> dict[str, Any]:
    """What Lambda sends an on-failure destination when an asynchronous invocation has used up
    its retries (Lambda Developer Guide, "Capturing records of Lambda asynchronous invocations")."""
    return {"version": "1.0", "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "requestContext": {"requestId": message["MessageId"],
                               "functionArn": f"{function_arn}:$LATEST",
                               "condition": "RetriesExhausted", "approximateInvokeCount": tries},
            "requestPayload": json.loads(message["Body"]),
            "responseContext": {"statusCode": 200, "executedVersion": "$LATEST",
                                "functionError": "Unhandled"},
            "responsePayload": {"errorMessage": str(error)[:1000],
                                "errorType": type(error).__name__}}


class Pipeline:
    def __init__(self, stack: Any, *, retry_delay: int = 1, run_schedules_now: bool = True
                 ) -> None:
        self.stack = stack
        self.retry_delay = retry_delay
        self.streams: list[StreamSource] = []
        self.queues: list[QueueSource] = []
        self.schedules: list[ScheduleSource] = []
        self.fired_once: set[str] = set()
        self.runs: dict[str, states.Run] = {}  # execution ARN -> where it is
        self.one_off_due: float | None = None  # monotonic time of the next one-off schedule
        # emulator.CHANGES when the schedules and executions were last listed (None: never)
        self.listed: dict[str, int | None] = {"schedules": None, "executions": None}
        self.rounds = 0  # rounds `run()` has made (tests/local/test_pipeline_wakes.py)
        self.lock = threading.Lock()
        resolver = stack.resolver
        now = time.monotonic()
        for fn in stack.functions.values():
            for props in fn.streams:
                destination = props.get("DestinationConfig", {}).get("OnFailure", {})
                dlq = None
                if destination.get("Destination"):
                    arn = resolver.resolve(destination["Destination"])
                    dlq = next((q for q in stack.queue_urls
                                if resolver.attributes.get((q, "Arn")) == arn), None)
                self.streams.append(StreamSource(
                    fn.logical_id, resolver.resolve(props["Stream"]),
                    int(props.get("BatchSize", 100)), int(props.get("MaximumRetryAttempts", 3)),
                    dlq))
            for props in fn.queues:
                arn = resolver.resolve(props["Queue"])
                logical = next(q for q in stack.queue_urls
                               if resolver.attributes.get((q, "Arn")) == arn)
                self.queues.append(QueueSource(fn.logical_id, logical,
                                               stack.queue_urls[logical], arn,
                                               int(props.get("BatchSize", 10))))
            if fn.invoke_config is not None:
                destination = fn.invoke_config.get("DestinationConfig", {}).get(
                    "OnFailure", {}).get("Destination")
                arn = resolver.resolve(destination) if destination else None
                key = async_queue(fn.logical_id)
                self.queues.append(QueueSource(
                    fn.logical_id, key, stack.queue_urls[key],
                    resolver.attributes.get((fn.logical_id, "Arn"), ""), 10,
                    retries=int(fn.invoke_config.get("MaximumRetryAttempts", 2)),
                    on_failure=next((q for q in stack.queue_urls
                                     if resolver.attributes.get((q, "Arn")) == arn), None)))
            for props in fn.schedules:
                expression = props.get("Schedule") or props.get("ScheduleExpression")
                every = rate_seconds(expression)
                self.schedules.append(ScheduleSource(
                    fn.logical_id, every, now if run_schedules_now else now + every,
                    f"{fn.logical_id}:{expression}",
                    json.loads(props["Input"]) if props.get("Input") else None))

    # -- DynamoDB stream -> function ---------------------------------------------------------
    def _iterator(self, source: StreamSource, shard: str) -> str:
        """A shard iterator just past what `source` has read (the whole shard if nothing)."""
        after = source.positions.get(shard)
        where = ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after}
                 if after else {"ShardIteratorType": "TRIM_HORIZON"})
        return client("dynamodbstreams").get_shard_iterator(
            StreamArn=source.stream_arn, ShardId=shard, **where)["ShardIterator"]

    def _shards(self, source: StreamSource) -> list[dict[str, Any]]:
        description = client("dynamodbstreams").describe_stream(StreamArn=source.stream_arn)
        return description["StreamDescription"].get("Shards", [])

    def _page(self, source: StreamSource, shard: str, iterator: str) -> dict[str, Any]:
        streams = client("dynamodbstreams")
        try:
            return streams.get_records(ShardIterator=iterator, Limit=1000)
        except streams.exceptions.ExpiredIteratorException:
            # Unused for 15 minutes (a laptop asleep): go on from the checkpoint, as Lambda does.
            return streams.get_records(ShardIterator=self._iterator(source, shard), Limit=1000)

    def _record(self, source: StreamSource, record: dict[str, Any]) -> dict[str, Any]:
        """A stream record as Lambda hands it to the function."""
        record = dict(record)
        record["eventSourceARN"] = source.stream_arn
        dyn = dict(record.get("dynamodb", {}))
        created = dyn.get("ApproximateCreationDateTime")
        if isinstance(created, datetime):
            dyn["ApproximateCreationDateTime"] = created.timestamp()
        record["dynamodb"] = dyn
        return record

    def _stream_records(self, source: StreamSource) -> list[dict[str, Any]]:
        if not source.iterators:
            for shard in self._shards(source):
                source.iterators[shard["ShardId"]] = self._iterator(source, shard["ShardId"])
        records = []
        for shard, iterator in list(source.iterators.items()):
            if iterator is None:
                continue
            page = self._page(source, shard, iterator)
            source.iterators[shard] = page.get("NextShardIterator")
            for record in page.get("Records", []):
                records.append(self._record(source, record))
                source.positions[shard] = record["dynamodb"]["SequenceNumber"]
        return records

    def skip_stream(self) -> int:
        """Move every stream reader past what the stream holds now, without handling it (the
        writes of a snapshot being restored, whose side effects happened before the restart)."""
        with self.lock:
            skipped = 0
            for source in self.streams:
                with source.lock:
                    while records := self._stream_records(source):
                        skipped += len(records)
            return skipped

    def backlog(self) -> dict[str, list[dict[str, Any]]]:
        """Per stream function, the records it has not yet handled: those read and pending, then
        those after its checkpoint. Reads with iterators of its own; the readers do not move."""
        streams = client("dynamodbstreams")
        with self.lock:
            backlog: dict[str, list[dict[str, Any]]] = {}
            for source in self.streams:
                records = list(source.pending)
                for shard in self._shards(source):
                    iterator = self._iterator(source, shard["ShardId"])
                    while iterator:
                        page = streams.get_records(ShardIterator=iterator, Limit=1000)
                        if not page.get("Records"):
                            break
                        records.extend(self._record(source, r) for r in page["Records"])
                        iterator = page.get("NextShardIterator")
                if records:
                    backlog.setdefault(source.function, []).extend(records)
            return backlog

    def resume(self, backlog: dict[str, list[dict[str, Any]]]) -> int:
        """Hand a saved backlog to its functions before anything the stream holds now. This
        stream's sequence numbers start afresh, so the saved records are numbered just below its
        first: still in order, and a batch failure names exactly one record."""
        with self.lock:
            resumed = 0
            for source in self.streams:
                records = backlog.get(source.function) or []
                if not records:
                    continue
                first = min((int(s["SequenceNumberRange"]["StartingSequenceNumber"])
                             for s in self._shards(source)), default=len(records))
                renumbered = []
                for index, record in enumerate(records):
                    number = str(first - len(records) + index)
                    renumbered.append({**record, "dynamodb": {**record["dynamodb"],
                                                              "SequenceNumber": number}})
                source.pending[:0] = renumbered
                resumed += len(renumbered)
            return resumed

    def pump_stream(self, source: StreamSource) -> int:
        source.pending.extend(self._stream_records(source))
        if not source.pending:
            return 0
        batch = source.pending[:source.batch_size]
        try:
            result = invoke(self.stack, source.function, {"Records": batch},
                            enforce_timeout=True) or {}
            failures = result.get("batchItemFailures") or []
        except Exception:  # noqa: BLE001 - a failed invocation retries the whole batch
            logger.exception("stream handler failed", extra={"function": source.function})
            failures = [{"itemIdentifier": batch[0]["dynamodb"]["SequenceNumber"]}]
        if not failures:
            del source.pending[:len(batch)]
            source.attempts = 0
            return len(batch)
        failed_seq = failures[0]["itemIdentifier"]
        index = next((i for i, r in enumerate(batch)
                      if r["dynamodb"]["SequenceNumber"] == failed_seq), 0)
        del source.pending[:index]
        source.attempts += 1
        if source.attempts > source.max_retries:
            giving_up = source.pending[:len(batch) - index]
            del source.pending[:len(giving_up)]
            source.attempts = 0
            if source.on_failure_queue:
                client("sqs").send_message(
                    QueueUrl=self.stack.queue_urls[source.on_failure_queue],
                    MessageBody=json.dumps({"requestContext": {"condition": "RetryAttemptsExhausted",
                                                               "functionArn": source.function},
                                            "DDBStreamBatchInfo": {
                                                "streamArn": source.stream_arn,
                                                "batchSize": len(giving_up),
                                                "startSequenceNumber": giving_up[0]["dynamodb"]["SequenceNumber"],
                                                "endSequenceNumber": giving_up[-1]["dynamodb"]["SequenceNumber"]}}))
        return max(index, 1)

    # -- SQS -> function ----------------------------------------------------------------------
    def pump_queue(self, source: QueueSource) -> int:
        if not emulator.has_visible(source.url):
            return 0  # what ReceiveMessage would say, without the round trip
        sqs = client("sqs")
        received: list[dict[str, Any]] = []
        while len(received) < source.batch_size:  # Lambda's poller gathers up to BatchSize
            got = sqs.receive_message(QueueUrl=source.url,
                                      MaxNumberOfMessages=min(10, source.batch_size - len(received)),
                                      WaitTimeSeconds=0, AttributeNames=["All"],
                                      MessageAttributeNames=["All"]).get("Messages", [])
            if not got:
                break
            received += got
        if not received:
            return 0
        if source.retries is not None:
            return self._invoked(source, received)
        records = [{
            "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
            "attributes": m.get("Attributes", {}), "messageAttributes": m.get("MessageAttributes", {}),
            "md5OfBody": m.get("MD5OfBody", ""), "eventSource": "aws:sqs",
            "eventSourceARN": source.arn, "awsRegion": cfn.REGION,
        } for m in received]
        try:
            result = invoke(self.stack, source.function, {"Records": records},
                            enforce_timeout=True) or {}
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures") or []}
        except Exception:  # noqa: BLE001 - Lambda retries the whole batch
            logger.exception("queue handler failed", extra={"function": source.function})
            failed = {r["messageId"] for r in records}
        for record in records:
            if record["messageId"] in failed:
                # Lambda would leave it invisible until VisibilityTimeout; retry sooner locally.
                sqs.change_message_visibility(QueueUrl=source.url,
                                              ReceiptHandle=record["receiptHandle"],
                                              VisibilityTimeout=self.retry_delay)
            else:
                sqs.delete_message(QueueUrl=source.url, ReceiptHandle=record["receiptHandle"])
        return len(records)

    def _invoked(self, source: QueueSource, received: list[dict[str, Any]]) -> int:
        """Asynchronous invocations, as Lambda runs them: each event on its own (with the same
        request id on every try), a failure retried until 1 + `retries` tries, then sent to the
        on-failure destination in Lambda's record shape and dropped."""
        sqs = client("sqs")
        for message in received:
            tries = int(message.get("Attributes", {}).get("ApproximateReceiveCount", "1"))
            try:
                invoke(self.stack, source.function, json.loads(message["Body"]),
                       request_id=message["MessageId"], enforce_timeout=True)
                failure = None
            except Exception as exc:  # noqa: BLE001 - Lambda retries the event
                logger.exception("asynchronous invocation failed",
                                 extra={"function": source.function})
                failure = exc
            if failure is not None and tries <= source.retries:
                # Lambda waits a minute, then two; locally the retry comes sooner.
                sqs.change_message_visibility(QueueUrl=source.url,
                                              ReceiptHandle=message["ReceiptHandle"],
                                              VisibilityTimeout=self.retry_delay)
                continue
            if failure is not None and source.on_failure:
                sqs.send_message(QueueUrl=self.stack.queue_urls[source.on_failure],
                                 MessageBody=json.dumps(failed_invocation(
                                     source.arn, message, tries, failure)))
            sqs.delete_message(QueueUrl=source.url, ReceiptHandle=message["ReceiptHandle"])
        return len(received)

    # -- schedules ----------------------------------------------------------------------------
    def pump_schedules(self, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        fired = 0
        for schedule in self.schedules:
            if now >= schedule.next_at:
                schedule.next_at = now + schedule.every
                event = {"version": "0", "id": "local", "detail-type": "Scheduled Event",
                         "source": "aws.events", "account": cfn.ACCOUNT,
                         "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "region": cfn.REGION, "resources": [schedule.name], "detail": {}}
                if schedule.input is not None:  # EventBridge sends the target's Input instead
                    event = schedule.input
                try:
                    invoke(self.stack, schedule.function, event)
                except Exception:  # noqa: BLE001
                    logger.exception("schedule target failed", extra={"schedule": schedule.name})
                fired += 1
        return fired

    def pump_one_off(self) -> int:
        """EventBridge Scheduler `at(...)` schedules created at run time (moto never fires them)."""
        changes = emulator.CHANGES["schedules"]
        if changes == self.listed["schedules"] and (
                self.one_off_due is None or time.monotonic() < self.one_off_due):
            return 0  # none created or changed since the last look, none due yet
        self.listed["schedules"] = changes
        scheduler = client("scheduler")
        fired = 0
        now = datetime.now(UTC).replace(tzinfo=None)
        due: float | None = None  # seconds from now to the next one not yet due
        for summary in scheduler.list_schedules().get("Schedules", []):
            key = f"{summary.get('GroupName', 'default')}/{summary['Name']}"
            if key in self.fired_once:
                continue
            try:
                schedule = scheduler.get_schedule(Name=summary["Name"],
                                                  GroupName=summary.get("GroupName", "default"))
            except scheduler.exceptions.ResourceNotFoundException:
                continue  # deleted since it was listed (a poll's status was deleted meanwhile)
            match = re.match(r"^at\((.+)\)$", schedule.get("ScheduleExpression", ""))
            if not match:
                continue
            at = datetime.fromisoformat(match.group(1))
            if at > now:
                wait = (at - now).total_seconds()
                due = wait if due is None else min(due, wait)
                continue
            target = schedule["Target"]
            payload = target.get("Input") or "{}"
            if ":sqs:" in target["Arn"]:
                name = target["Arn"].rsplit(":", 1)[-1]
                url = client("sqs").get_queue_url(QueueName=name)["QueueUrl"]
                client("sqs").send_message(QueueUrl=url, MessageBody=payload)
            elif (fn := self.stack.function_for_arn(target["Arn"])) is not None \
                    and fn.invoke_config is not None:
                # Scheduler invokes a Lambda target asynchronously: the event joins the
                # function's queue of asynchronous invocations (and its retries).
                client("sqs").send_message(
                    QueueUrl=self.stack.queue_urls[async_queue(fn.logical_id)],
                    MessageBody=payload)
            else:
                if fn is not None:
                    try:
                        invoke(self.stack, fn.logical_id, json.loads(payload))
                    except Exception:  # noqa: BLE001
                        logger.exception("one-off schedule target failed", extra={"key": key})
            self.fired_once.add(key)
            if schedule.get("ActionAfterCompletion") == "DELETE":
                scheduler.delete_schedule(Name=summary["Name"],
                                          GroupName=summary.get("GroupName", "default"))
            fired += 1
        self.one_off_due = None if due is None else time.monotonic() + due
        return fired

    # -- Step Functions executions -------------------------------------------------------------
    def _call(self, resource: str, payload: Any) -> Any:
        fn = self.stack.function_for_arn(resource)
        # Lambda hands the task JSON and returns JSON: what does not survive that fails here too.
        return json.loads(json.dumps(invoke(self.stack, fn.logical_id, json.loads(json.dumps(payload)))))

    def _started(self) -> None:
        changes = emulator.CHANGES["executions"]
        if changes == self.listed["executions"]:
            return  # none started since the last look
        self.listed["executions"] = changes
        sfn = client("stepfunctions")
        for logical, (arn, definition) in self.stack.state_machines.items():
            pages = sfn.get_paginator("list_executions").paginate(stateMachineArn=arn,
                                                                  statusFilter="RUNNING")
            for page in pages:
                for execution in page["executions"]:
                    if execution["executionArn"] in self.runs:
                        continue
                    described = sfn.describe_execution(executionArn=execution["executionArn"])
                    self.runs[execution["executionArn"]] = states.Run(
                        execution["executionArn"], logical, definition.start_at,
                        json.loads(described.get("input") or "{}"))

    def pump_executions(self, now: float | None = None) -> int:
        """Advance every due execution by one state; finished ones are recorded in the emulator,
        where DescribeExecution reports them."""
        if not self.stack.state_machines:
            return 0
        self._started()
        now = time.monotonic() if now is None else now
        work = 0
        for arn, run in list(self.runs.items()):
            if not run.due(now):
                continue
            run.advance(self.stack.state_machines[run.machine][1], self._call,
                        max_wait=self.retry_delay, now=now)
            work += 1
            if run.outcome is not None:
                status, detail = run.outcome
                if status == "SUCCEEDED":
                    emulator.finish_execution(arn, status, output=json.dumps(detail))
                else:
                    logger.error("execution failed", extra={"execution": arn, "error": detail})
                    emulator.finish_execution(arn, status, error=detail[0], cause=detail[1])
                del self.runs[arn]
        return work

    def running(self) -> list[dict[str, Any]]:
        """The executions still running, with where each is (for local/snapshot.py)."""
        with self.lock:
            self._started()
            sfn = client("stepfunctions")
            return [{"input": sfn.describe_execution(executionArn=arn)["input"],
                     **run.to_dict()} for arn, run in self.runs.items()]

    def resume_running(self, saved: list[dict[str, Any]]) -> int:
        """Start the saved executions again under their names, from the state each was in."""
        sfn = client("stepfunctions")
        for entry in saved:
            if entry["machine"] not in self.stack.state_machines:
                continue
            arn = sfn.start_execution(
                stateMachineArn=self.stack.state_machines[entry["machine"]][0],
                name=entry["arn"].rsplit(":", 1)[-1], input=entry["input"])["executionArn"]
            self.runs[arn] = states.Run.from_dict({**entry, "arn": arn})
        return len(saved)

    def pump(self, *, schedules: bool = True) -> int:
        with self.lock:
            work = 0
            for stream in self.streams:
                with stream.lock:
                    work += self.pump_stream(stream)
            for queue in self.queues:
                with queue.lock:
                    work += self.pump_queue(queue)
            work += self.pump_executions()
            if schedules:
                work += self.pump_schedules()
                work += self.pump_one_off()
            return work

    # -- the background loop --------------------------------------------------------------------
    def next_due(self) -> float | None:
        """When (`time.monotonic()`) something falls due that no write will announce: a rate
        schedule, a one-off schedule, a delayed message or a retry becoming visible, a running
        execution's wait or retry interval. None if nothing is waiting."""
        times = [t for t in (self._timers_due(), self._queue_due(self.queues)) if t is not None]
        return min(times) if times else None

    def _timers_due(self) -> float | None:
        times = [s.next_at for s in self.schedules]
        times += [run.not_before for run in self.runs.values() if run.outcome is None]
        if self.one_off_due is not None:
            times.append(self.one_off_due)
        return min(times) if times else None

    @staticmethod
    def _queue_due(queues: list[QueueSource]) -> float | None:
        visible = emulator.next_visible([q.url for q in queues])
        return None if visible is None else time.monotonic() + (visible - time.time())

    def wake(self) -> None:
        """Make every `run()` thread look for work now (and see that it was asked to stop)."""
        emulator.ACTIVITY.notify()

    def _pump_timers(self) -> int:
        with self.lock:
            return self.pump_executions() + self.pump_schedules() + self.pump_one_off()

    def _pump_stream(self, source: StreamSource) -> int:
        with source.lock:
            return self.pump_stream(source)

    def _pump_queue(self, source: QueueSource) -> int:
        with source.lock:
            return self.pump_queue(source)

    def run(self, stop: threading.Event, *, after_round: Any = None,
            longest: float = 60.0) -> None:
        """The local stack's event source mappings, side by side as on Lambda: a thread per
        stream and per queue, and this one for the schedules and executions. Each makes round
        after round while it finds work, then sleeps until the emulator announces work on its
        channel (local/emulator.py `ACTIVITY`) or its next thing falls due (a retry or delayed
        message becoming visible, a schedule, a state machine's wait; at most `longest`
        seconds, a safety net). Returns once `stop` is set (call `wake()` too)."""
        after_lock = threading.Lock()

        def after() -> None:
            if after_round is not None:
                with after_lock:
                    after_round()

        loops = [(f"pipeline-{s.function}", "stream", lambda s=s: self._pump_stream(s),
                  lambda: None) for s in self.streams]
        loops += [(f"pipeline-{q.function}", emulator.queue_channel(q.url),
                   lambda q=q: self._pump_queue(q), lambda q=q: self._queue_due([q]))
                  for q in self.queues]
        threads = [threading.Thread(target=self._loop, name=name, daemon=True,
                                    args=(stop, channel, pump, due, after, longest))
                   for name, channel, pump, due in loops]
        for thread in threads:
            thread.start()
        try:
            self._loop(stop, "timers", self._pump_timers, self._timers_due, after, longest)
        finally:
            stop.set()
            self.wake()
            for thread in threads:
                thread.join(30)

    def _loop(self, stop: threading.Event, channel: str, pump: Any, due: Any, after: Any,
              longest: float) -> None:
        activity = emulator.ACTIVITY
        while not stop.is_set():
            seen = activity.count(channel)  # before looking: what comes meanwhile wakes the wait
            self.rounds += 1
            try:
                work = pump()
                after()
                if work:
                    continue
                next_at = due()
                timeout = longest if next_at is None else min(longest, next_at - time.monotonic())
            except Exception:  # noqa: BLE001 - keep the loop alive; the error is logged
                logger.exception("background loop error", extra={"channel": channel})
                timeout = 1.0
            if timeout > 0 and not stop.is_set():
                activity.wait(channel, seen, timeout)

    def drain(self, *, max_rounds: int = 200, schedules: bool = False) -> int:
        """Run until nothing is left to do (tests); returns the total work done."""
        total = 0
        for _ in range(max_rounds):
            done = self.pump(schedules=schedules)
            total += done
            if done == 0:
                return total
        raise RuntimeError("the pipeline did not become quiet")
