"""The storage line of `python -m bench cost`: what the stack's tables and bucket hold after
12 months, and their bill, with and without the expiry of remote statuses no local account
touched.

**Measured** (`scan`): the items of every table as the in-process emulator holds them, sized as
DynamoDB bills storage: each item's size (local/capacity.py's rules) plus 100 bytes of
overhead, and each global secondary index entry likewise (its keys and projected attributes,
plus 100 bytes), by store (`<Table>` or `<Table>/<Index>`) and lifetime: an item with a
time-to-live attribute lives until it, counted in days (0: kept). bench/mix.py brackets each
writing kind's requests by two scans: the bytes a request of the kind stores. S3 holds what
PutObject puts (the media and their thumbnails: costs.Recorder counts the bytes).

**Modelled** (`line`): month by month, each kind's requests a month (the profile's counts)
store their bytes; an item with a lifetime is held that long, the others are kept. From the
first month the instance holds its accounts: `mau` local accounts and the remote accounts
followed, each the bytes one takes (measured on a sign-up and on a remote actor stored).
The expiry of untouched remote statuses (`expire_days`, a parameter: not in the runtime yet)
gives what a remote status stores that no local account touched (the profile's
`touched_share`) that lifetime instead of none. Billed at $0.25 per GB-month (tables and
indexes), point-in-time recovery $0.20 per GB-month of the tables that enable it (table data:
indexes are not backed up), S3 Standard $0.023 per GB-month.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from local import capacity, cfn

ITEM_OVERHEAD = 100  # bytes DynamoDB adds to each item and each index entry it stores
GIB = 1024 ** 3
PRICES = {"dynamodb_gb_month": 0.25, "pitr_gb_month": 0.20, "s3_gb_month": 0.023}
MONTHS = 12
DAYS = 30

Stored = dict[tuple[str, int], float]  # (store, lifetime in days; 0: kept) -> bytes
S3 = "S3"  # the store of the media bucket's objects


@dataclass(frozen=True)
class TableInfo:
    logical: str
    schema: capacity.Table
    ttl: str | None  # the time-to-live attribute
    pitr: bool


def tables(stack: Any) -> dict[str, TableInfo]:
    """By physical name: each table of the template with its keys, indexes, TTL and PITR."""
    found = {}
    for logical, name in stack.table_names.items():
        props = stack.template["Resources"][logical].get("Properties", {})
        ttl = props.get("TimeToLiveSpecification") or {}
        schema = capacity.table_schema(name, props["KeySchema"],
                                       props.get("GlobalSecondaryIndexes") or [])
        found[name] = TableInfo(
            logical, schema, ttl.get("AttributeName") if ttl.get("Enabled") else None,
            bool((props.get("PointInTimeRecoverySpecification") or {})
                 .get("PointInTimeRecoveryEnabled")))
    return found


def lifetime_days(item: dict[str, Any], ttl: str | None, now: float) -> int:
    """Days an item is kept (0: no time to live); at least 1 for one that has one."""
    if not ttl or ttl not in item or "N" not in item[ttl]:
        return 0
    return max(1, math.ceil((float(item[ttl]["N"]) - now) / 86400))


def sized(items: Iterable[dict[str, Any]], info: TableInfo, now: float) -> Stored:
    """The bytes of these items of one table and of their index entries, as DynamoDB bills."""
    found: Stored = {}
    for item in items:
        days = lifetime_days(item, info.ttl, now)
        key = (info.logical, days)
        found[key] = found.get(key, 0.0) + capacity.item_size(item) + ITEM_OVERHEAD
        for index in info.schema.indexes:
            entry = capacity.index_entry(info.schema, index, item)
            if entry is not None:
                key = (f"{info.logical}/{index.name}", days)
                found[key] = found.get(key, 0.0) + capacity.item_size(entry) + ITEM_OVERHEAD
    return found


def scan(stack: Any, now: float | None = None) -> Stored:
    """Everything the in-process emulator's tables hold now (module docstring)."""
    import time

    from moto.dynamodb.models import dynamodb_backends

    from local import emulator

    now = time.time() if now is None else now
    store = emulator.moto_store(lambda: dynamodb_backends[cfn.ACCOUNT][cfn.REGION])
    found: Stored = {}
    for name, info in tables(stack).items():
        for key, size in sized(store.items(name), info, now).items():
            found[key] = found.get(key, 0.0) + size
    found[(S3, 0)] = bucket_bytes(stack)
    return found


def bucket_bytes(stack: Any) -> float:
    """The bytes the stack's buckets hold in the in-process emulator (S3 bills each object's
    size; versions are not kept)."""
    from moto.s3.models import s3_backends

    names = set(stack.bucket_names.values())  # read between drains: nothing writes meanwhile
    buckets = s3_backends[cfn.ACCOUNT]["aws"].buckets
    return float(sum(key.size for name, bucket in list(buckets.items()) if name in names
                     for key in list(bucket.keys.values()) if hasattr(key, "size")))


def held(stored: Stored, months: float) -> dict[str, float]:
    """Bytes held after `months` of storing `stored` a month, by store: kept bytes pile up,
    bytes with a lifetime are held for that long at most."""
    found: dict[str, float] = {}
    for (store, days), size in stored.items():
        span = months if days == 0 else min(months, days / DAYS)
        found[store] = found.get(store, 0.0) + size * span
    return found


def expiring(stored: Stored, share: float, days: int) -> Stored:
    """`stored` with `share` of its kept bytes given a lifetime of `days`."""
    found: Stored = {}
    for (store, life), size in stored.items():
        if life == 0 and share > 0:
            found[(store, days)] = found.get((store, days), 0.0) + size * share
            size *= 1 - share
        found[(store, life)] = found.get((store, life), 0.0) + size
    return found


def bill(stores: dict[str, float], pitr: set[str]) -> dict[str, float]:
    """A month's storage dollars of what is held (`stores`: bytes by store, the bucket's under
    `S3`; `pitr`: the tables backed up continuously)."""
    dynamodb = sum(max(v, 0.0) for k, v in stores.items() if k != S3)
    backed = sum(max(v, 0.0) for k, v in stores.items() if k in pitr)
    return {"DynamoDB storage": dynamodb / GIB * PRICES["dynamodb_gb_month"],
            "DynamoDB point-in-time recovery": backed / GIB * PRICES["pitr_gb_month"],
            "S3 storage (media)": max(stores.get(S3, 0.0), 0.0) / GIB * PRICES["s3_gb_month"]}


@dataclass(frozen=True)
class Line:
    """Month by month: what is held (bytes by store, at the end of each month) and its bill."""

    months: list[dict[str, float]]
    bills: list[dict[str, float]]

    @property
    def last(self) -> dict[str, float]:
        return self.bills[-1]

    def as_json(self) -> dict[str, Any]:
        final = self.months[-1]
        tables_gb = sum(v for k, v in final.items() if "/" not in k and k != S3) / GIB
        indexes_gb = sum(v for k, v in final.items() if "/" in k) / GIB
        return {"gb_at_12_months": {"tables": round(tables_gb, 3),
                                    "indexes": round(indexes_gb, 3),
                                    "s3": round(final.get(S3, 0.0) / GIB, 3)},
                "by_store_gb": {k: round(v / GIB, 4) for k, v in sorted(final.items())},
                "month_12": {k: round(v, 4) for k, v in self.last.items()},
                "per_month": [round(sum(b.values()), 4) for b in self.bills]}


def line(monthly: Stored, accounts: Stored, pitr: set[str], months: int = MONTHS) -> Line:
    """`months` of an instance that stores `monthly` a month and holds `accounts` from the
    start (module docstring)."""
    held_months, bills = [], []
    for m in range(1, months + 1):
        stores = held(monthly, m)
        for store, size in held(accounts, 1).items():
            stores[store] = stores.get(store, 0.0) + size
        held_months.append(stores)
        bills.append(bill(stores, pitr))
    return Line(held_months, bills)
