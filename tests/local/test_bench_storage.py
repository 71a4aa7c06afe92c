"""The storage line of `python -m bench cost` (bench/storage.py): items and index entries sized
as DynamoDB bills storage, months of growth with lifetimes, the expiry of untouched remote
statuses, the bill; and busy mode's batches per stream shard (bench/busy.py) and groups
(bench/mix.py)."""

from __future__ import annotations

import pytest

from bench import busy, mix, storage
from local import capacity

GIB = 1024 ** 3


def test_items_and_their_index_entries_are_sized_with_100_bytes_each():
    schema = capacity.table_schema("t", [{"AttributeName": "PK", "KeyType": "HASH"}], [
        {"IndexName": "GSI1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}],
         "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    info = storage.TableInfo("MainTable", schema, "ttl", True)
    kept = {"PK": {"S": "STATUS#1"}, "text": {"S": "x" * 500}, "GSI1PK": {"S": "ASTAT#1"}}
    expiring = {"PK": {"S": "HOME#1"}, "ttl": {"N": str(1_000 + 30 * 86400)}}
    found = storage.sized([kept, expiring], info, now=1_000)
    assert found[("MainTable", 0)] == capacity.item_size(kept) + 100
    entry = {"PK": kept["PK"], "GSI1PK": kept["GSI1PK"]}  # keys only
    assert found[("MainTable/GSI1", 0)] == capacity.item_size(entry) + 100
    assert found[("MainTable", 30)] == capacity.item_size(expiring) + 100


def test_months_pile_kept_bytes_up_and_hold_expiring_ones_for_their_lifetime():
    monthly = {("MainTable", 0): 1_000.0, ("FeedTable", 30): 500.0, ("FeedTable", 7): 300.0}
    after = storage.held(monthly, 12)
    assert after["MainTable"] == 12_000
    assert after["FeedTable"] == pytest.approx(500 + 300 * 7 / 30)
    assert storage.held(monthly, 0.5)["FeedTable"] == pytest.approx(250 + 300 * 7 / 30)


def test_the_expiry_gives_the_untouched_share_of_kept_bytes_a_lifetime():
    remote = {("MainTable", 0): 1_000.0, ("FeedTable", 30): 200.0}
    found = storage.expiring(remote, 0.9, 30)
    assert found[("MainTable", 0)] == pytest.approx(100)
    assert found[("MainTable", 30)] == pytest.approx(900)
    assert found[("FeedTable", 30)] == 200
    assert storage.held(found, 12)["MainTable"] == pytest.approx(100 * 12 + 900)


def test_the_bill_prices_tables_indexes_backups_and_media():
    held = {"MainTable": 10 * GIB, "MainTable/GSI1": 2 * GIB, "FeedTable": 4 * GIB,
            storage.S3: 100 * GIB}
    bill = storage.bill(held, {"MainTable"})
    assert bill["DynamoDB storage"] == pytest.approx(16 * 0.25)
    # Point-in-time recovery backs up the table's data, not its global indexes.
    assert bill["DynamoDB point-in-time recovery"] == pytest.approx(10 * 0.20)
    assert bill["S3 storage (media)"] == pytest.approx(100 * 0.023)


def test_a_line_holds_the_accounts_from_the_first_month_and_grows_after():
    line = storage.line({("MainTable", 0): GIB}, {("MainTable", 0): 3 * GIB}, {"MainTable"})
    assert len(line.bills) == 12
    assert line.months[0]["MainTable"] == 4 * GIB and line.months[-1]["MainTable"] == 15 * GIB
    assert line.last["DynamoDB storage"] == pytest.approx(15 * 0.25)
    assert line.as_json()["gb_at_12_months"]["tables"] == pytest.approx(15)


def _record(pk: str, n: int) -> dict:
    return {"dynamodb": {"Keys": {"PK": {"S": pk}, "SK": {"S": str(n)}},
                         "SequenceNumber": str(n)}}


def test_stream_records_are_batched_per_shard_in_order():
    records = [_record(f"ACCT#{n % 7}", n) for n in range(250)]
    batches = busy.batches(records, shards=4, size=100)
    assert sum(len(b) for b in batches) == 250
    for batch in batches:
        assert len({busy.shard_of(r, 4) for r in batch}) == 1  # one shard a batch
        numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in batch]
        assert numbers == sorted(numbers)
    # An item's records always go to the same shard.
    assert busy.shard_of(_record("ACCT#3", 1), 4) == busy.shard_of(_record("ACCT#3", 9), 4)
    assert len(busy.batches(records, shards=1, size=100)) == 3


def test_busy_groups_send_k_requests_a_drain():
    kind = mix.Kind("POST /x", 1.0, 14, lambda x, i: 200)
    assert mix.groups(kind, 1) == [[i] for i in range(14)]
    assert mix.groups(kind, 10) == [list(range(10)), list(range(10, 20))]
    rare = mix.Kind("POST /y", 1.0, 2, lambda x, i: 200, busy=False)
    assert mix.groups(rare, 10) == [[0, 1]]
    assert mix.difference({("A", 0): 5.0, ("B", 0): 1.0}, {("A", 0): 2.0, ("C", 3): 4.0}) == {
        ("A", 0): 3.0, ("B", 0): 1.0, ("C", 3): -4.0}
