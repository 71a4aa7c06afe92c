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
   we, which keeps the emulator's memory flat however long the stack runs.
4. Stream retention. AWS trims stream records after 24 hours; moto keeps them forever (every
   record holds both item images). Records older than that are dropped here too.
"""

from __future__ import annotations

import copy
import functools
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
        _atomic_transactions()
        _expiring_shard_iterators()
        _trimmed_streams()
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
                del shard.__dict__.get("added_at", [])[keep:]
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


# --- 4. stream records older than 24 hours are trimmed -------------------------------------------
def _trimmed_streams() -> None:
    from moto.dynamodb.models.table import StreamShard

    original_add = StreamShard.add

    @functools.wraps(original_add)
    def add(self: Any, old: Any, new: Any) -> None:
        original_add(self, old, new)
        self.__dict__.setdefault("added_at", []).append(_now())
        horizon = _now() - STREAM_RETENTION
        added = self.added_at
        old_count = 0
        while old_count < len(added) and added[old_count] < horizon:
            old_count += 1
        if old_count:
            # Sequence numbers are positions past starting_sequence_number: move it along.
            del self.items[:old_count]
            del added[:old_count]
            self.starting_sequence_number += old_count

    StreamShard.add = add


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
