"""The small repository base: item (de)serialisation, reads, queries and transactions.

Transactions map DynamoDB's CancellationReasons back to the API error the caller attached to
each operation (`Op.on_conflict`), so e.g. a taken username surfaces as Mastodon's 422.

Every write is checked before it is sent (repo/item_size.py): an item over 400 KB, or a value
DynamoDB cannot store (NaN, an infinity, a number past its range), is refused as
`item_size.Unstorable`, a permanent failure, and so is DynamoDB's own ValidationException
saying the same — never a job retried until it is dead-lettered.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, DecimalException
from typing import Any

from stratus.core import parallel
from stratus.core.config import settings
from stratus.core.errors import ApiError, Busy
from stratus.core.paging import Budget
from stratus.repo import item_size
from stratus.repo import keys as keys_module
from stratus.repo.client import dynamodb

_serializer = None
_deserializer = None


def _types():
    global _serializer, _deserializer
    if _serializer is None:
        from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

        _serializer, _deserializer = TypeSerializer(), TypeDeserializer()
    return _serializer, _deserializer


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return {_plain(v) for v in value}
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return value


def _dynamo(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise item_size.Unstorable(f"{value} cannot be stored")
        return Decimal(str(value))
    if isinstance(value, Decimal) and not value.is_finite():
        raise item_size.Unstorable(f"{value} cannot be stored")
    if isinstance(value, dict):
        return {k: _dynamo(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dynamo(v) for v in value]
    return value


def serialize(item: dict[str, Any], *, nulls: bool = False) -> dict[str, Any]:
    """An item (or, with `nulls`, expression values, None included) in DynamoDB's form."""
    ser, _ = _types()
    try:
        return {k: ser.serialize(_dynamo(v)) for k, v in item.items()
                if nulls or v is not None}
    except DecimalException as exc:  # past 38 digits, or outside 1e-130..1e126
        raise item_size.Unstorable(f"a number DynamoDB cannot store: {exc!r}") from None


def deserialize(raw: dict[str, Any]) -> dict[str, Any]:
    _, de = _types()
    return {k: _plain(de.deserialize(v)) for k, v in raw.items()}


def values(mapping: dict[str, Any]) -> dict[str, Any]:
    return serialize(mapping, nulls=True)


def table() -> str:
    return settings().main_table


def now_epoch() -> int:
    return int(time.time())


def record(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """An item as a record for the code outside repo/: without its storage keys."""
    if item is None:
        return None
    return {name: value for name, value in item.items()
            if name not in keys_module.KEY_ATTRIBUTES}


def records(items: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """`record` of each item, as they come (a query is read lazily)."""
    for item in items:
        yield record(item)  # type: ignore[misc]


def live(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """TTL deletes are late: treat an expired item as absent."""
    if item is None:
        return None
    expires = item.get("ttl")
    if expires is not None and int(expires) <= now_epoch():
        return None
    return item


def get(key: dict[str, str], *, consistent: bool = False, table_name: str | None = None
        ) -> dict[str, Any] | None:
    response = dynamodb().get_item(TableName=table_name or table(), Key=serialize(key),
                                   ConsistentRead=consistent)
    raw = response.get("Item")
    return live(deserialize(raw)) if raw else None


def put(item: dict[str, Any], *, condition: str | None = None,
        names: dict[str, str] | None = None, vals: dict[str, Any] | None = None,
        table_name: str | None = None) -> bool:
    """Put an item; with a condition, returns False instead of raising when it fails."""
    item_size.check(item)
    kwargs: dict[str, Any] = {"TableName": table_name or table(), "Item": serialize(item)}
    if condition:
        kwargs["ConditionExpression"] = condition
    if names:
        kwargs["ExpressionAttributeNames"] = names
    if vals:
        kwargs["ExpressionAttributeValues"] = values(vals)
    try:
        dynamodb().put_item(**kwargs)
    except dynamodb().exceptions.ConditionalCheckFailedException:
        return False
    except dynamodb().exceptions.ClientError as exc:
        item_size.raise_refused(exc)
        raise
    return True


def delete(key: dict[str, str], *, table_name: str | None = None, returning: bool = False
           ) -> dict[str, Any] | None:
    """Delete an item; with `returning`, the item as it was (None if there was none)."""
    response = dynamodb().delete_item(TableName=table_name or table(), Key=serialize(key),
                                      ReturnValues="ALL_OLD" if returning else "NONE")
    raw = response.get("Attributes")
    return deserialize(raw) if raw else None


def update(key: dict[str, str], expression: str, *, names: dict[str, str] | None = None,
           vals: dict[str, Any] | None = None, condition: str | None = None,
           table_name: str | None = None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "TableName": table_name or table(), "Key": serialize(key),
        "UpdateExpression": expression, "ReturnValues": "ALL_NEW",
    }
    if names:
        kwargs["ExpressionAttributeNames"] = names
    if vals:
        item_size.check_values(vals)
        kwargs["ExpressionAttributeValues"] = values(vals)
    if condition:
        kwargs["ConditionExpression"] = condition
    try:
        return deserialize(dynamodb().update_item(**kwargs)["Attributes"])
    except dynamodb().exceptions.ClientError as exc:
        item_size.raise_refused(exc)
        raise


Filter = tuple[str, dict[str, str], dict[str, Any]]  # expression, names, values


def query(pk: str, *, sk_between: tuple[str, str] | None = None, sk_prefix: str | None = None,
          index: str | None = None, descending: bool = False, limit: int | None = None,
          projection: str | None = None, table_name: str | None = None,
          filter: Filter | None = None, budget: Budget | None = None, step: int = 100
          ) -> Iterator[dict[str, Any]]:
    """Yield live items of one partition in sort order, following pages as needed.

    `filter` is applied by DynamoDB (after Limit: an empty page may still have more). With a
    `budget`, at most `budget.entries` items are examined in all (filtered-out ones count),
    reading `step` items at first and twice as many each further call; the budget records how
    far reading got, so a listing can continue from there."""
    pk_attr, sk_attr = ("PK", "SK") if index is None else (f"{index}PK", f"{index}SK")
    names = {"#pk": pk_attr}
    vals: dict[str, Any] = {":pk": pk}
    condition = "#pk = :pk"
    if sk_between is not None:
        names["#sk"] = sk_attr
        vals[":lo"], vals[":hi"] = sk_between
        condition += " AND #sk BETWEEN :lo AND :hi"
    elif sk_prefix is not None:
        names["#sk"] = sk_attr
        vals[":prefix"] = sk_prefix
        condition += " AND begins_with(#sk, :prefix)"
    kwargs: dict[str, Any] = {
        "TableName": table_name or table(), "KeyConditionExpression": condition,
        "ScanIndexForward": not descending,
    }
    if filter is not None:
        expression, filter_names, filter_vals = filter
        kwargs["FilterExpression"] = expression
        names.update(filter_names)
        vals.update(filter_vals)
    kwargs["ExpressionAttributeNames"] = names
    kwargs["ExpressionAttributeValues"] = values(vals)
    if index is not None:
        kwargs["IndexName"] = index
    if projection:
        kwargs["ProjectionExpression"] = projection
    yielded = 0
    while True:
        wanted = None if limit is None else max(limit - yielded, 1)
        if budget is not None:
            if budget.spent:
                return
            wanted = min(wanted or step, budget.left(), step)
            step *= 2
        if wanted is not None:
            kwargs["Limit"] = wanted
        page = dynamodb().query(**kwargs)
        last_key = page.get("LastEvaluatedKey")
        if budget is not None:
            budget.examined += page.get("ScannedCount", 0)
            if last_key:
                budget.last_id = keys_module.id_from_sk(deserialize(last_key)[sk_attr])
        for raw in page.get("Items", []):
            item = live(deserialize(raw))
            if item is None:
                continue
            yield item
            yielded += 1
            if limit is not None and yielded >= limit:
                return
        if not last_key:
            return
        kwargs["ExclusiveStartKey"] = last_key


def batch_get(keys: Sequence[dict[str, str]], *, table_name: str | None = None,
              consistent: bool = False) -> list[dict[str, Any]]:
    """Fetch many items in as few round trips as DynamoDB allows (100 keys per call);
    `consistent` for reads that decide a write (strongly consistent, twice the read cost)."""
    name = table_name or table()
    unique = list({(k["PK"], k["SK"]): k for k in keys}.values())

    def chunk(start: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        request = {name: {"Keys": [serialize(k) for k in unique[start:start + 100]],
                          **({"ConsistentRead": True} if consistent else {})}}
        while request:
            response = dynamodb().batch_get_item(RequestItems=request)
            for raw in response.get("Responses", {}).get(name, []):
                item = live(deserialize(raw))
                if item is not None:
                    found.append(item)
            request = response.get("UnprocessedKeys") or {}
        return found

    # The chunks at once: one round trip of wall time for any number of keys.
    return [item for part in parallel.gather(*[lambda s=s: chunk(s)
                                              for s in range(0, len(unique), 100)])
            for item in part]


def write_many(*, puts: Sequence[dict[str, Any]] = (), deletes: Sequence[dict[str, str]] = (),
               table_name: str | None = None) -> None:
    """Put and delete items in batches of 25 (BatchWriteItem), retrying what DynamoDB left
    over. Not atomic: each write stands alone (use it for idempotent writes)."""
    name = table_name or table()
    for item in puts:
        item_size.check(item)
    requests = [{"PutRequest": {"Item": serialize(item)}}
                for item in {(i["PK"], i["SK"]): i for i in puts}.values()]
    requests += [{"DeleteRequest": {"Key": serialize(k)}}
                 for k in {(k["PK"], k["SK"]): k for k in deletes}.values()]
    for start in range(0, len(requests), 25):
        request = {name: requests[start:start + 25]}
        for attempt in range(8):
            left = dynamodb().batch_write_item(RequestItems=request).get("UnprocessedItems")
            if not left:
                break
            request = left
            _backoff(attempt)
        else:
            raise RuntimeError(f"DynamoDB left {len(request[name])} writes unprocessed")


def delete_many(item_keys: Sequence[dict[str, str]], *, table_name: str | None = None) -> None:
    write_many(deletes=item_keys, table_name=table_name)


@dataclass
class Op:
    """One operation of a transaction: kind is Put, Update, Delete or ConditionCheck."""

    kind: str
    key: dict[str, str] | None = None
    item: dict[str, Any] | None = None
    expression: str | None = None
    condition: str | None = None
    names: dict[str, str] = field(default_factory=dict)
    vals: dict[str, Any] = field(default_factory=dict)
    on_conflict: ApiError | None = None
    table_name: str | None = None

    def with_vals(self, extra: dict[str, Any]) -> Op:
        self.vals = {**self.vals, **extra}
        return self

    def render(self) -> dict[str, Any]:
        body: dict[str, Any] = {"TableName": self.table_name or table()}
        if self.kind == "Put":
            item_size.check(self.item or {})
            body["Item"] = serialize(self.item or {})
        else:
            item_size.check_values(self.vals)
            body["Key"] = serialize(self.key or {})
        if self.kind == "Update":
            body["UpdateExpression"] = self.expression
        if self.condition:
            body["ConditionExpression"] = self.condition
        if self.names:
            body["ExpressionAttributeNames"] = self.names
        if self.vals:
            body["ExpressionAttributeValues"] = values(self.vals)
        return {self.kind: body}


def set_op(key: dict[str, str], changes: dict[str, Any], remove: tuple[str, ...] = (),
           condition: str | None = "attribute_exists(PK)") -> Op:
    """An Update that sets `changes` (a None value removes the attribute)."""
    names: dict[str, str] = {}
    vals: dict[str, Any] = {}
    sets: list[str] = []
    removals: list[str] = []
    for i, (name, value) in enumerate(changes.items()):
        names[f"#a{i}"] = name
        if value is None:
            removals.append(f"#a{i}")
        else:
            vals[f":v{i}"] = value
            sets.append(f"#a{i} = :v{i}")
    for j, name in enumerate(remove):
        names[f"#r{j}"] = name
        removals.append(f"#r{j}")
    expression = ("SET " + ", ".join(sets) if sets else "") + \
        (" REMOVE " + ", ".join(removals) if removals else "")
    return Op("Update", key=key, expression=expression.strip(), names=names, vals=vals,
              condition=condition)


def put_new(item: dict[str, Any], on_conflict: ApiError | None = None) -> Op:
    return Op("Put", item=item, condition="attribute_not_exists(PK)", on_conflict=on_conflict)


class ConditionFailed(Exception):
    """A condition of a transaction failed and no API error was attached to that operation.
    `failed` holds the indexes of the operations whose condition failed."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(", ".join(reasons))
        self.reasons = reasons
        self.failed = [i for i, reason in enumerate(reasons) if reason == "ConditionalCheckFailed"]


# Concurrent transactions on one item cancel each other (`ConditionFailed`); DynamoDB's
# advice is to retry with jittered backoff. After that the caller gets a retryable 429.
CONFLICT_ATTEMPTS = 6
CONFLICT_BASE_DELAY = 0.02
CONFLICT_MAX_DELAY = 0.5


def _backoff(attempt: int) -> None:
    time.sleep(random.uniform(0, min(CONFLICT_MAX_DELAY, CONFLICT_BASE_DELAY * 2 ** attempt)))


# What DynamoDB answers when a partition takes more than it can (after botocore's own retries).
THROTTLED = ("ThrottlingException", "ProvisionedThroughputExceededException",
             "RequestLimitExceeded")


def _is_conflict(reasons: list[str]) -> bool:
    return ("TransactionConflict" in reasons or "ThrottlingError" in reasons) and \
        "ConditionalCheckFailed" not in reasons


def transact(ops: Sequence[Op], *, token: str | None = None,
             attempts: int = CONFLICT_ATTEMPTS) -> None:
    """Write `ops` atomically. A failed condition raises the API error attached to its op
    (`Op.on_conflict`) or `ConditionFailed`; conflicts with concurrent transactions (and
    throttled items) are retried with jitter, `attempts` times in all, then surface as `Busy`
    (429), never as a server error."""
    kwargs: dict[str, Any] = {"TransactItems": [op.render() for op in ops]}
    if token:
        kwargs["ClientRequestToken"] = token
    client = dynamodb()
    for attempt in range(attempts):
        try:
            client.transact_write_items(**kwargs)
            return
        except client.exceptions.TransactionCanceledException as exc:
            reasons = [r.get("Code", "None") or "None"
                       for r in exc.response.get("CancellationReasons", [])]
            if _is_conflict(reasons):
                if attempt + 1 < attempts:
                    _backoff(attempt)
                    continue
                raise Busy() from exc
            item_size.raise_refused(exc)
            for op, reason in zip(ops, reasons):
                if reason == "ConditionalCheckFailed" and op.on_conflict is not None:
                    raise op.on_conflict from exc
            if "ConditionalCheckFailed" in reasons:
                raise ConditionFailed(reasons) from exc
            raise
        except client.exceptions.ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in THROTTLED:
                raise Busy() from exc
            item_size.raise_refused(exc)
            raise
