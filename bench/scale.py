"""`python -m bench scale [--json]` (and part of `make bench`): issue #22's scenarios at
scale, with DynamoDB's per-partition limits applied to what the real code writes and reads.

DynamoDB serves each partition — of a table *and of each global secondary index* — up to 1,000
write units and 3,000 read units a second (Amazon DynamoDB Developer Guide, "Partitions and data
distribution", "Burst and adaptive capacity"); one item never gets more than that, and
DynamoDB's splitting a busy partition by sort key ("split for heat") does not help a key whose
writes all go to its newest sort keys (ids, times).
The emulator knows none of this. So the bench runs a *sample* of each scenario's unit of work (a
like, a follower page, a new actor's activities) through the real code — the local API Gateway,
the repository verbs, the pipeline's workers — and records every DynamoDB call on the process's
shared client (`Recorder`, hooked onto botocore as `local/capacity.py`'s `Meter` is): the request
units of each call, computed by `local/capacity.py`'s rules from the items as the emulator holds
them, and attributed to the partitions they land on — the table partition of each item read or
written, and the GSI partitions of its index entries (from the template's index definitions:
an entry put, removed or moved costs its index partition what capacity.py charges it).

The sample runs in two halves, one after the other. A partition both halves touched is shared
by the scenario's units of work (a status's likers all write its index partition), and its
demand at the scenario's rate is `units in the sample × units of work a second / units of work in
the sample`; one that only one half touched belongs to a unit of work or a few (a liker's own
partition), and its demand is its units, as if within one second (`demand`). Then the limits:

- **throttled partitions**: demand over 1,000 WCU or 3,000 RCU a second;
- **lag**: what a throttled partition cannot take piles up, and is taken at the limit:
  `backlog / throughput` = `(demand − limit) × seconds / limit` after `seconds` of the load;
  likewise a worker whose queue mapping caps its concurrency below what the rate needs
  (`function_load`); for the fan-out, the time until the last follower has the post (below);
- **conflicts**: DynamoDB cancels a transaction that touches an item another transaction is
  writing at that moment (`TransactionConflict`), and refuses a single write to such an item
  (`TransactionConflictException`). The emulator applies one request at a time and never does:
  while a sample runs concurrently (threads), the recorder applies that rule on the client — a
  transaction's items are "in flight" from the call's start to its answer — and answers a
  conflicting call as DynamoDB would, so the product's own retries and fallbacks run. Those
  are the conflicts counted; failed conditions (once-markers, put-if-absent: by design) are
  reported apart (`conditions_failed`), as is every refused call (`refused_calls`).

Scenarios (with the figures before this change's fix, where one was made):

(a) **likes**: a status receiving 10,000 likes a minute — 100 likes at once through the local
    API Gateway, then the pipeline: the `FAVBY#` index partition, the status's counter item,
    the author's `NOTIF#` partition and notification group head, the search index;
(b) **fanout**: an account with 1,000,000 followers posting. One page of 1,000 followers and its
    batches run against the emulator at full size (their calls and units); the real
    `fanout.fan_out` then runs over an in-memory follower index of a million follow ids (only
    the index Query is replaced) to make the job graph — a chain of 1,000 pages before, parallel
    parts now — and `simulate` runs that graph through the fan-out queue: workers as an SQS
    mapping scales them, capped by the template's `MaximumConcurrency`, the follower index
    partition's read limit and the Feed table's write quota;
(c) **inbox**: 10,000 activities (two public notes each) from 5,000 new actors of one server
    in 10 seconds — 50 actors' signed POSTs to the shared inbox at once (the actor documents
    served from memory), then the inbox worker and the pipeline: the `PEERS/<domain>` item every
    new actor's transaction wrote (before), the domain's, the directory's, the staff index's
    and the instance's partitions.

Latencies on AWS are not measured here (the emulator's are not AWS's): where a lag needs them
it uses the constants in `LATENCY_MS` and says so. `--json` prints one JSON object keyed by
scenario (`likes`, `fanout`, `inbox`), each `{throttled_partitions, max_partition_wcu,
max_partition_rcu, conflicts, lag_seconds, ...}` for the code as it is, with `before`: the same
figures before the fix, where one was made.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import math
import re
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from local import capacity, cfn
from .output import on_stack

WCU_LIMIT = 1000.0  # write units a second, per partition (table or GSI)
RCU_LIMIT = 3000.0  # read units a second, per partition
TABLE_WCU_QUOTA = 40_000.0  # on-demand, per table (the default service quota; adjustable)
NEW_TABLE_WCU = 4_000.0  # what a new on-demand table takes at once (its warm throughput), then
# twice its previous peak (Developer Guide, "Initial throughput and scaling properties")

# AWS latencies the lag models use (not measured here): p50-ish figures for calls within a
# region, small items; a Query of a full 1,000-entry page costs more than a point read.
LATENCY_MS = {"GetItem": 5.0, "PutItem": 7.0, "UpdateItem": 7.0, "DeleteItem": 7.0,
              "Query": 10.0, "Scan": 10.0, "BatchGetItem": 12.0, "BatchWriteItem": 15.0,
              "TransactWriteItems": 20.0, "TransactGetItems": 12.0, "SendMessage": 15.0,
              "SendMessageBatch": 15.0}
QUERY_MS_PER_100_ENTRIES = 2.0  # a page of 1,000 follower entries (~200 KB): +20 ms
ESM_PICKUP_MS = 100.0  # SQS → Lambda through an event source mapping, queue busy
INVOCATION_MS = 5.0  # a warm invocation's own overhead


# ----------------------------------------------------------------------------- partitions
@dataclass(frozen=True, order=True)
class Partition:
    """One partition key of a table or of one of its global secondary indexes."""

    table: str  # the template's logical name (MainTable, FeedTable, …)
    index: str  # "" for the table itself
    key: str

    def label(self) -> str:
        where = f"{self.table}.{self.index}" if self.index else self.table
        return f"{where} {self.key}"


@dataclass
class Use:
    """Units one call consumed on one partition (`half`: which half of the sample made it)."""

    partition: Partition
    read: float = 0.0
    write: float = 0.0
    half: int = 0


def _hash_value(value: dict[str, Any]) -> str:
    (_, raw), = value.items()
    return str(raw)


def _query_partition(params: dict[str, Any], table: capacity.Table) -> str:
    """The partition key value a Query's key condition names (`<hash name> = :value`)."""
    names = params.get("ExpressionAttributeNames", {})
    values = params.get("ExpressionAttributeValues", {})
    index = table.index(params["IndexName"]) if params.get("IndexName") else None
    wanted = index.hash_key if index else table.hash_key
    for name, placeholder in re.findall(r"(#?[\w]+)\s*=\s*(:[\w]+)",
                                        params.get("KeyConditionExpression", "")):
        if names.get(name, name) == wanted and placeholder in values:
            return _hash_value(values[placeholder])
    return "?"


def _write_uses(table: capacity.Table, logical: str, kind: str, body: dict[str, Any], *,
                ok: bool, before: dict[str, Any], store: capacity.Store,
                transactional: bool) -> list[Use]:
    """The units one written item (or a transaction's condition check) costs each partition:
    the table partition its key names, and the index partitions its entries leave and enter."""
    key = table.key(body["Item"]) if kind == "Put" else body["Key"]
    home = Partition(logical, "", _hash_value(key[table.hash_key]))
    old = before.get(capacity.key_id(table.name, key))
    if kind == "ConditionCheck":
        return [Use(home, read=capacity.read_units(capacity.item_size(old), transactional=True))]
    if not ok:  # refused or cancelled: charged, nothing changed, no index writes
        new = body["Item"] if kind == "Put" else old
        size = max(capacity.item_size(old), capacity.item_size(new)) if old else 0
        return [Use(home, write=capacity.write_units(size, transactional=transactional))]
    new = body["Item"] if kind == "Put" else (store.item(table.name, key) if kind == "Update"
                                               else None)
    uses = [Use(home, write=capacity.write_units(
        max(capacity.item_size(old), capacity.item_size(new)), transactional=transactional))]
    for index in table.indexes:
        was = capacity.index_entry(table, index, old)
        now = capacity.index_entry(table, index, new)
        if was is None and now is None:
            continue

        def at(entry: dict[str, Any]) -> Partition:
            return Partition(logical, index.name, _hash_value(entry[index.hash_key]))

        if was is None:
            uses.append(Use(at(now), write=capacity.write_units(capacity.item_size(now))))
        elif now is None:
            uses.append(Use(at(was), write=capacity.write_units(capacity.item_size(was))))
        elif not capacity._same(capacity.index_key(index, was), capacity.index_key(index, now)):
            uses.append(Use(at(was), write=capacity.write_units(capacity.item_size(was))))
            uses.append(Use(at(now), write=capacity.write_units(capacity.item_size(now))))
        elif not capacity._same(was, now):
            uses.append(Use(at(now), write=capacity.write_units(capacity.item_size(now))))
    return uses


def partition_uses(operation: str, params: dict[str, Any], response: dict[str, Any], *,
                   before: dict[str, Any], store: capacity.Store,
                   tables: dict[str, capacity.Table], logical: dict[str, str]) -> list[Use]:
    """What one DynamoDB call cost each partition it touched (capacity.py's units, split by
    partition). `logical`: physical table name → the template's logical name."""
    error = (response.get("Error") or {}).get("Code")
    if error and error not in ("ConditionalCheckFailedException", "TransactionCanceledException"):
        return []
    ok = error is None
    uses: list[Use] = []
    if operation in ("GetItem", "BatchGetItem", "TransactGetItems"):
        if operation == "GetItem":
            requests = {params["TableName"]: {"Keys": [params["Key"]],
                                              "ConsistentRead": params.get("ConsistentRead")}}
        elif operation == "BatchGetItem":
            requests = params.get("RequestItems", {})
        else:
            requests = defaultdict(lambda: {"Keys": []})
            for entry in params.get("TransactItems", []):
                requests[entry["Get"]["TableName"]]["Keys"].append(entry["Get"]["Key"])
        left = response.get("UnprocessedKeys") or {}
        for name, spec in requests.items():
            table = tables[name]
            skipped = {capacity.key_id(name, k) for k in (left.get(name) or {}).get("Keys", [])}
            for key in spec.get("Keys", []):
                if capacity.key_id(name, key) in skipped:
                    continue
                size = capacity.item_size(store.item(name, key))
                units = capacity.read_units(size, transactional=True) \
                    if operation == "TransactGetItems" else \
                    capacity.read_units(size, consistent=bool(spec.get("ConsistentRead")))
                uses.append(Use(Partition(logical[name], "", _hash_value(key[table.hash_key])),
                                read=units))
    elif operation in ("Query", "Scan"):
        table = tables[params["TableName"]]
        units = capacity.charge(operation, params, response, before=before, store=store,
                                tables=tables).read
        key = _query_partition(params, table) if operation == "Query" else "(scan)"
        uses.append(Use(Partition(logical[table.name], params.get("IndexName") or "", key),
                        read=units))
    elif operation in ("PutItem", "UpdateItem", "DeleteItem"):
        name = params["TableName"]
        uses += _write_uses(tables[name], logical[name], operation.removesuffix("Item"),
                            params, ok=ok, before=before, store=store, transactional=False)
    elif operation == "BatchWriteItem":
        left = response.get("UnprocessedItems") or {}
        for name, requests in params.get("RequestItems", {}).items():
            skipped = {json.dumps(r, sort_keys=True, default=repr) for r in left.get(name, [])}
            for request in requests:
                if json.dumps(request, sort_keys=True, default=repr) in skipped:
                    continue
                kind, body = ("Put", request["PutRequest"]) if "PutRequest" in request else \
                    ("Delete", request["DeleteRequest"])
                uses += _write_uses(tables[name], logical[name], kind, body, ok=True,
                                    before=before, store=store, transactional=False)
    elif operation == "TransactWriteItems":
        for entry in params.get("TransactItems", []):
            (kind, body), = entry.items()
            name = body["TableName"]
            uses += _write_uses(tables[name], logical[name], kind, body, ok=ok, before=before,
                                store=store, transactional=True)
    return uses


# ------------------------------------------------------------------------- demand and limits
@dataclass
class Demand:
    """A partition's units a second at the scenario's rate; `shared`: whether units of work in
    general touch it (a status's likers all write its index partition), or only one or a few
    (a liker's own partition)."""

    partition: Partition
    rcu: float
    wcu: float
    shared: bool = True

    def over(self) -> tuple[float, float]:
        return max(0.0, self.wcu - WCU_LIMIT), max(0.0, self.rcu - RCU_LIMIT)

    def throttled(self) -> bool:
        return self.wcu > WCU_LIMIT or self.rcu > RCU_LIMIT

    def lag_seconds(self, seconds: float) -> float:
        """How long after `seconds` of this load the partition is still taking it: what it
        could not take, `(demand − limit) × seconds`, at the limit's rate."""
        over_w, over_r = self.over()
        return max(over_w * seconds / WCU_LIMIT, over_r * seconds / RCU_LIMIT)

    def headroom(self) -> float:
        """The factor the rate may grow by before this partition throttles."""
        factors = [limit / used for used, limit in ((self.wcu, WCU_LIMIT), (self.rcu, RCU_LIMIT))
                   if used > 0]
        return min(factors) if factors else math.inf


def demand(uses: list[Use], *, units: int, rate: float) -> list[Demand]:
    """Each partition's demand a second when `units` units of work made `uses` and the
    scenario runs `rate` units of work a second; the busiest first.

    The sample runs in two halves, one after the other (`Use.half`). A partition that both
    halves touched is one the scenario's units of work share, and its demand scales with the
    rate: `units in the sample × rate / units of work`. One that only a half touched belongs to
    one unit of work or a few (a liker's account, a new status): at any rate it takes about
    what it took, so its demand is its units, as if they all came within one second."""
    read: Counter[Partition] = Counter()
    write: Counter[Partition] = Counter()
    halves: dict[Partition, set[int]] = defaultdict(set)
    for use in uses:
        read[use.partition] += use.read
        write[use.partition] += use.write
        halves[use.partition].add(use.half)
    scale = rate / units
    found = []
    for p in set(read) | set(write):
        shared = len(halves[p]) > 1
        factor = scale if shared else 1.0
        found.append(Demand(p, read[p] * factor, write[p] * factor, shared))
    return sorted(found, key=lambda d: (-max(d.wcu / WCU_LIMIT, d.rcu / RCU_LIMIT), d.partition))


def summary(demands: list[Demand], *, seconds: float, conflicts: int,
            lag_seconds: float | None = None, top: int = 8,
            writers: dict[Partition, Counter[str]] | None = None, units: int = 1
            ) -> dict[str, Any]:
    """The figures each scenario reports, from its partitions' demand."""
    throttled = [d for d in demands if d.throttled()]
    lag = max((d.lag_seconds(seconds) for d in demands), default=0.0)
    return {
        "throttled_partitions": [d.partition.label() for d in throttled],
        "max_partition_wcu": round(max((d.wcu for d in demands), default=0.0), 1),
        "max_partition_rcu": round(max((d.rcu for d in demands), default=0.0), 1),
        "conflicts": conflicts,
        "lag_seconds": round(lag if lag_seconds is None else lag_seconds, 1),
        "busiest": [{"partition": d.partition.label(), "wcu": round(d.wcu, 1),
                     "rcu": round(d.rcu, 1), "headroom": round(d.headroom(), 2),
                     "shared": d.shared,
                     **({"units_per_unit_of_work_by_call": {
                         who: round(n / units, 3)
                         for who, n in (writers.get(d.partition) or Counter()).most_common(4)}}
                        if writers is not None else {})}
                    for d in demands[:top]],
    }


# ----------------------------------------------------------------------------- the recorder
def _key_schema(schema: list[dict[str, str]]) -> tuple[str, str | None]:
    hash_key = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_key = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return hash_key, range_key


def tables_of(template: dict[str, Any], names: dict[str, str]) -> dict[str, capacity.Table]:
    """{physical name: capacity.Table} of the template's tables, with their global secondary
    indexes and projections (`names`: logical → physical)."""
    found = {}
    for logical, physical in names.items():
        props = template["Resources"][logical].get("Properties", {})
        indexes = []
        for gsi in props.get("GlobalSecondaryIndexes") or []:
            projection = gsi.get("Projection") or {}
            indexes.append(capacity.Index(gsi["IndexName"], *_key_schema(gsi["KeySchema"]),
                                          projection.get("ProjectionType", "KEYS_ONLY"),
                                          tuple(projection.get("NonKeyAttributes") or ())))
        found[physical] = capacity.Table(physical, *_key_schema(props["KeySchema"]),
                                         tuple(indexes))
    return found


def moto_store() -> capacity.Store:
    """The items as the in-process emulator holds them (before and after each call)."""
    def backend() -> Any:
        from moto.dynamodb.models import dynamodb_backends

        return dynamodb_backends[cfn.ACCOUNT][cfn.REGION]

    from local import emulator

    return emulator.moto_store(backend)


def _item_keys(operation: str, params: dict[str, Any], tables: dict[str, capacity.Table]
               ) -> list[str]:
    return [capacity.key_id(t, k) for t, k in capacity.touched_keys(operation, params, tables)]


class _Response:
    """What botocore takes from a `before-call` handler in place of an HTTP answer."""

    def __init__(self, status_code: int) -> None:
        self.status_code = status_code
        self.headers: dict[str, str] = {}
        self.content = b""
        self.text = ""
        self.raw = None
        self.url = ""


@dataclass
class Recorder:
    """Every DynamoDB call on the shared client while attached: the units it cost each
    partition (`uses`), its errors, and — while `conflicts_on` — DynamoDB's transaction
    conflict rule applied on the client (see the module's docstring)."""

    tables: dict[str, capacity.Table]
    store: capacity.Store
    logical: dict[str, str]
    uses: list[Use] = field(default_factory=list)
    writers: dict[Partition, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    calls: Counter[str] = field(default_factory=Counter)
    by_function: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    errors: Counter[str] = field(default_factory=Counter)
    errors_by_call: Counter[str] = field(default_factory=Counter)
    injected: int = 0
    conflicts_on: bool = False
    half: int = 0  # which half of the sample is running (see `demand`)
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: Counter[str] = field(default_factory=Counter)
    client: Any = None

    @classmethod
    def for_stack(cls, stack: Any) -> Recorder:
        names = stack.table_names
        return cls(tables_of(stack.template, names), moto_store(),
                   {physical: logical for logical, physical in names.items()})

    # -- botocore hooks --
    def _started(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
                 ) -> None:
        if model.name not in capacity.DATA_PLANE:
            return
        keys = _item_keys(model.name, params, self.tables)
        before = {k: None for k in keys}
        for table, key in capacity.touched_keys(model.name, params, self.tables):
            before[capacity.key_id(table, key)] = self.store.item(table, key)
        context["stratus.scale"] = {"params": dict(params), "before": before, "keys": keys,
                                    "registered": False}

    def _before_call(self, model: Any, context: dict[str, Any], **_: Any) -> Any:
        state = context.get("stratus.scale")
        if state is None or not self.conflicts_on or not state["keys"]:
            return None
        transaction = model.name == "TransactWriteItems"
        with self.lock:
            busy = [k for k in state["keys"] if self.in_flight[k]]
            if not busy:
                if transaction:
                    for k in state["keys"]:
                        self.in_flight[k] += 1
                    state["registered"] = True
                return None
            self.injected += 1
        if transaction:
            reasons = [{"Code": "TransactionConflict",
                        "Message": "Transaction is ongoing for the item"}
                       if k in busy else {"Code": "None"} for k in state["keys"]]
            return _Response(400), {
                "Error": {"Code": "TransactionCanceledException",
                          "Message": "Transaction cancelled, please refer cancellation reasons "
                                     "for specific reasons [" +
                                     ", ".join(r["Code"] for r in reasons) + "]"},
                "CancellationReasons": reasons, "ResponseMetadata": {"HTTPStatusCode": 400}}
        return _Response(400), {
            "Error": {"Code": "TransactionConflictException",
                      "Message": "Transaction is ongoing for the item"},
            "ResponseMetadata": {"HTTPStatusCode": 400}}

    def _release(self, state: dict[str, Any]) -> None:
        if state.get("registered"):
            with self.lock:
                for k in state["keys"]:
                    self.in_flight[k] -= 1
                    if self.in_flight[k] <= 0:
                        del self.in_flight[k]
            state["registered"] = False

    def _ended(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
               ) -> None:
        state = context.pop("stratus.scale", None)
        if state is None:
            return
        self._release(state)
        from local import iam

        role = iam.current()
        function = role.function if role is not None else "(request)"
        uses = partition_uses(model.name, state["params"], parsed, before=state["before"],
                              store=self.store, tables=self.tables, logical=self.logical)
        for use in uses:
            use.half = self.half
        error = (parsed.get("Error") or {}).get("Code")
        with self.lock:
            self.uses += uses
            for use in uses:
                self.writers[use.partition][f"{function} {model.name}"] += use.read + use.write
            self.calls[model.name] += 1
            self.by_function[function][model.name] += 1
            if error == "TransactionCanceledException":
                for reason in parsed.get("CancellationReasons") or []:
                    if reason.get("Code") not in (None, "None"):
                        self.errors[f"TransactionCanceled:{reason['Code']}"] += 1
                        self.errors_by_call[f"{function} {model.name} {reason['Code']}"] += 1
            elif error:
                self.errors[error] += 1
                self.errors_by_call[f"{function} {model.name} {error}"] += 1

    def _failed(self, context: dict[str, Any], **_: Any) -> None:
        state = context.pop("stratus.scale", None)
        if state is not None:
            self._release(state)

    def attach(self) -> Recorder:
        from stratus.repo.client import dynamodb

        self.client = dynamodb()
        events = self.client.meta.events
        events.register("provide-client-params.dynamodb", self._started,
                        unique_id="bench-scale-start")
        events.register("before-call.dynamodb", self._before_call,
                        unique_id="bench-scale-conflicts")
        events.register("after-call.dynamodb", self._ended, unique_id="bench-scale-end")
        events.register("after-call-error.dynamodb", self._failed,
                        unique_id="bench-scale-error")
        return self

    def detach(self) -> None:
        if self.client is None:
            return
        events = self.client.meta.events
        events.unregister("provide-client-params.dynamodb", unique_id="bench-scale-start")
        events.unregister("before-call.dynamodb", unique_id="bench-scale-conflicts")
        events.unregister("after-call.dynamodb", unique_id="bench-scale-end")
        events.unregister("after-call-error.dynamodb", unique_id="bench-scale-error")
        self.client = None

    def reset(self) -> None:
        with self.lock:
            self.uses = []
            self.writers.clear()
            self.calls.clear()
            self.by_function.clear()
            self.errors.clear()
            self.errors_by_call.clear()
            self.injected = 0

    @contextlib.contextmanager
    def concurrent(self) -> Iterator[None]:
        """Apply the transaction conflict rule while the block runs."""
        self.conflicts_on = True
        try:
            yield
        finally:
            self.conflicts_on = False

    def conflicts(self) -> int:
        """Writes refused because another was writing the same item: transactions cancelled
        by a conflict (or a throttled item), single writes to an item a transaction held."""
        return sum(n for code, n in self.errors.items() if code in (
            "TransactionCanceled:TransactionConflict", "TransactionCanceled:ThrottlingError",
            "TransactionConflictException"))

    def conditions_failed(self) -> int:
        """Conditions that did not hold (once-markers, put-if-absent, claims): by design, but
        each still costs the write units of the item it names."""
        return sum(n for code, n in self.errors.items() if code in (
            "TransactionCanceled:ConditionalCheckFailed", "ConditionalCheckFailedException"))


@contextlib.contextmanager
def recording(runtime: Any) -> Iterator[Recorder]:
    recorder = Recorder.for_stack(runtime.stack).attach()
    try:
        yield recorder
    finally:
        recorder.detach()


def modelled_ms(calls: Counter[str], *, query_entries: int = 0) -> float:
    """What `calls` would take on AWS one after another (`LATENCY_MS`), plus the entries a
    Query returned beyond a point read's size."""
    return sum(LATENCY_MS.get(op, 10.0) * n for op, n in calls.items()) + \
        QUERY_MS_PER_100_ENTRIES * query_entries / 100


def halves(items: list[Any]) -> list[list[Any]]:
    """The sample's two halves, run one after the other (see `demand`)."""
    middle = len(items) // 2
    return [items[:middle], items[middle:]]


# --------------------------------------------------------------------------- functions' load
def concurrency_caps(template: dict[str, Any]) -> dict[str, int]:
    """Functions whose SQS event source mapping caps their concurrency
    (`ScalingConfig.MaximumConcurrency`), or that reserve concurrency: {function: cap}."""
    caps: dict[str, int] = {}
    for name, resource in template["Resources"].items():
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        props = resource.get("Properties", {})
        found = [int(event["Properties"]["ScalingConfig"]["MaximumConcurrency"])
                 for event in (props.get("Events") or {}).values()
                 if event.get("Type") == "SQS" and
                 "MaximumConcurrency" in (event.get("Properties", {}).get("ScalingConfig") or {})]
        reserved = props.get("ReservedConcurrentExecutions")
        if isinstance(reserved, int):
            found.append(reserved)
        if found:
            caps[name] = min(found)
    return caps


def function_load(recorder: Recorder, *, units: int, rate: float, caps: dict[str, int],
                  seconds: float) -> tuple[dict[str, Any], float]:
    """Each function's DynamoDB time per unit of work (its calls at `LATENCY_MS`), the
    concurrency that takes at `rate`, and for a capped function the lag its queue gathers in
    `seconds`: `(needed / cap − 1) × seconds` when it needs more than its cap. Returns
    ({function: figures}, the largest lag)."""
    found, worst = {}, 0.0
    for function, calls in sorted(recorder.by_function.items()):
        per_unit = modelled_ms(calls) / units
        needed = rate * per_unit / 1000
        cap = caps.get(function)
        lag = max(0.0, (needed / cap - 1) * seconds) if cap else 0.0
        worst = max(worst, lag)
        found[function] = {"dynamodb_ms_per_unit": round(per_unit, 1),
                           "concurrency_needed": round(needed, 2),
                           **({"cap": cap, "lag_seconds": round(lag, 1)} if cap else {})}
    return found, worst


def _report(recorder: Recorder, runtime: Any, *, units: int, rate: float, seconds: float,
            **extra: Any) -> dict[str, Any]:
    demands = demand(recorder.uses, units=units, rate=rate)
    load, queue_lag = function_load(recorder, units=units, rate=rate,
                                    caps=concurrency_caps(runtime.stack.template),
                                    seconds=seconds)
    partitions_lag = max((d.lag_seconds(seconds) for d in demands), default=0.0)
    result = summary(demands, seconds=seconds, conflicts=recorder.conflicts(),
                     lag_seconds=max(partitions_lag, queue_lag), writers=recorder.writers,
                     units=units)
    result.update(conditions_failed=recorder.conditions_failed(), **extra,
                  refused_calls=dict(recorder.errors_by_call), functions=load)
    return result


# ------------------------------------------------------------------------ (a) a viral status
LIKES_PER_MINUTE = 10_000
LIKES_SAMPLE = 100
THREADS = 16


def likes(runtime: Any, log: Callable[[str], None] = print, sample: int = LIKES_SAMPLE
          ) -> dict[str, Any]:
    """(a) `sample` accounts like one status at once (THREADS threads through the local API
    Gateway, conflicts applied), then the pipeline runs their side effects (counts, the
    author's notifications and group head, the search index, streaming and push); scaled to
    10,000 likes a minute. The likers have used the API today already (their first request of
    a day writes the day's activity partition, reported in docs/performance.md on its own)."""
    from stratus.api.statuses import post as posting
    from stratus.repo import statuses as statuses_repo

    from .costs import people, request

    log(f"(a) {sample} likes of one status at once, scaled to {LIKES_PER_MINUTE:,} a minute")
    crowd, _ = people("scalefan", sample + 1)
    author, fans = crowd[0], crowd[1:]
    for fan in fans:  # their day's first request, not part of a like
        request(runtime, "GET", "/api/v1/accounts/verify_credentials", token=fan.token)
    status_id = posting.create(author.viewer, {"status": "about to go viral"})
    runtime.pipeline.drain(max_rounds=1000)
    path = f"/api/v1/statuses/{status_id}/favourite"
    answers: Counter[str] = Counter()
    with recording(runtime) as recorder:
        for recorder.half, half in enumerate(halves(fans)):
            with recorder.concurrent(), ThreadPoolExecutor(THREADS) as pool:
                for code in pool.map(
                        lambda fan: request(runtime, "POST", path, token=fan.token)[0], half):
                    answers[str(code)] += 1
            runtime.pipeline.drain(max_rounds=1000)
    count = statuses_repo.get(status_id)["stats"]["favourites_count"]
    return _report(recorder, runtime, units=sample, rate=LIKES_PER_MINUTE / 60, seconds=60,
                   sample=sample, answers=dict(answers), favourites_count=count)


# -------------------------------------------------------------- (c) an inbox burst of one server
INBOX_ACTORS = 5_000
INBOX_ACTIVITIES_PER_ACTOR = 2
INBOX_SECONDS = 10
INBOX_SAMPLE = 50
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
# Names for the made-up actors: what the account search index keys by (first characters)
# spreads as real names do, not all under one letter.
NAMES = ("Ada", "Bruno", "Chloe", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jonas",
         "Kenji", "Lena", "Mateo", "Nora", "Oskar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
         "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe", "Amara", "Sofia", "Marco", "Leila",
         "Tomas", "Carmen", "Ravi", "Ewa", "Noah", "Mina", "Pablo", "Sara", "Ali", "Kim")


class _Server:
    """A remote server the bench makes up: actors (one RSA key for all, each with its own key
    id) whose documents `fetch_object` is served without the network, and signed activities."""

    def __init__(self, domain: str) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.domain = domain
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.pem = self.key.public_key().public_bytes(
            serialization.Encoding.PEM,
            serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        self.documents: dict[str, dict[str, Any]] = {}

    def actor(self, n: int) -> str:
        first = NAMES[n % len(NAMES)]
        last = NAMES[(n * 7 + 3) % len(NAMES)]
        username = f"{first.lower()}{n}"
        uri = f"https://{self.domain}/users/{username}"
        self.documents[uri] = {
            "@context": ["https://www.w3.org/ns/activitystreams",
                         "https://w3id.org/security/v1"],
            "id": uri, "type": "Person", "preferredUsername": username,
            "name": f"{first} {last}son", "summary": "<p>new here</p>",
            "url": f"https://{self.domain}/@{username}",
            "inbox": f"{uri}/inbox", "outbox": f"{uri}/outbox",
            "followers": f"{uri}/followers", "following": f"{uri}/following",
            "manuallyApprovesFollowers": False, "discoverable": True, "indexable": True,
            "published": "2026-01-01T00:00:00Z",
            "endpoints": {"sharedInbox": f"https://{self.domain}/inbox"},
            "publicKey": {"id": f"{uri}#main-key", "owner": uri, "publicKeyPem": self.pem}}
        return uri

    def create(self, actor: str, number: int) -> bytes:
        note = f"{actor}/statuses/{number}"
        return json.dumps({
            "@context": "https://www.w3.org/ns/activitystreams", "id": f"{note}/activity",
            "type": "Create", "actor": actor, "to": [PUBLIC], "cc": [f"{actor}/followers"],
            "object": {"id": note, "type": "Note", "attributedTo": actor,
                       "url": f"https://{self.domain}/@{actor.rsplit('/', 1)[1]}/{number}",
                       "published": "2026-11-27T10:00:00Z", "to": [PUBLIC],
                       "cc": [f"{actor}/followers"], "content": f"<p>hello {number}</p>",
                       "sensitive": False, "summary": None}}).encode()

    def post(self, runtime: Any, actor: str, body: bytes) -> int:
        from stratus.federation import signatures

        signed = signatures.sign_cavage("POST", "localhost:8000", "/inbox",
                                        key_id=f"{actor}#main-key", private_key=self.key,
                                        body=body)
        headers = [(b"host", b"localhost:8000")] + \
            [(k.lower().encode(), v.encode()) for k, v in signed.items()]
        scope = {"type": "http", "method": "POST", "path": "/inbox", "raw_path": b"/inbox",
                 "query_string": b"", "headers": headers, "client": ("203.0.113.7", 443)}
        status, _, _ = runtime.gateway.handle(scope, body)
        return status

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """`fetch_object` answers this server's actor documents, and WebFinger its actors'
        handles (and nothing else changes)."""
        from stratus.federation import http, webfinger

        real, real_lookup = http._get_object, webfinger.lookup

        def get_object(url: str, deadline: Any) -> tuple[dict[str, Any], str]:
            target = url.split("#", 1)[0]
            if target in self.documents:
                return self.documents[target], target
            return real(url, deadline)

        def lookup(username: str, domain: str) -> Any:
            uri = f"https://{domain}/users/{username}"
            if domain == self.domain and uri in self.documents:
                return webfinger.Answer((username, domain), (username, domain), uri)
            return real_lookup(username, domain)

        http._get_object, webfinger.lookup = get_object, lookup
        try:
            yield
        finally:
            http._get_object, webfinger.lookup = real, real_lookup


@contextlib.contextmanager
def peers_in_transactions() -> Iterator[None]:
    """The code before the PEERS fix: every new actor's transaction put `PEERS/<domain>`, and
    nothing else wrote it."""
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import base, keys, peers

    real_ops, real_remember = accounts_repo.remote_index_ops, peers.remember

    def remote_index_ops(profile: dict[str, Any]) -> list[Any]:
        domain = profile["domain"].lower()
        return [*real_ops(profile),
                base.Op("Put", item={**keys.peer(domain), "type": "peer", "domain": domain})]

    accounts_repo.remote_index_ops = remote_index_ops
    peers.remember = lambda domain: False
    try:
        yield
    finally:
        accounts_repo.remote_index_ops, peers.remember = real_ops, real_remember


def inbox(runtime: Any, log: Callable[[str], None] = print, sample: int = INBOX_SAMPLE, *,
          before: bool = False) -> dict[str, Any]:
    """(c) `sample` new actors of one server each POST two signed public notes to the shared
    inbox at once (THREADS threads through the local API Gateway: signature check, the actor
    fetched — from memory — and stored; conflicts applied), then the inbox worker and the
    rest of the pipeline store the notes; scaled to 5,000 actors in 10 seconds. `before`: as
    the code was before the PEERS fix."""
    from stratus.federation import remote_accounts
    from stratus.repo import keys, uris
    from stratus.repo import base as base_repo

    server = _Server(f"burst-{'before' if before else 'after'}-{int(time.time())}.example")
    actors = [server.actor(n) for n in range(sample)]
    log(f"(c) {sample} new actors of {server.domain}, {INBOX_ACTIVITIES_PER_ACTOR} notes each"
        f"{' (before the fix)' if before else ''}, scaled to {INBOX_ACTORS:,} actors in "
        f"{INBOX_SECONDS} s")
    answers: Counter[str] = Counter()

    def one_actor(actor: str) -> list[int]:
        return [server.post(runtime, actor, server.create(actor, n))
                for n in range(INBOX_ACTIVITIES_PER_ACTOR)]

    patch = peers_in_transactions() if before else contextlib.nullcontext()
    with server.serving(), patch, recording(runtime) as recorder:
        for recorder.half, half in enumerate(halves(actors)):
            with recorder.concurrent(), ThreadPoolExecutor(THREADS) as pool:
                for codes in pool.map(one_actor, half):
                    answers.update(str(c) for c in codes)
            runtime.pipeline.drain(max_rounds=1000)
    stored = sum(remote_accounts.find(a) is not None for a in actors)
    notes = sum(uris.find(f"{a}/statuses/{n}") is not None for a in actors
                for n in range(INBOX_ACTIVITIES_PER_ACTOR))
    peer_writes = sum(n for who, n in recorder.writers.get(
        Partition("MainTable", "", keys.PEERS_PK), Counter()).items() if "Put" in who or
        "Transact" in who)
    return _report(recorder, runtime, units=sample, rate=INBOX_ACTORS / INBOX_SECONDS,
                   seconds=INBOX_SECONDS, sample=sample, answers=dict(answers),
                   actors_stored=stored, notes_stored=notes,
                   peer_item=base_repo.get(keys.peer(server.domain)) is not None,
                   peer_partition_write_units=round(peer_writes, 1))


# --------------------------------------------------------------- (b) an account with 1M followers
FOLLOWERS = 1_000_000
MEASURED_PAGE = 1000  # followers written to the emulator to measure one page and one batch
ACCOUNT_CONCURRENCY = 1000  # Lambda's default regional concurrency: "no cap" means this
BATCH_SIZE = 10  # the fan-out queue's event source mapping (template.yaml)
CONCURRENCIES = (10, 25, 50, 100, ACCOUNT_CONCURRENCY)


def follow_ids(count: int, *, seed: int = 22, years: float = 3.0) -> list[int]:
    """Follow ids of `count` followers who followed over `years`, most of them lately (a
    growing account: the time before now is `years × u³` for uniform u), sorted."""
    import random

    from stratus.core import ids

    rng = random.Random(seed)
    now_ms = ids.timestamp_ms(ids.new_id())
    span = years * 365 * 86400 * 1000
    return sorted({(int(now_ms - span * rng.random() ** 3 - 1000) << 16) | rng.randrange(65536)
                   for _ in range(count)})


@dataclass
class SimJob:
    """A job of the fan-out's graph: a FanOut page (its followers, its children) or a batch."""

    kind: str  # "page" | "batch"
    size: int = 0  # followers read (page) or receivers (batch)
    children: list[SimJob] = field(default_factory=list)
    level: int = 0


def job_graph(author: str, ids_: list[int], *, split: int) -> tuple[SimJob, dict[str, int]]:
    """The real `fanout.fan_out` run over an in-memory follower index (`ids_`: follow ids,
    the follower being named by its follow id): only the Query of the follower index is
    replaced. Returns the root page (its children: Deliver batches and the FanOut jobs it handed
    on, recursively) and counts."""
    import bisect

    from stratus.core import ids as id_module
    from stratus.jobs import messages as jobs
    from stratus.workers import fanout

    def followers_page(account_id: str, after: str | None, limit: int, *,
                       until: str | None = None) -> tuple[list[str], str | None]:
        start = bisect.bisect_right(ids_, int(after)) if after else 0
        end = bisect.bisect_right(ids_, int(until)) if until else len(ids_)
        page = ids_[start:min(end, start + limit)]
        return [str(i) for i in page], (str(page[-1]) if len(page) == limit else None)

    sent: list[Any] = []
    real_page, real_enqueue, real_split = fanout.feeds.followers_page, fanout._enqueue, \
        fanout.SPLIT
    fanout.feeds.followers_page = followers_page
    fanout._enqueue = lambda *messages: sent.extend(messages)
    fanout.SPLIT = split
    counts: Counter[str] = Counter()
    try:
        status = {"id": id_module.new_id(), "account_id": author, "visibility": "public",
                  "local": True, "created_at": "2026-11-27T10:00:00.000Z"}
        until = id_module.id_at(id_module.timestamp_ms(id_module.new_id()) + 60_000, upper=True)
        root = SimJob("page")
        pending = [(root, jobs.FanOut(status=status, until=until))]
        while pending:
            node, job = pending.pop()
            sent.clear()
            node.size = fanout.fan_out(job)
            counts["pages"] += 1
            for message in list(sent):
                if isinstance(message, jobs.Deliver):
                    node.children.append(SimJob("batch", len(message.receivers),
                                                level=node.level + 1))
                    counts["batches"] += 1
                elif isinstance(message, jobs.FanOut):
                    child = SimJob("page", level=node.level + 1)
                    node.children.append(child)
                    pending.append((child, message))
        counts["levels"] = _depth(root)
    finally:
        fanout.feeds.followers_page, fanout._enqueue, fanout.SPLIT = real_page, real_enqueue, \
            real_split
    return root, dict(counts)


def _depth(node: SimJob) -> int:
    depth, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        depth = max(depth, level)
        stack.extend((c, level + 1) for c in current.children if c.kind == "page")
    return depth


@dataclass
class Costs:
    """What one job takes on AWS, from a page and a batch measured at full size."""

    page_ms: float  # a full page: its Query and sends (plus the first page's list lookups)
    page_rcu: float  # read units of a full page on the follower index partition
    batch_ms: float  # a batch of 250 receivers
    batch_wcu: float  # write units a batch puts on the Feed table
    empty_page_ms: float = LATENCY_MS["Query"] + LATENCY_MS["SendMessageBatch"]


ESM_INITIAL = 5  # concurrent invocations an SQS event source mapping starts with
ESM_RAMP_PER_SECOND = 5.0  # and adds, up to its cap (300 a minute)


def simulate(root: SimJob, costs: Costs, *, concurrency: int, page_size: int,
             batch: int = BATCH_SIZE, table_wcu: float = TABLE_WCU_QUOTA) -> dict[str, float]:
    """The fan-out's jobs through its queue and at most `concurrency` workers (the mapping's
    cap), in time order. A worker polls, takes up to `batch` visible messages (its share when
    other workers are waiting too), is invoked `ESM_PICKUP_MS` later and runs them one after
    another; a page's children become visible when it ends. Workers come as an SQS mapping
    scales: `ESM_INITIAL` at once, `ESM_RAMP_PER_SECOND` more each second. A page's Query
    waits for the follower index partition (RCU_LIMIT a second), a batch's writes for the Feed
    table (`table_wcu` a second: the per-table quota, or a young table's warm throughput).
    Returns when the last follower has the post, the peak concurrency, and the peak demand on
    the partition and the table."""
    visible: list[tuple[float, int, SimJob]] = [(0.0, 0, root)]
    events: list[tuple[float, int, int, list[SimJob]]] = []  # (time, seq, worker, jobs left)
    serial = 1
    for worker in range(concurrency):
        available = max(0.0, (worker - ESM_INITIAL + 1) / ESM_RAMP_PER_SECOND)
        events.append((available, serial, worker, []))
        serial += 1
    heapq.heapify(events)
    idle: list[int] = []
    partition_free = table_free = 0.0
    index_wait = table_wait = last = 0.0
    started: dict[int, float] = {}
    intervals: list[tuple[float, float]] = []
    reads: list[float] = []
    writes: list[float] = []

    def show(job: SimJob, at: float) -> None:
        nonlocal serial
        heapq.heappush(visible, (at, serial, job))
        serial += 1
        while idle:  # waiting workers poll again when it shows
            heapq.heappush(events, (at, serial, idle.pop(), []))
            serial += 1

    while events:
        now, _, worker, left = heapq.heappop(events)
        if not left:  # a poll
            if worker in started:
                intervals.append((started.pop(worker), now))
            ready = [v for v in visible[:batch * 4] if v[0] <= now]
            if not visible:
                idle.append(worker)
                continue
            if not ready:
                heapq.heappush(events, (visible[0][0], serial, worker, []))
                serial += 1
                continue
            polling = 1 + len(idle) + sum(1 for e in events if not e[3] and e[0] <= now)
            share = max(1, min(batch, -(-len(ready) // polling)))
            taken = [heapq.heappop(visible)[2] for _ in range(min(share, len(ready)))]
            begin = now + (ESM_PICKUP_MS + INVOCATION_MS) / 1000
            started[worker] = begin
            heapq.heappush(events, (begin, serial, worker, taken))
            serial += 1
            continue
        job, rest = left[0], left[1:]
        if job.kind == "page":
            reads.append(now)
            rcu = costs.page_rcu * job.size / page_size
            query_done = now + (costs.page_ms if job.size >= page_size else
                                costs.empty_page_ms) / 1000
            partition_free = max(partition_free, now) + rcu / RCU_LIMIT
            done = max(query_done, partition_free)
            index_wait = max(index_wait, done - query_done)
            for child in job.children:
                show(child, done)
        else:
            writes.append(now)
            work_done = now + costs.batch_ms / 1000 * job.size / 250
            table_free = max(table_free, now) + costs.batch_wcu * job.size / 250 / table_wcu
            done = max(work_done, table_free)
            table_wait = max(table_wait, done - work_done)
            last = max(last, done)
        heapq.heappush(events, (done, serial, worker, rest))
        serial += 1
    return {"lag_seconds": round(last, 1), "peak_concurrency": _peak(intervals),
            "index_read_rcu_peak": round(_peak_rate(reads) * costs.page_rcu, 0),
            "feed_table_wcu_peak": round(_peak_rate(writes) * costs.batch_wcu, 0),
            "index_wait_seconds": round(index_wait, 2),
            "table_wait_seconds": round(table_wait, 2)}


def _peak(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    return peak


def _peak_rate(times: list[float], window: float = 1.0) -> int:
    times = sorted(times)
    best, low = 0, 0
    for high, t in enumerate(times):
        while times[low] < t - window:
            low += 1
        best = max(best, high - low + 1)
    return best


def measure_costs(runtime: Any, log: Callable[[str], None]) -> tuple[Costs, Recorder]:
    """One full page of 1,000 followers and one batch of 250, through the real code against
    the emulator: their calls (at `LATENCY_MS`) and units."""
    from stratus.api.statuses import post as posting
    from stratus.core import clock, ids
    from stratus.jobs import messages as jobs
    from stratus.model.relationships import FollowOptions
    from stratus.repo import base, feeds, keys, relationships
    from stratus.repo import statuses as statuses_repo
    from stratus.workers import fanout

    from .costs import people

    (author,), _ = people("scalepopular", 1)
    now = clock.epoch()
    follows, metas = [], []
    for _ in range(MEASURED_PAGE):
        follower = ids.new_id()
        follows.append(relationships.follow_item(ids.new_id(), follower, author.account_id,
                                                 FollowOptions(), authorized=True))
        metas.append({**keys.feed_meta(keys.home_feed(follower)), "state": "ready",
                      "active_until": feeds.active_until(now)})
    relationships.put_many(follows)
    base.write_many(puts=metas, table_name=feeds._table())
    runtime.pipeline.skip_stream()  # the fixture's follows are data, not events
    status_id = posting.create(author.viewer, {"status": "to a million followers"})
    runtime.pipeline.skip_stream()
    status = fanout.fields_of(statuses_repo.get(status_id))
    sent: list[Any] = []
    real_enqueue = fanout._enqueue

    def enqueue(*messages: Any) -> None:
        sent.extend(messages)
        real_enqueue(*messages)

    fanout._enqueue = enqueue
    try:
        with recording(runtime) as recorder:
            fanout.fan_out(jobs.FanOut(status=status, after=None, until=None))
            page_calls = Counter(recorder.calls)
            page_uses = list(recorder.uses)
            sends = -(-len(sent) // 10)
            recorder.reset()
            batches = [m for m in sent if isinstance(m, jobs.Deliver)]
            with recorder.concurrent(), ThreadPoolExecutor(len(batches)) as pool:
                list(pool.map(fanout.deliver, batches))  # the page's batches at once
    finally:
        fanout._enqueue = real_enqueue
    receivers = sum(len(b.receivers) for b in batches)
    per_batch = fanout.BATCH / receivers
    batch_calls = Counter({op: n * per_batch for op, n in recorder.calls.items()})
    page_rcu = sum(u.read for u in page_uses if u.partition.key.startswith("FOLLOWERS#"))
    batch_wcu = sum(u.write for u in recorder.uses if u.partition.table == "FeedTable") * \
        per_batch
    costs = Costs(
        page_ms=modelled_ms(page_calls, query_entries=MEASURED_PAGE) +
        sends * LATENCY_MS["SendMessageBatch"],
        page_rcu=page_rcu,
        batch_ms=modelled_ms(batch_calls) + LATENCY_MS["SendMessageBatch"],
        batch_wcu=batch_wcu)
    log(f"  a page of {MEASURED_PAGE:,}: {dict(page_calls)} + {sends} SendMessageBatch, "
        f"{page_rcu:.1f} RCU on its FOLLOWERS# index partition; a batch of {fanout.BATCH}: "
        + ", ".join(f"{n:.1f} {op}" for op, n in sorted(batch_calls.items())) +
        f", {batch_wcu:.0f} WCU on the Feed table (one per home feed); "
        f"{len(batches)} batches at once: {recorder.conflicts()} conflicts")
    return costs, recorder


def fanout_scenario(runtime: Any, log: Callable[[str], None] = print,
                    followers: int = FOLLOWERS) -> dict[str, Any]:
    """(b) One post by an account with `followers` followers: the job graph the real fan-out
    code makes of them (chained pages before, parallel parts after), then its jobs through the
    fan-out queue at each concurrency (`simulate`), with the costs of a page and a batch
    measured at full size."""
    from stratus.workers import fanout

    log(f"(b) one post to {followers:,} followers (their follows spread over 3 years, most lately)")
    costs, recorder = measure_costs(runtime, log)
    ids_ = follow_ids(followers)
    caps = concurrency_caps(runtime.stack.template)
    cap = caps.get("FanoutFunction", ACCOUNT_CONCURRENCY)
    results: dict[str, Any] = {}
    for label, split, concurrency in (("before", 1, ACCOUNT_CONCURRENCY),
                                      ("now", fanout.SPLIT, cap)):
        started = time.perf_counter()
        root, counts = job_graph("1", ids_, split=split)
        by_concurrency = {str(c): simulate(root, costs, concurrency=c,
                                           page_size=fanout.FOLLOWERS_PAGE)
                          for c in sorted({*CONCURRENCIES, concurrency})}
        chosen = by_concurrency[str(concurrency)]
        young = simulate(root, costs, concurrency=concurrency, page_size=fanout.FOLLOWERS_PAGE,
                         table_wcu=NEW_TABLE_WCU)
        throttled = ["MainTable.GSI1 FOLLOWERS#<author>"] \
            if chosen["index_read_rcu_peak"] > RCU_LIMIT else []
        if chosen["feed_table_wcu_peak"] > TABLE_WCU_QUOTA:
            throttled.append("FeedTable (the table's write quota)")
        results[label] = {
            "throttled_partitions": throttled,
            "max_partition_wcu": round(costs.batch_wcu / fanout.BATCH, 1),  # one feed each
            "max_partition_rcu": chosen["index_read_rcu_peak"],
            "conflicts": recorder.conflicts(),
            "lag_seconds": chosen["lag_seconds"],
            "split": split, "concurrency": concurrency, "jobs": counts,
            "peak_concurrency": chosen["peak_concurrency"],
            "lag_seconds_new_feed_table": young["lag_seconds"],
            "by_concurrency": by_concurrency,
            "graph_seconds": round(time.perf_counter() - started, 1)}
    now = results.pop("now")
    now["before"] = results["before"]
    now["costs"] = {"page_ms": round(costs.page_ms, 1), "page_rcu": round(costs.page_rcu, 1),
                    "batch_ms": round(costs.batch_ms, 1), "batch_wcu": round(costs.batch_wcu, 1),
                    "latency_ms": LATENCY_MS, "esm_pickup_ms": ESM_PICKUP_MS}
    return now


# ------------------------------------------------------------------------------------ the bench
FIGURES = ("throttled_partitions", "max_partition_wcu", "max_partition_rcu", "conflicts",
           "lag_seconds")


def run(runtime: Any, as_json: bool = False, out: Any = None, *,
        likes_sample: int = LIKES_SAMPLE, inbox_sample: int = INBOX_SAMPLE,
        followers: int = FOLLOWERS) -> dict[str, Any]:
    """All three scenarios: {"likes": figures, "fanout": figures, "inbox": figures}, each
    with `before` (the figures before this change's fix) where a fix was made."""
    out = out or (sys.stderr if as_json else sys.stdout)

    def log(line: str) -> None:
        print(line, file=out, flush=True)

    log("\nAt scale (issue #22): DynamoDB's partition limits — 1,000 WCU and 3,000 RCU a "
        "second per partition of a table or index — applied to what the real code does")
    started = time.perf_counter()
    results: dict[str, Any] = {"likes": likes(runtime, log, likes_sample)}
    results["fanout"] = fanout_scenario(runtime, log, followers)
    before = inbox(runtime, log, inbox_sample, before=True)
    results["inbox"] = {**inbox(runtime, log, inbox_sample), "before": before}
    log(f"\n{'scenario':13} {'code':7} {'max WCU':>8} {'max RCU':>8} {'conflicts':>9} "
        f"{'lag s':>7}  throttled partitions")
    for name, label in (("likes", "(a) likes"), ("fanout", "(b) fan-out"),
                        ("inbox", "(c) inbox")):
        rows = [("before", results[name]["before"])] if "before" in results[name] else []
        for code, figures in [*rows, ("now", results[name])]:
            throttled = ", ".join(figures["throttled_partitions"]) or "none"
            log(f"{label:13} {code:7} {figures['max_partition_wcu']:8.0f} "
                f"{figures['max_partition_rcu']:8.0f} {figures['conflicts']:9} "
                f"{figures['lag_seconds']:7.1f}  {throttled}")
    for name in ("likes", "inbox"):
        log(f"\n{name}: the busiest partitions now (units a second at the scenario's rate; "
            f"headroom: how much the rate may grow before it throttles)")
        for entry in results[name]["busiest"]:
            who = ", ".join(f"{k} {v}" for k, v in
                            entry.get("units_per_unit_of_work_by_call", {}).items())
            log(f"  {entry['partition'][:72]:72} {entry['wcu']:7.0f} WCU {entry['rcu']:7.0f} "
                f"RCU  ×{entry['headroom']:<5} ({who})")
    fan = results["fanout"]
    log("\nfanout: time until the last of 1,000,000 followers has the post, by the fan-out "
        "queue's concurrency (chained pages before, parallel parts now)")
    for code, figures in (("before", fan["before"]), ("now", fan)):
        log(f"  {code:7} {figures['jobs']['pages']:5} pages, {figures['jobs']['levels']:4} "
            "levels: " + ", ".join(f"{c}: {v['lag_seconds']:.0f} s"
                                   for c, v in figures["by_concurrency"].items()))
    log(f"(scale bench: {time.perf_counter() - started:.0f} s)")
    return results


def cli(args: list[str], start_stack: Any) -> int:
    """`python -m bench scale [--json]`."""
    if any(a != "--json" for a in args):
        print("usage: python -m bench scale [--json]", file=sys.stderr)
        return 2
    as_json = "--json" in args
    return on_stack(start_stack, lambda runtime: run(runtime, as_json=as_json), as_json)
