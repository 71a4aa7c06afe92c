"""Where the AWS emulator (moto) differs from AWS in ways our code would notice, and the fixes.

`prepare()` applies all of them once per process; the dev server, the tests and the benchmark
call it before the emulator serves a request. Each fix says what moto does and what AWS does.

1. Thread safety. moto's in-memory backends are not thread-safe (a transaction copies a table
   while another thread writes to it). AWS applies each request atomically, so serialising
   requests to the emulator keeps its semantics; our own concurrency (two requests interleaving
   between their calls) is untouched, which is what the race tests exercise.
2. Cancelled transactions. moto 5 snapshots every table a transaction touches with a deep copy
   and, when the transaction is cancelled, swaps the copy in. The write that was applied before
   the failing condition stays in the *old* table's stream shard, which shard iterators taken
   earlier still read: they return a phantom record for a write that never happened and never
   see a later write; sequence numbers are reused. The deep copy also costs time and memory in
   proportion to the whole table on every transaction. Here a transaction remembers only the
   items it touches and the stream's length; on cancellation it puts those items back and cuts
   the stream to where it was, on the same table and shard objects. AWS shows nothing of a
   cancelled transaction, on the table or on the stream.
3. Shard iterators. moto keeps every iterator it ever handed out (one per GetRecords call), and
   each keeps its shard alive. AWS expires an iterator 15 minutes after it was returned; so do
   we, which keeps the emulator's memory flat however long the stack runs. GetRecords with an
   expired iterator answers ExpiredIteratorException, as on AWS (moto: a KeyError, HTTP 500).
4. Stream records. AWS trims them after 24 hours; moto keeps them forever, each as a tree of
   small dicts holding both item images. Here each is kept as its JSON text (a fraction of the
   memory), and records older than 24 hours are dropped.
5. Every object moto ever creates. moto's `BaseModel` appends each new instance (every item,
   every copy of an item made by an update or a transaction, every stream record, queue message
   and shard iterator) to a per-class list for its web dashboard (`/moto-api/data.json`), and
   empties the lists only when a test's mock stops: a long-running emulator keeps every version
   of every item it ever held. This was most of the local stack's growth; models are no longer
   tracked here (the dashboard, which nothing of ours uses, lists nothing).
6. Queues cannot be read without receiving (see `queue_messages`); the snapshot needs to.
7. Step Functions executions. moto stores them as RUNNING and runs nothing (its own interpreter
   would need Docker to run a Lambda task); local/states.py runs them, and `finish_execution`
   records the outcome where DescribeExecution and ListExecutions report it, as AWS does.
8. Work to do is announced. AWS's event source mappings poll; polling the emulator over HTTP
   (a GetRecords per shard, a ReceiveMessage per queue, the schedules and executions listed)
   four times a second kept an idle `make dev` at 15-25 % of a core. The emulator now says when
   it gains work for the pipeline: `ACTIVITY` has a channel per consumer, bumped by every stream
   record (`stream`), every message added to a queue (sent, or moved to a dead-letter queue)
   and every visibility change (`queue:<name>`), every schedule created or updated and every
   execution started (`timers`), whoever made the call (a function, the pipeline, stratusctl
   over HTTP). `next_visible()` says when the next delayed or
   invisible message of some queues becomes visible: the pipeline sleeps until then; and
   `has_visible()` lets it skip a ReceiveMessage on an empty queue (a round of empty
   ReceiveMessage calls over HTTP cost 55 ms, most of a round's cost).
9. Consumed capacity. moto answers `ReturnConsumedCapacity` with constants (0.5 for any
   GetItem, 1.0 for any other call, 2.0 per transaction item), whatever the items; AWS answers
   the request units it charged. Here a data call that asks (TOTAL or INDEXES) is charged by
   DynamoDB's rules from the items it touched (local/capacity.py: sizes, rounding, consistency,
   filtered Query entries, GSI writes, transactional doubling), and answered in DynamoDB's shape
   (per table; INDEXES adds the table's and each global secondary index's share). A call whose
   error carries no ConsumedCapacity (a failed condition, a cancelled transaction) is billed by
   AWS all the same and shows only in CloudWatch's ConsumedRead/WriteCapacityUnits: here in
   `CONSUMED`, which adds up everything charged so far, reported or not. Calls that do not ask
   cost nothing extra.
10. A Query reads its partition. moto answers every Query by sorting every item of the table
   (`Table.all_items`) and then testing each against the key condition: with tens of thousands
   of items (a few accounts with 10,000 followers) each Query took 0.2-0.9 s, and the time grew
   with whatever else the table held. DynamoDB reads one partition. Here a Query on the table
   looks at its partition's items only, and one on an index walks the items once without the
   sort (it sorts what matches, as before); what a Query answers is unchanged.
11. Asynchronous invocations. moto would run a function in Docker; our functions run
   in-process (local/lambda_runtime.py). An Invoke with InvocationType=Event on a function the
   local stack registered (`ASYNC_QUEUES`: those with an `EventInvokeConfig`) is put, as it is,
   on a queue of the emulator's own that plays Lambda's internal queue; local/pipeline.py
   delivers it with Lambda's retries and on-failure destination. The answer is AWS's: 202,
   no body.
"""

from __future__ import annotations

import base64
import copy
import datetime
import functools
import inspect
import json
import threading
import time
from typing import Any

_lock = threading.RLock()
_prepared = False

ITERATOR_LIFETIME = 15 * 60  # seconds, as on AWS
STREAM_RETENTION = 24 * 3600  # seconds, as on AWS


def prepare() -> None:
    global _prepared
    with _lock:
        if _prepared:
            return
        _serialize_requests()
        _untracked_models()
        _atomic_transactions()
        _expiring_shard_iterators()
        _compact_trimmed_streams()
        _announced_work()
        _reported_capacity()
        _partition_queries()
        _asynchronous_invocations()
        _prepared = True


# --- 1. one request at a time ------------------------------------------------------------------
def _serialize_requests() -> None:
    from moto.core.botocore_stubber import BotocoreStubber
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    for owner, name in ((BotocoreStubber, "process_request"),
                        (DomainDispatcherApplication, "__call__")):
        original = getattr(owner, name)

        @functools.wraps(original)
        def locked(*args, __original=original, **kwargs):
            with _lock:
                return __original(*args, **kwargs)

        setattr(owner, name, locked)


# --- 2. cancelled transactions leave no trace ---------------------------------------------------
class _NoTableCopy:
    """Stands in for the `copy` module inside moto's DynamoDB backend: a Table is 'copied' as
    itself (its rollback becomes a no-op we replace), anything else is really copied."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        from moto.dynamodb.models.table import Table

        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


def _item_key(table: Any, op_type: str, op: dict[str, Any]) -> tuple[Any, Any]:
    from moto.dynamodb.models.dynamo_type import DynamoType

    source = op["Item"] if op_type == "Put" else op["Key"]
    hash_key = DynamoType(source[table.hash_key_attr])
    range_key = DynamoType(source[table.range_key_attr]) if table.range_key_attr else None
    return hash_key, range_key


def _restore(table: Any, hash_key: Any, range_key: Any, saved: Any) -> None:
    """Put one item back as it was (None: absent), without a stream record."""
    if table.range_key_attr:
        partition = table.items[hash_key]
        if saved is None:
            partition.pop(range_key, None)
            if not partition:
                table.items.pop(hash_key, None)
        else:
            partition[range_key] = saved
    elif saved is None:
        table.items.pop(hash_key, None)
    else:
        table.items[hash_key] = saved


def _atomic_transactions() -> None:
    from moto.dynamodb import models as backend_module
    from moto.dynamodb.models import DynamoDBBackend

    backend_module.copy = _NoTableCopy()  # only transact_write_items copies whole tables
    original = DynamoDBBackend.transact_write_items

    @functools.wraps(original)
    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        saved: list[tuple[Any, Any, Any, Any]] = []
        streams: dict[int, tuple[Any, int]] = {}  # shard and its end position
        seen: set[tuple[str, str]] = set()
        for entry in transact_items[:100]:
            op_type, op = next(iter(entry.items()))
            table = self.tables.get(op.get("TableName"))
            if table is None or op_type not in ("Put", "Update", "Delete", "ConditionCheck"):
                continue
            try:
                hash_key, range_key = _item_key(table, op_type, op)
            except (KeyError, TypeError):
                continue  # moto rejects the request before it writes anything
            marker = (table.name, repr((hash_key, range_key)))
            if marker in seen:
                continue
            seen.add(marker)
            current = table.get_item(hash_key, range_key)
            saved.append((table, hash_key, range_key, copy.deepcopy(current)))
            shard = table.stream_shard
            if shard is not None and id(table) not in streams:
                streams[id(table)] = (shard, shard.starting_sequence_number + len(shard.items))
        try:
            original(self, transact_items)
        except Exception:
            for table, hash_key, range_key, item in reversed(saved):
                _restore(table, hash_key, range_key, item)
            for shard, end in streams.values():
                keep = end - shard.starting_sequence_number
                del shard.items[keep:]
            raise

    DynamoDBBackend.transact_write_items = transact_write_items


# --- 3. shard iterators expire -------------------------------------------------------------------
def _now() -> float:
    return time.monotonic()


def _expiring_shard_iterators() -> None:
    from moto.core.exceptions import JsonRESTError
    from moto.dynamodbstreams.models import DynamoDBStreamsBackend, ShardIterator

    original_init = ShardIterator.__init__

    @functools.wraps(original_init)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.issued_at = _now()

    ShardIterator.__init__ = init
    original_get_records = DynamoDBStreamsBackend.get_records

    @functools.wraps(original_get_records)
    def get_records(self: Any, iterator_arn: str, limit: int) -> dict[str, Any]:
        horizon = _now() - ITERATOR_LIFETIME
        expired = [arn for arn, it in self.shard_iterators.items()
                   if getattr(it, "issued_at", horizon) < horizon]
        for arn in expired:
            del self.shard_iterators[arn]
        if iterator_arn not in self.shard_iterators:  # moto: a KeyError, i.e. a 500
            raise JsonRESTError("ExpiredIteratorException",
                                "The shard iterator has expired and can no longer be used.")
        return original_get_records(self, iterator_arn, limit)

    DynamoDBStreamsBackend.get_records = get_records


# --- 4. stream records are kept compact, and trimmed after 24 hours ------------------------------
class _StoredRecord:
    """A stream record kept as its JSON text. moto keeps a tree of small dicts per record (both
    item images, attribute by attribute): several times the memory of the text, for a record
    read once or twice."""

    __slots__ = ("text", "added_at")

    def __init__(self, record: dict[str, Any], added_at: float) -> None:
        self.text = json.dumps(record, default=_to_json, separators=(",", ":"))
        self.added_at = added_at

    def to_json(self) -> dict[str, Any]:
        return json.loads(self.text, object_hook=_from_json)


def _to_json(value: Any) -> Any:
    if isinstance(value, datetime.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(value).decode()}
    raise TypeError(f"cannot keep {type(value).__name__} in a stream record")


def _from_json(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if "$datetime" in obj:
            return datetime.datetime.fromisoformat(obj["$datetime"])
        if "$bytes" in obj:
            return base64.b64decode(obj["$bytes"])
    return obj


def _compact_trimmed_streams() -> None:
    from moto.dynamodb.models.table import StreamRecord, StreamShard

    original_add = StreamShard.add

    @functools.wraps(original_add)
    def add(self: Any, old: Any, new: Any) -> None:
        original_add(self, old, new)
        now = _now()
        if self.items and isinstance(self.items[-1], StreamRecord):
            self.items[-1] = _StoredRecord(self.items[-1].record, now)
        horizon = now - STREAM_RETENTION
        old_count = 0
        while old_count < len(self.items) and self.items[old_count].added_at < horizon:
            old_count += 1
        if old_count:
            # Sequence numbers are positions past starting_sequence_number: move it along.
            del self.items[:old_count]
            self.starting_sequence_number += old_count

    StreamShard.add = add


# --- 5. moto does not keep every object it creates ----------------------------------------------
def _untracked_models() -> None:
    from moto.core.common_models import BaseModel
    from moto.core.model_instances import model_data

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return object.__new__(cls)

    BaseModel.__new__ = staticmethod(new)
    for models in model_data.values():
        for model in models.values():
            model.instances_tracked.clear()


# --- reading a queue without receiving from it --------------------------------------------------
def queue_messages(queue_url: str) -> list[dict[str, Any]]:
    """Every message a queue holds, visible or not (being handled, waiting for a retry, delayed),
    as SendMessage arguments. SQS has no call for this (ReceiveMessage hides in-flight messages and
    counts a receive); the local snapshot needs it to keep the job queues across a restart."""
    from moto.sqs.models import sqs_backends

    from . import cfn

    with _lock:
        queue = sqs_backends[cfn.ACCOUNT][cfn.REGION].get_queue(queue_url.rsplit("/", 1)[-1])
        messages = []
        for message in queue._messages:
            entry: dict[str, Any] = {"MessageBody": message.body}
            if message.message_attributes:
                entry["MessageAttributes"] = copy.deepcopy(message.message_attributes)
            messages.append(entry)
        return messages


# --- 7. the outcome of an execution run by local/states.py ----------------------------------------
def finish_execution(arn: str, status: str, *, output: str | None = None,
                     error: str | None = None, cause: str | None = None) -> None:
    from moto.core.utils import utcnow
    from moto.stepfunctions.models import stepfunctions_backends

    from . import cfn

    with _lock:
        execution = stepfunctions_backends[cfn.ACCOUNT][cfn.REGION].describe_execution(arn)
        execution.status, execution.stop_date = status, utcnow()
        execution.output, execution.error, execution.cause = output, error, cause


# --- 8. work for the pipeline is announced -------------------------------------------------------
class Activity:
    """Counters bumped whenever the emulator gains work for the pipeline, one per channel
    (`stream`, `queue:<name>`, `timers`: schedules and executions), and a way to sleep until
    one moves. A waiter reads `count(channel)` *before* looking for work and passes it to
    `wait`: whatever arrives while it looks makes the wait return at once, so nothing is
    missed. Each channel has its own condition: a message sent wakes that queue's poller only."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._channels: dict[str, tuple[threading.Condition, list[int]]] = {}

    def _channel(self, name: str) -> tuple[threading.Condition, list[int]]:
        found = self._channels.get(name)
        if found is None:
            with self._guard:
                found = self._channels.setdefault(name, (threading.Condition(threading.Lock()),
                                                         [0]))
        return found

    def count(self, channel: str) -> int:
        return self._channel(channel)[1][0]

    def notify(self, *channels: str) -> None:
        """Bump these channels (none named: every channel, e.g. to stop the waiters)."""
        with self._guard:
            names = list(channels) if channels else list(self._channels)
        for name in names:
            condition, count = self._channel(name)
            with condition:
                count[0] += 1
                condition.notify_all()

    def wait(self, channel: str, seen: int, timeout: float | None) -> bool:
        """Sleep until the channel's count is no longer `seen` (True) or `timeout` seconds pass
        (False)."""
        condition, count = self._channel(channel)
        with condition:
            return condition.wait_for(lambda: count[0] != seen, timeout)


ACTIVITY = Activity()
# Calls made so far, by kind, for those the pipeline would otherwise list on every round.
CHANGES = {"schedules": 0, "executions": 0}


def _announcing(owner: Any, name: str, channel: Any, kind: str | None = None) -> None:
    """After each call of `owner.name`, bump `channel(*args)` (and CHANGES[kind])."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def announced(*args: Any, **kwargs: Any) -> Any:
        try:
            return original(*args, **kwargs)
        finally:  # even when it failed: a spurious wake costs one look
            if kind is not None:
                CHANGES[kind] += 1
            ACTIVITY.notify(channel(*args, **kwargs))

    setattr(owner, name, announced)


def queue_channel(queue_url_or_name: str) -> str:
    return "queue:" + queue_url_or_name.rsplit("/", 1)[-1]


def _announced_work() -> None:
    from moto.dynamodb.models.table import StreamShard
    from moto.scheduler.models import EventBridgeSchedulerBackend
    from moto.sqs.models import Queue, SQSBackend
    from moto.stepfunctions.models import StepFunctionBackend

    # A stream record (cut again if its transaction is cancelled).
    _announcing(StreamShard, "add", lambda *_, **__: "stream")
    # SendMessage(Batch), a move to the dead-letter queue.
    _announcing(Queue, "add_message", lambda queue, *_, **__: queue_channel(queue.name))
    _announcing(SQSBackend, "change_message_visibility",
                lambda backend, queue_name, *_, **__: queue_channel(queue_name))
    for name in ("create_schedule", "update_schedule"):
        _announcing(EventBridgeSchedulerBackend, name, lambda *_, **__: "timers", "schedules")
    _announcing(StepFunctionBackend, "start_execution", lambda *_, **__: "timers", "executions")


def next_visible(queue_urls: list[str]) -> float | None:
    """The earliest time (`time.time()` seconds) a delayed or invisible message (in flight,
    waiting for its retry) of these queues becomes visible; None if none is waiting."""
    from moto.sqs.models import sqs_backends

    from . import cfn

    backend = sqs_backends[cfn.ACCOUNT][cfn.REGION]
    now_ms = time.time() * 1000
    earliest: float | None = None
    with _lock:
        for url in queue_urls:
            queue = backend.queues.get(url.rsplit("/", 1)[-1])
            for message in queue._messages if queue is not None else ():
                # moto shows a message once the clock is *past* its time: 10 ms after it.
                at = max(message.visible_at, message.delayed_until) + 10
                if at > now_ms and (earliest is None or at < earliest):
                    earliest = at
    return None if earliest is None else earliest / 1000


def has_visible(queue_url: str) -> bool:
    """Whether ReceiveMessage on this queue would return a message now (moto's test)."""
    from moto.sqs.models import sqs_backends

    from . import cfn

    with _lock:
        queue = sqs_backends[cfn.ACCOUNT][cfn.REGION].queues.get(queue_url.rsplit("/", 1)[-1])
        return queue is not None and any(m.visible and not m.delayed for m in queue._messages)


# --- 9. consumed capacity, as DynamoDB reports and bills it --------------------------------------
class Consumed:
    """What the emulator charged every call that asked for its consumed capacity, reported in
    its response or not (CloudWatch's ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits of
    all tables together): `total` adds everything up, `unreported` the calls whose error
    response carried none."""

    def __init__(self) -> None:
        from .capacity import Charge

        self._guard = threading.Lock()
        self.total = Charge()
        self.unreported = Charge()

    def add(self, charged: Any, *, reported: bool) -> None:
        with self._guard:
            self.total += charged
            if not reported:
                self.unreported += charged

    def snapshot(self) -> tuple[Any, Any]:
        """(total, unreported) so far, as copies."""
        from .capacity import Charge

        with self._guard:
            total, unreported = Charge(), Charge()
            total += self.total
            unreported += self.unreported
            return total, unreported


CONSUMED = Consumed()
# DynamoHandler's method for each data-plane operation whose units are computed.
_CAPACITY_METHODS = {"GetItem": "get_item", "BatchGetItem": "batch_get_item", "Query": "query",
                     "Scan": "scan", "TransactGetItems": "transact_get_items",
                     "PutItem": "put_item", "UpdateItem": "update_item",
                     "DeleteItem": "delete_item", "BatchWriteItem": "batch_write_item",
                     "TransactWriteItems": "transact_write_items"}


def moto_store(backend: Any) -> Any:
    """The items of a moto DynamoDB backend (or of a function returning it), read in process
    under the emulator's lock (local/capacity.py `MotoStore`)."""
    from .capacity import MotoStore

    return MotoStore(backend, _lock)


def _reported_capacity() -> None:
    from moto.dynamodb.exceptions import ConditionalCheckFailed, TransactionCanceledException
    from moto.dynamodb.responses import DynamoHandler

    from . import capacity

    billed_errors = {ConditionalCheckFailed: "ConditionalCheckFailedException",
                     TransactionCanceledException: "TransactionCanceledException"}

    def measured(operation: str, original: Any) -> Any:
        @functools.wraps(original)
        def method(self: Any) -> Any:
            mode = self.body.get("ReturnConsumedCapacity", "NONE")
            if mode not in ("TOTAL", "INDEXES"):
                return original(self)
            with _lock:
                store = capacity.MotoStore(self.dynamodb_backend, _lock)
                params = self.body
                tables = store.tables()
                before = {capacity.key_id(table, key): store.item(table, key)
                          for table, key in capacity.touched_keys(operation, params, tables)}
                try:
                    result = original(self)
                except tuple(billed_errors) as error:
                    code = next(c for kind, c in billed_errors.items() if isinstance(error, kind))
                    CONSUMED.add(capacity.charge(operation, params, {"Error": {"Code": code}},
                                                 before=before, store=store, tables=tables),
                                 reported=False)
                    raise
                answer = result.result
                charged = capacity.charge(operation, params, answer, before=before,
                                          store=store, tables=tables)
                answer["ConsumedCapacity"] = capacity.consumed_capacity(operation, params,
                                                                        charged, mode)
                CONSUMED.add(charged, reported=True)
                return result

        return method

    for operation, name in _CAPACITY_METHODS.items():
        setattr(DynamoHandler, name, measured(operation, getattr(DynamoHandler, name)))


# --- 10. a Query reads its partition -------------------------------------------------------------
_query_scope = threading.local()


def _partition_queries() -> None:
    from moto.dynamodb.models.table import Table

    original_query, original_all_items = Table.query, Table.all_items
    signature = inspect.signature(original_query)

    @functools.wraps(original_query)
    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = signature.bind(self, hash_key, *args, **kwargs).arguments.get("index_name")
        attribute = self.hash_key_attr
        if index_name:
            hashes = [k["AttributeName"] for k in self.get_index(index_name).schema
                      if k["KeyType"] == "HASH"]
            # A key of several attributes: every item goes to Query's own test.
            attribute = hashes[0] if len(hashes) == 1 else None
        _query_scope.table = self
        _query_scope.where = (index_name, attribute, hash_key)
        try:
            return original_query(self, hash_key, *args, **kwargs)
        finally:
            _query_scope.table = None

    @functools.wraps(original_all_items)
    def all_items(self: Any) -> Any:
        if getattr(_query_scope, "table", None) is not self:
            return original_all_items(self)  # a Scan, an export: in key order, as moto answers
        # Query sorts what matches its key condition itself: the order here does not matter.
        index_name, attribute, value = _query_scope.where
        if not index_name:
            found = self.items.get(value)
            if found is None:
                return []
            return list(found.values()) if self.range_key_attr else [found]
        items = (item for hashed in self.items.values()
                 for item in (hashed.values() if self.range_key_attr else (hashed,)))
        if attribute is None or value is None:
            return list(items)
        kind, raw = value.type, value.value
        return [item for item in items if (found := item.attrs.get(attribute)) is not None
                and found.type == kind and found.value == raw]

    Table.query, Table.all_items = query, all_items


# --- 11. asynchronous invocations --------------------------------------------------------------
# A function's name (or ARN) -> the name of the queue playing its asynchronous-invocation queue
# (local/stack.py registers them as it builds the stack).
ASYNC_QUEUES: dict[str, str] = {}


def _asynchronous_invocations() -> None:
    from moto.awslambda.models import LambdaBackend
    from moto.sqs.models import sqs_backends

    from . import cfn

    original = LambdaBackend.invoke

    @functools.wraps(original)
    def invoke(self: Any, function_name: str, qualifier: str | None, body: Any, headers: Any,
               response_headers: Any) -> Any:
        queue = ASYNC_QUEUES.get(function_name.rsplit(":", 1)[-1])
        if queue is None or headers.get("X-Amz-Invocation-Type") != "Event":
            return original(self, function_name, qualifier, body, headers, response_headers)
        text = body.decode() if isinstance(body, bytes) else str(body or "")
        sqs_backends[cfn.ACCOUNT][cfn.REGION].send_message(queue, text)
        return b""

    LambdaBackend.invoke = invoke  # type: ignore[method-assign]
