"""Busy mode of `python -m bench cost` (bench/mix.py): the local pipeline's stream reader made
to batch as Lambda's DynamoDB stream mapping batches a table of several shards.

The local stack's stream has one shard and its reader hands the function up to `BatchSize`
records of whatever is pending. On AWS a table's stream has a shard per partition; an item's
records go to its partition's shard (by its partition key), and the event source mapping
invokes the function with a batch of one shard's records at a time (up to `BatchSize`, gathered
for up to `MaximumBatchingWindowInSeconds`). `sharded(pipeline, shards)` replaces the reader for
its duration: the records read are dealt to `shards` shards by a hash of their partition key,
and each shard with records makes its batches. With the pipeline drained every k requests, k
requests' records share those batches, as they share a batching window on a busy instance.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from local.lambda_runtime import invoke

logger = logging.getLogger("stratus.bench")
TRIES = 3  # a failed batch is tried again, then dropped (the bench reports it; none expected)


def shard_of(record: dict[str, Any], shards: int) -> int:
    """The shard a record goes to: its item's partition key, hashed."""
    keys = record.get("dynamodb", {}).get("Keys", {})
    partition = keys.get("PK") or next(iter(keys.values()), {})
    text = next(iter(partition.values()), "") if isinstance(partition, dict) else str(partition)
    return zlib.crc32(str(text).encode()) % shards


def batches(records: list[dict[str, Any]], shards: int, size: int) -> list[list[dict[str, Any]]]:
    """Records as the mapping hands them over: per shard, in order, `size` at most a batch."""
    by_shard: dict[int, list[dict[str, Any]]] = {}
    for record in records:
        by_shard.setdefault(shard_of(record, shards), []).append(record)
    return [group[i:i + size] for _, group in sorted(by_shard.items())
            for i in range(0, len(group), size)]


@contextmanager
def sharded(pipeline: Any, shards: int) -> Iterator[dict[str, int]]:
    """The pipeline's stream reader batching per shard (module docstring); yields counts of
    the batches made and dropped."""
    counts = {"batches": 0, "dropped": 0}

    def pump_stream(source: Any) -> int:
        source.pending.extend(pipeline._stream_records(source))  # noqa: SLF001 - bench hook
        records, source.pending[:] = list(source.pending), []
        for batch in batches(records, shards, source.batch_size):
            for attempt in range(TRIES):
                try:
                    result = invoke(pipeline.stack, source.function, {"Records": batch}) or {}
                    if not result.get("batchItemFailures"):
                        break
                except Exception:  # noqa: BLE001 - tried again, then reported
                    logger.exception("stream batch failed", extra={"function": source.function})
            else:
                counts["dropped"] += 1
            counts["batches"] += 1
        return len(records)

    pipeline.pump_stream = pump_stream
    try:
        yield counts
    finally:
        del pipeline.pump_stream
