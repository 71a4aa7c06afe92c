"""What DynamoDB charges for a request (on-demand request units), by DynamoDB's published
rules: the local stack's DynamoDB answers `ReturnConsumedCapacity` with these units.

moto answers `ReturnConsumedCapacity` with constants (moto/dynamodb/responses.py: 0.5 for any
GetItem, 1.0 for any other single-item call or Query, 2.0 per transaction item), whatever the
item sizes, filters or indexes. local/emulator.py replaces its answer: for a call that asks
(TOTAL or INDEXES) it computes the units here (`charge`) from the items the call touched, read
from the emulator's backend before and after the call, and answers them in DynamoDB's shape
(`consumed_capacity`: per table, with the table's and each global secondary index's share under
INDEXES). Callers read them from the response as they would on AWS: `Meter` asks for INDEXES on
every data call of a boto3 client and turns each answer into a `Charge` (`reported`). What the
emulator charged calls whose error response carries no ConsumedCapacity (a failed condition, a
cancelled transaction: DynamoDB bills them and reports them only in CloudWatch's
ConsumedRead/WriteCapacityUnits) it keeps in `emulator.CONSUMED`.

The rules (Amazon DynamoDB Developer Guide: "DynamoDB item sizes and formats", "Capacity unit
consumption for reads/writes", "Global secondary indexes: write capacity units", "Transactions:
capacity management"):

- Item size: the sum over attributes of the UTF-8 length of the name plus the value's size.
  String: UTF-8 bytes. Number: 1 byte per two significant digits, plus 1. Binary: raw bytes.
  Null and Boolean: 1 byte. List and Map: 3 bytes, plus each element's size plus 1 byte per
  element (a Map element's size includes its name). Sets: the sum of their elements' sizes.
- Reads: the size rounded up to 4 KB is one unit strongly consistent, half eventually
  consistent, two transactional. A read that finds nothing costs the minimum (one 4 KB block).
  GetItem and each key of a BatchGetItem are rounded up one by one; a Query (or Scan) sums the
  sizes of every item it *examined* (its ScannedCount: entries a FilterExpression then drops
  count) and rounds up once; on a GSI, the sizes are those of the index entries (table and index
  keys plus projected attributes). ProjectionExpression changes nothing.
- Writes: the larger of the item's size before and after the write, rounded up to 1 KB, is one
  unit (two in a transaction). DeleteItem: the deleted item's size. BatchWriteItem: each item on
  its own. A conditional write whose condition fails still costs the larger size (1 unit when
  there was no item). A transaction's ConditionCheck is a transactional read (two units per 4 KB).
- Global secondary indexes: a write that puts an entry into an index costs one write of the
  entry's size; one that removes an entry costs one write; one that changes the index key costs
  two (delete the old entry, put the new one); one that changes only projected attributes costs
  one; one that touches nothing the index holds costs nothing.

Where AWS documents nothing, this module chooses, and says so:
- Index writes caused by a transaction are counted as standard writes (the transaction's own
  prepare/commit doubling applies to the table items it names).
- A transaction cancelled by a failed condition or a conflict is charged its items' transactional
  units, without index writes (an upper bound; the prepare phase has read or written them).
- Index entries are sized without the 100 bytes of per-entry overhead AWS adds for *storage*.
- Other errors (validation, throttling) cost nothing.
- A Scan with a filter is charged for the items it returned (the stack never scans on a request
  path; sizing what a Scan examined is not implemented).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

READ_BLOCK = 4096
WRITE_BLOCK = 1024
DATA_PLANE = {"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems", "PutItem",
              "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}


# ---------------------------------------------------------------------------------- item sizes
def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def _binary(value: Any) -> int:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    return len(base64.b64decode(value))  # the wire form; DynamoDB counts the raw bytes


def number_size(text: str) -> int:
    """1 byte per two significant digits (leading and trailing zeros trimmed), plus 1."""
    digits = str(text).strip().lstrip("+-").lower()
    if "e" in digits:  # 1.5E+3: the mantissa carries the significant digits
        digits = digits.split("e")[0]
    digits = digits.replace(".", "").strip("0")
    return math.ceil(len(digits) / 2) + 1


def value_size(value: dict[str, Any]) -> int:
    """The size of one AttributeValue ({"S": ...}, {"N": ...}, {"L": [...]}, ...), name excluded."""
    (kind, raw), = value.items()
    if kind == "S":
        return _utf8(raw)
    if kind == "N":
        return number_size(raw)
    if kind == "B":
        return _binary(raw)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(_utf8(v) for v in raw)
    if kind == "NS":
        return sum(number_size(v) for v in raw)
    if kind == "BS":
        return sum(_binary(v) for v in raw)
    if kind == "L":
        return 3 + sum(value_size(v) + 1 for v in raw)
    if kind == "M":
        return 3 + sum(_utf8(k) + value_size(v) + 1 for k, v in raw.items())
    raise ValueError(f"not a DynamoDB attribute value: {value!r}")


def item_size(item: dict[str, dict[str, Any]] | None) -> int:
    if not item:
        return 0
    return sum(_utf8(name) + value_size(value) for name, value in item.items())


def read_units(size: int, *, consistent: bool = False, transactional: bool = False) -> float:
    blocks = max(1, math.ceil(size / READ_BLOCK))
    if transactional:
        return 2.0 * blocks
    return float(blocks) if consistent else blocks / 2


def write_units(size: int, *, transactional: bool = False) -> float:
    blocks = max(1, math.ceil(size / WRITE_BLOCK))
    return 2.0 * blocks if transactional else float(blocks)


# ------------------------------------------------------------------------------ table schemas
@dataclass(frozen=True)
class Index:
    name: str
    hash_key: str
    range_key: str | None
    projection: str = "ALL"  # ALL, KEYS_ONLY or INCLUDE
    non_key: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    name: str
    hash_key: str
    range_key: str | None = None
    indexes: tuple[Index, ...] = ()

    def key(self, item: dict[str, Any]) -> dict[str, Any]:
        names = [self.hash_key] + ([self.range_key] if self.range_key else [])
        return {n: item[n] for n in names if n in item}

    def index(self, name: str) -> Index:
        return next(i for i in self.indexes if i.name == name)


def _key_schema(schema: list[dict[str, str]]) -> tuple[str, str | None]:
    hash_key = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_key = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return hash_key, range_key


def table_schema(name: str, key_schema: list[dict[str, str]],
                 indexes: Iterable[dict[str, Any]] = ()) -> Table:
    """A Table from DynamoDB's description of it: its KeySchema and GlobalSecondaryIndexes (each
    with IndexName, KeySchema, Projection), as CreateTable takes and DescribeTable answers."""
    found = []
    for gsi in indexes:
        projection = gsi.get("Projection") or {}
        found.append(Index(gsi["IndexName"], *_key_schema(gsi["KeySchema"]),
                           projection.get("ProjectionType", "KEYS_ONLY"),
                           tuple(projection.get("NonKeyAttributes") or ())))
    return Table(name, *_key_schema(key_schema), tuple(found))


def index_entry(table: Table, index: Index, item: dict[str, Any] | None) -> dict[str, Any] | None:
    """The entry `item` has in `index` (None: the item lacks an index key, so it has none)."""
    if not item or index.hash_key not in item or (index.range_key and index.range_key not in item):
        return None
    if index.projection == "ALL":
        return dict(item)
    wanted = {table.hash_key, table.range_key, index.hash_key, index.range_key}
    if index.projection == "INCLUDE":
        wanted |= set(index.non_key)
    return {k: v for k, v in item.items() if k in wanted}


def _canonical(value: Any) -> Any:
    """An attribute value in a form equal values share (numbers by value, binary as bytes)."""
    if isinstance(value, dict) and len(value) == 1:
        (kind, raw), = value.items()
        if kind == "N":
            return ("N", Decimal(raw).normalize())
        if kind == "B":
            return ("B", bytes(raw) if isinstance(raw, (bytes, bytearray)) else base64.b64decode(raw))
        if kind in ("L",):
            return ("L", tuple(_canonical(v) for v in raw))
        if kind == "M":
            return ("M", tuple(sorted((k, _canonical(v)) for k, v in raw.items())))
        if kind in ("SS", "NS", "BS"):
            return (kind, frozenset(_canonical({kind[0]: v})[1] for v in raw))
        return (kind, raw)
    return value


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(_canonical(a[k]) == _canonical(b[k]) for k in a)


def index_writes(table: Table, old: dict[str, Any] | None, new: dict[str, Any] | None
                 ) -> dict[str, float]:
    """Write units each of the table's GSIs consumes when `old` becomes `new` (either may be
    None), by index name; indexes the write leaves alone are not named."""
    units: dict[str, float] = {}
    for index in table.indexes:
        before, after = index_entry(table, index, old), index_entry(table, index, new)
        if before is None and after is None:
            continue
        if before is None:
            spent = write_units(item_size(after))
        elif after is None:
            spent = write_units(item_size(before))
        elif not _same(index_key(index, before), index_key(index, after)):
            spent = write_units(item_size(before)) + write_units(item_size(after))
        elif not _same(before, after):
            spent = write_units(item_size(after))
        else:
            continue
        units[index.name] = spent
    return units


def index_write_units(table: Table, old: dict[str, Any] | None, new: dict[str, Any] | None
                      ) -> float:
    """Write units the table's GSIs consume when `old` becomes `new`, all indexes together."""
    return sum(index_writes(table, old, new).values())


def index_key(index: Index, entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in (index.hash_key, index.range_key) if k}


# ------------------------------------------------------------------------------ request units
Part = tuple[str, str | None, str]  # (table, index or None for the table itself, "read"|"write")


@dataclass
class Charge:
    """Request units of one call (or of many, added up): reads (of tables and indexes), table
    writes, and writes to global secondary indexes; `units` has them by table, index and kind."""

    read: float = 0.0
    write: float = 0.0
    index_write: float = 0.0
    examined: int = 0  # items (or index entries) read, for Query/Scan
    missed: float = 0.0  # of `read`: the units of GetItem/BatchGetItem keys that found nothing
    units: dict[Part, float] = field(default_factory=dict)

    def add(self, table: str, index: str | None, kind: str, units: float) -> None:
        if kind == "read":
            self.read += units
        elif index is None:
            self.write += units
        else:
            self.index_write += units
        self.units[(table, index, kind)] = self.units.get((table, index, kind), 0.0) + units

    def __iadd__(self, other: Charge) -> Charge:
        self.read += other.read
        self.write += other.write
        self.index_write += other.index_write
        self.examined += other.examined
        self.missed += other.missed
        for part, units in other.units.items():
            self.units[part] = self.units.get(part, 0.0) + units
        return self

    @property
    def total(self) -> float:
        return self.read + self.write + self.index_write


class Store(Protocol):
    """Where the items a request touched are read from (the emulator's backend, in process)."""

    def item(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None: ...

    def examined(self, params: dict[str, Any], response: dict[str, Any]
                 ) -> list[dict[str, Any]]: ...


def key_id(table: str, key: dict[str, Any]) -> str:
    return json.dumps([table, sorted((k, repr(_canonical(v))) for k, v in key.items())])


def touched_keys(operation: str, params: dict[str, Any], tables: dict[str, Table]
                 ) -> list[tuple[str, dict[str, Any]]]:
    """(table, key) of every item a write (or a transaction's check) touches: their state before
    the call is what the write is charged against."""
    def key_of(table: str, body: dict[str, Any]) -> dict[str, Any]:
        return tables[table].key(body["Item"]) if "Item" in body else body["Key"]

    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return [(params["TableName"], key_of(params["TableName"], params))]
    found = []
    if operation == "BatchWriteItem":
        for table, requests in params.get("RequestItems", {}).items():
            for request in requests:
                body = request.get("PutRequest") or request.get("DeleteRequest")
                found.append((table, key_of(table, body)))
    elif operation == "TransactWriteItems":
        for entry in params.get("TransactItems", []):
            (_, body), = entry.items()
            found.append((body["TableName"], key_of(body["TableName"], body)))
    return found


def _reads_whole_items(params: dict[str, Any]) -> bool:
    return not (params.get("FilterExpression") or params.get("ProjectionExpression")
                or params.get("AttributesToGet") or params.get("QueryFilter")
                or params.get("ScanFilter")
                or params.get("Select") in ("COUNT", "SPECIFIC_ATTRIBUTES"))


def _read_label(operation: str, params: dict[str, Any]) -> str:
    """What a read read: its operation, index and partition key's prefix."""
    def prefix(value: Any) -> str:
        text = next(iter(value.values()), "") if isinstance(value, dict) else ""
        return str(text).split("#", 1)[0]

    if operation == "GetItem":
        where = prefix(params.get("Key", {}).get("PK"))
    elif operation == "BatchGetItem":
        where = ",".join(sorted({prefix(k.get("PK")) for spec in params.get("RequestItems", {})
                                 .values() for k in spec.get("Keys", [])}))
    elif operation == "Query":
        where = prefix((params.get("ExpressionAttributeValues") or {}).get(":pk"))
    else:
        where = ""
    index = params.get("IndexName")
    return f"{operation} {where}" + (f" ({index})" if index else "")


read_ledger: Any = None  # told (table, what was read, units) of every read, like write_ledger


def charge(operation: str, params: dict[str, Any], response: dict[str, Any], *,
           before: dict[str, dict[str, Any] | None], store: Store, tables: dict[str, Table]
           ) -> Charge:
    result = _charge(operation, params, response, before=before, store=store, tables=tables)
    if read_ledger is not None and result.read:
        read_ledger(params.get("TableName") or ",".join(params.get("RequestItems", {})),
                    _read_label(operation, params), result.read)
    return result


def _charge(operation: str, params: dict[str, Any], response: dict[str, Any], *,
            before: dict[str, dict[str, Any] | None], store: Store, tables: dict[str, Table]
            ) -> Charge:
    """The units one call consumed. `before`: the touched items as they were before the call
    (by `key_id`), `response`: the parsed response (an error response for a failed call)."""
    error = (response.get("Error") or {}).get("Code")
    if error and error not in ("ConditionalCheckFailedException", "TransactionCanceledException"):
        return Charge()
    ok = error is None
    result = Charge()
    if operation == "GetItem":
        table = params["TableName"]
        item = response.get("Item") if _reads_whole_items(params) else \
            store.item(table, params["Key"])
        units = read_units(item_size(item), consistent=bool(params.get("ConsistentRead")))
        result.add(table, None, "read", units)
        result.missed = 0.0 if item else units
    elif operation == "BatchGetItem":
        left = response.get("UnprocessedKeys") or {}
        for table, spec in params.get("RequestItems", {}).items():
            skipped = {key_id(table, k) for k in (left.get(table) or {}).get("Keys", [])}
            for key in spec.get("Keys", []):
                if key_id(table, key) in skipped:
                    continue
                item = store.item(table, key)
                units = read_units(item_size(item), consistent=bool(spec.get("ConsistentRead")))
                result.add(table, None, "read", units)
                result.missed += 0.0 if item else units
    elif operation in ("Query", "Scan"):
        table = tables[params["TableName"]]
        if _reads_whole_items(params) or operation == "Scan":
            items = response.get("Items", [])  # a filtered Scan: what it returned (see above)
        else:
            items = store.examined(params, response)
        index_name = params.get("IndexName")
        if index_name:
            index = table.index(index_name)
            items = [index_entry(table, index, item) or item for item in items]
        result.examined = len(items)
        result.add(table.name, index_name, "read",
                   read_units(sum(item_size(i) for i in items),
                              consistent=bool(params.get("ConsistentRead"))))
    elif operation == "TransactGetItems":
        for entry in params.get("TransactItems", []):
            body = entry["Get"]
            result.add(body["TableName"], None, "read",
                       read_units(item_size(store.item(body["TableName"], body["Key"])),
                                  transactional=True))
    elif operation in ("PutItem", "UpdateItem", "DeleteItem"):
        table = params["TableName"]
        result += _write(operation.removesuffix("Item").capitalize(), table, params, ok=ok,
                         before=before, store=store, tables=tables, transactional=False)
    elif operation == "BatchWriteItem":
        left = response.get("UnprocessedItems") or {}
        for table, requests in params.get("RequestItems", {}).items():
            skipped = {json.dumps(r, sort_keys=True, default=repr) for r in left.get(table, [])}
            for request in requests:
                if json.dumps(request, sort_keys=True, default=repr) in skipped:
                    continue
                kind, body = ("Put", request["PutRequest"]) if "PutRequest" in request else \
                    ("Delete", request["DeleteRequest"])
                result += _write(kind, table, body, ok=True, before=before, store=store,
                                 tables=tables, transactional=False)
    elif operation == "TransactWriteItems":
        for entry in params.get("TransactItems", []):
            (kind, body), = entry.items()
            result += _write(kind, body["TableName"], body, ok=ok, before=before, store=store,
                             tables=tables, transactional=True)
    return result


# Who is told of each write's units: (table, the item's `type` or its key's prefix, units);
# `python -m bench breakdown` sets it to see where an activity's write units go.
write_ledger: Any = None


def _label(item: dict[str, Any] | None, key: dict[str, Any]) -> str:
    kind = (item or {}).get("type")
    if isinstance(kind, dict):
        kind = next(iter(kind.values()), None)
    if isinstance(kind, str):
        return kind
    pk = next(iter((key.get("PK") or {}).values()), "")
    return str(pk).split("#", 1)[0] or "?"


def _write(kind: str, table_name: str, body: dict[str, Any], *, ok: bool,
           before: dict[str, dict[str, Any] | None], store: Store, tables: dict[str, Table],
           transactional: bool) -> Charge:
    table = tables[table_name]
    key = table.key(body["Item"]) if kind == "Put" else body["Key"]
    old = before.get(key_id(table_name, key))
    result = Charge()
    if kind == "ConditionCheck":
        result.add(table_name, None, "read", read_units(item_size(old), transactional=True))
        return result
    if not ok:  # the condition failed (or the transaction was cancelled): nothing changed
        new = body["Item"] if kind == "Put" else old
        size = max(item_size(old), item_size(new)) if old else 0
        result.add(table_name, None, "write", write_units(size, transactional=transactional))
        return result
    if kind == "Put":
        new = body["Item"]
    elif kind == "Update":
        new = store.item(table_name, key)
    else:
        new = None
    units = write_units(max(item_size(old), item_size(new)), transactional=transactional)
    result.add(table_name, None, "write", units)
    indexed = index_writes(table, old, new)
    for index, index_units in indexed.items():
        result.add(table_name, index, "write", index_units)
    if write_ledger is not None:
        label = _label(new or old, key)
        write_ledger(table_name, f"{kind} {label}" + (" (tx)" if transactional else ""), units)
        for index, index_units in indexed.items():
            write_ledger(table_name, f"{kind} {label} -> {index}", index_units)
    return result


# ------------------------------------------------------------------ DynamoDB's answer, both ways
SINGLE_TABLE = {"GetItem", "Query", "Scan", "PutItem", "UpdateItem", "DeleteItem"}
READS = {"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"}


def requested_tables(operation: str, params: dict[str, Any]) -> list[str]:
    """The tables a call names, in the order it names them."""
    if operation in SINGLE_TABLE:
        return [params["TableName"]]
    if operation in ("BatchGetItem", "BatchWriteItem"):
        return list(params.get("RequestItems", {}))
    names: list[str] = []
    for entry in params.get("TransactItems", []):
        (_, body), = entry.items()
        if body["TableName"] not in names:
            names.append(body["TableName"])
    return names


def _capacity(read: float, write: float) -> dict[str, float]:
    found = {"CapacityUnits": read + write}
    if read:
        found["ReadCapacityUnits"] = read
    if write:
        found["WriteCapacityUnits"] = write
    return found


def consumed_capacity(operation: str, params: dict[str, Any], charged: Charge, mode: str
                      ) -> dict[str, Any] | list[dict[str, Any]]:
    """`ConsumedCapacity` as DynamoDB answers it (mode TOTAL or INDEXES): one object for a call
    on one table, a list of one per table for batches and transactions. Each has the table's
    total (CapacityUnits, and Read/WriteCapacityUnits); INDEXES adds the table's own share
    (`Table`) and each global secondary index's (`GlobalSecondaryIndexes`) that the call
    consumed on."""
    entries = []
    for table in requested_tables(operation, params):
        parts = {(index, kind): units for (name, index, kind), units in charged.units.items()
                 if name == table}
        read = sum(u for (_, kind), u in parts.items() if kind == "read")
        write = sum(u for (_, kind), u in parts.items() if kind == "write")
        entry: dict[str, Any] = {"TableName": table, **_capacity(read, write)}
        if mode == "INDEXES":
            entry["Table"] = _capacity(parts.get((None, "read"), 0.0),
                                       parts.get((None, "write"), 0.0))
            indexes = sorted({index for index, _ in parts if index is not None})
            if indexes:
                entry["GlobalSecondaryIndexes"] = {
                    index: _capacity(parts.get((index, "read"), 0.0),
                                     parts.get((index, "write"), 0.0)) for index in indexes}
        entries.append(entry)
    return entries[0] if operation in SINGLE_TABLE else entries


def reported(operation: str, params: dict[str, Any], parsed: dict[str, Any]) -> Charge:
    """The units a response reports (its ConsumedCapacity, TOTAL or INDEXES), as a Charge. With
    INDEXES the table's and each index's share are told apart; without Read/WriteCapacityUnits
    (older answers) the operation says which kind the units are. What DynamoDB does not report
    is derived from the call as DynamoDB's rules make it: `examined` is the ScannedCount;
    `missed`, of GetItem/BatchGetItem keys that found nothing, the minimum read each."""
    result = Charge()
    consumed = parsed.get("ConsumedCapacity")
    entries: list[dict[str, Any]] = [] if consumed is None else \
        consumed if isinstance(consumed, list) else [consumed]
    default_kind = "read" if operation in READS else "write"

    def split(capacity: dict[str, Any]) -> list[tuple[str, float]]:
        if "ReadCapacityUnits" in capacity or "WriteCapacityUnits" in capacity:
            return [("read", float(capacity.get("ReadCapacityUnits") or 0)),
                    ("write", float(capacity.get("WriteCapacityUnits") or 0))]
        return [(default_kind, float(capacity.get("CapacityUnits") or 0))]

    for entry in entries:
        table = entry.get("TableName", "")
        if "Table" in entry or "GlobalSecondaryIndexes" in entry:
            shares = [(None, entry.get("Table") or {})] + \
                list((entry.get("GlobalSecondaryIndexes") or {}).items())
        else:
            shares = [(None, entry)]
        for index, capacity in shares:
            for kind, units in split(capacity):
                if units:
                    result.add(table, index, kind, units)
    if operation in ("Query", "Scan"):
        result.examined = int(parsed.get("ScannedCount", 0))
    elif operation == "GetItem" and "Item" not in parsed and "Error" not in parsed:
        result.missed = read_units(0, consistent=bool(params.get("ConsistentRead")))
    elif operation == "BatchGetItem":
        left = parsed.get("UnprocessedKeys") or {}
        for table, spec in params.get("RequestItems", {}).items():
            asked = len(spec.get("Keys", [])) - len((left.get(table) or {}).get("Keys", []))
            found = len((parsed.get("Responses") or {}).get(table, []))
            result.missed += max(asked - found, 0) * read_units(
                0, consistent=bool(spec.get("ConsistentRead")))
    return result


def reported_units(parsed: dict[str, Any]) -> float:
    """CapacityUnits as the response reports them, all tables together."""
    consumed = parsed.get("ConsumedCapacity")
    if consumed is None:  # e.g. an error response
        return 0.0
    entries: Iterable[dict[str, Any]] = consumed if isinstance(consumed, list) else [consumed]
    return float(sum(e.get("CapacityUnits", 0) or 0 for e in entries))


# ---------------------------------------------------------------------------- the moto backend
class MotoStore:
    """Items as a moto DynamoDB backend holds them, read in process (the emulator's calls run
    in this process, so a read here costs microseconds and no request). `backend`: the backend,
    or a function returning it; `lock`: what the emulator holds while it applies a request, held
    here while items are read (local/emulator.py passes its own: `emulator.moto_store`)."""

    def __init__(self, backend: Any, lock: AbstractContextManager[Any] | None = None) -> None:
        self._backend = backend if callable(backend) else (lambda: backend)
        self._lock = lock if lock is not None else nullcontext()

    @staticmethod
    def _plain(value: Any) -> dict[str, Any]:
        kind, raw = value.type, value.value
        if kind == "L":
            return {"L": [MotoStore._plain(v) for v in raw]}
        if kind == "M":
            return {"M": {k: MotoStore._plain(v) for k, v in raw.items()}}
        return {kind: raw}

    def _attrs(self, item: Any) -> dict[str, Any]:
        return {name: self._plain(value) for name, value in item.attrs.items()}

    def tables(self) -> dict[str, Table]:
        """Every table of the backend, with its global secondary indexes and projections."""
        return {name: table_schema(name, table.schema,
                                   [{"IndexName": index.name, "KeySchema": index.schema,
                                     "Projection": index.projection}
                                    for index in table.global_indexes])
                for name, table in self._backend().tables.items()}

    def item(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        from moto.dynamodb.models.dynamo_type import DynamoType

        with self._lock:
            found = self._backend().tables.get(table)
            if found is None:
                return None
            hash_key = DynamoType(_wire(key[found.hash_key_attr]))
            range_key = DynamoType(_wire(key[found.range_key_attr])) \
                if found.range_key_attr else None
            item = found.get_item(hash_key, range_key)
            return self._attrs(item) if item is not None else None

    def items(self, table: str) -> list[dict[str, Any]]:
        """Every item of a table (what it stores: bench/storage.py sizes it)."""
        with self._lock:
            found = self._backend().tables.get(table)
            if found is None:
                return []
            return [self._attrs(item) for hashed in found.items.values()
                    for item in (hashed.values() if found.range_key_attr else (hashed,))]

    def examined(self, params: dict[str, Any], response: dict[str, Any]) -> list[dict[str, Any]]:
        """The items a Query examined: the same key condition, from the same start, without its
        filter or projection, as many as the response's ScannedCount."""
        scanned = int(response.get("ScannedCount", 0))
        if not scanned:
            return []
        if "KeyConditionExpression" not in params:
            raise ValueError("only Query with a KeyConditionExpression is sized from the emulator")
        from moto.dynamodb.parsing.key_condition_expression import parse_expression

        values = {k: _wire(v) for k, v in params.get("ExpressionAttributeValues", {}).items()}
        start = params.get("ExclusiveStartKey")
        with self._lock:
            backend = self._backend()
            name, index = params["TableName"], params.get("IndexName")
            hash_conditions, range_conditions, _ = parse_expression(
                key_condition_expression=params["KeyConditionExpression"],
                expression_attribute_values=values,
                expression_attribute_names=params.get("ExpressionAttributeNames", {}),
                schema=backend.get_schema(table_name=name, index_name=index))
            comparison, range_values = (range_conditions[-1][1], range_conditions[-1][2]) \
                if range_conditions else (None, [])
            items, _, _ = backend.query(
                name, hash_conditions[0][1], comparison, range_values, scanned,
                {k: _wire(v) for k, v in start.items()} if start else None,
                params.get("ScanIndexForward", True), None, index_name=index,
                hash_key_conditions=hash_conditions, range_key_conditions=range_conditions)
            return [self._attrs(item) for item in items]


def _wire(value: dict[str, Any]) -> dict[str, Any]:
    """An AttributeValue as botocore takes it (binary as bytes) in the JSON form moto keeps."""
    (kind, raw), = value.items()
    if kind == "B" and isinstance(raw, (bytes, bytearray)):
        return {"B": base64.b64encode(raw).decode()}
    if kind == "BS":
        return {"BS": [base64.b64encode(v).decode() if isinstance(v, (bytes, bytearray)) else v
                       for v in raw]}
    if kind == "L":
        return {"L": [_wire(v) for v in raw]}
    if kind == "M":
        return {"M": {k: _wire(v) for k, v in raw.items()}}
    return {kind: raw}


# ------------------------------------------------------------------------------ the boto3 hook
class Meter:
    """Reads what DynamoDB reports: `attach` makes every data call of a boto3 client ask for
    `ReturnConsumedCapacity="INDEXES"` (the request a measurement on AWS would send) and reports
    each answer to `report(operation, charge)` (`reported`). `before`/`after` are the same two
    steps for a caller that hooks botocore itself."""

    @staticmethod
    def before(operation: str, params: dict[str, Any]) -> dict[str, Any] | None:
        if operation not in DATA_PLANE:
            return None
        params["ReturnConsumedCapacity"] = "INDEXES"
        return params

    @staticmethod
    def after(operation: str, state: dict[str, Any], parsed: dict[str, Any]) -> Charge:
        return reported(operation, state, parsed)

    def attach(self, client: Any, report: Callable[[str, Charge], None]) -> None:
        def started(params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
                    ) -> None:
            state = self.before(model.name, params)
            if state is not None:
                context["stratus.capacity"] = state

        def ended(parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
            state = context.pop("stratus.capacity", None)
            if state is not None:
                report(model.name, self.after(model.name, state, parsed))

        client.meta.events.register("provide-client-params.dynamodb", started,
                                    unique_id="stratus-capacity-start")
        client.meta.events.register("after-call.dynamodb", ended,
                                    unique_id="stratus-capacity-end")

    @staticmethod
    def detach(client: Any) -> None:
        client.meta.events.unregister("provide-client-params.dynamodb",
                                      unique_id="stratus-capacity-start")
        client.meta.events.unregister("after-call.dynamodb", unique_id="stratus-capacity-end")
