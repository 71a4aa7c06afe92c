"""The partition arithmetic of `python -m bench scale` (bench/scale.py): which
partitions of a table and its global secondary indexes a call's units land on, demand scaled to
a rate (shared partitions only), DynamoDB's limits and the lag they make, the transaction
conflict rule the recorder applies on the client, and the fan-out queue simulation."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from bench import scale as bench_scale
from local import capacity
from bench.scale import (
    Costs,
    Demand,
    Partition,
    SimJob,
    Use,
    demand,
    partition_uses,
    simulate,
)
from local.capacity import Index, Table

TABLE = Table("main-physical", "PK", "SK", (
    Index("GSI1", "GSI1PK", "GSI1SK", "INCLUDE", ("type",)),
    Index("GSI2", "GSI2PK", "GSI2SK", "KEYS_ONLY"),
))
TABLES = {"main-physical": TABLE}
LOGICAL = {"main-physical": "MainTable"}


def s(value: str) -> dict:
    return {"S": value}


def item(pk: str, sk: str, size: int = 0, **extra: str) -> dict:
    found = {"PK": s(pk), "SK": s(sk), **{k: s(v) for k, v in extra.items()}}
    if size:
        found["pad"] = s("x" * (size - capacity.item_size(found) - 3))
    return found


class Store:
    def __init__(self, *items: dict) -> None:
        self.items = {capacity.key_id("main-physical", TABLE.key(i)): i for i in items}

    def item(self, table, key):
        return self.items.get(capacity.key_id(table, key))

    def examined(self, params, response):
        return response.get("Items", [])


def uses(operation: str, params: dict, response: dict | None = None, *, old=(), new=()):
    before = {capacity.key_id("main-physical", TABLE.key(i)): i for i in old}
    return partition_uses(operation, {"TableName": "main-physical", **params}, response or {},
                          before=before, store=Store(*new), tables=TABLES, logical=LOGICAL)


def by_partition(found: list[Use]) -> dict[str, tuple[float, float]]:
    totals: dict[str, list[float]] = {}
    for use in found:
        entry = totals.setdefault(use.partition.label(), [0.0, 0.0])
        entry[0] += use.read
        entry[1] += use.write
    return {k: (r, w) for k, (r, w) in totals.items()}


# --- which partitions a call's units land on ----------------------------------------------------
def test_a_put_charges_its_table_partition_and_each_index_partition_it_enters():
    like = item("ACCT#1", "FAV#9", GSI1PK="FAVBY#9", GSI1SK="1", GSI2PK="FAVS#1", GSI2SK="1",
                type="favourite")
    assert by_partition(uses("PutItem", {"Item": like}, new=[like])) == {
        "MainTable ACCT#1": (0, 1.0), "MainTable.GSI1 FAVBY#9": (0, 1.0),
        "MainTable.GSI2 FAVS#1": (0, 1.0)}


def test_a_transaction_doubles_table_writes_not_index_writes():
    like = item("ACCT#1", "FAV#9", 1500, GSI1PK="FAVBY#9", GSI1SK="1")
    stats = item("STATUS#9", "STATS", 100)
    params = {"TransactItems": [
        {"Put": {"TableName": "main-physical", "Item": like}},
        {"Update": {"TableName": "main-physical", "Key": TABLE.key(stats)}},
        {"ConditionCheck": {"TableName": "main-physical", "Key": {"PK": s("ACCT#2"),
                                                                   "SK": s("PROFILE")}}}]}
    found = by_partition(uses("TransactWriteItems", params, old=[stats], new=[like, stats]))
    assert found["MainTable ACCT#1"] == (0, 4.0)  # 1.5 KB: 2 blocks, transactional
    assert found["MainTable STATUS#9"] == (0, 2.0)
    assert found["MainTable ACCT#2"] == (2.0, 0)  # a condition check: a transactional read
    # The index entry of the like is only its keys, `type` and the table's keys: one unit.
    assert found["MainTable.GSI1 FAVBY#9"] == (0, 1.0)


def test_an_update_that_moves_an_index_key_charges_both_index_partitions():
    old = item("ACCT#1", "DIRECTORY", GSI2PK="DIRACTIVE#REMOTE", GSI2SK="2026-01-01#1")
    new = item("ACCT#1", "DIRECTORY", GSI2PK="DIRACTIVE#REMOTE#3", GSI2SK="2026-02-01#1")
    found = by_partition(uses("UpdateItem", {"Key": TABLE.key(old)}, old=[old], new=[new]))
    assert found == {"MainTable ACCT#1": (0, 1.0),
                     "MainTable.GSI2 DIRACTIVE#REMOTE": (0, 1.0),  # the old entry leaves
                     "MainTable.GSI2 DIRACTIVE#REMOTE#3": (0, 1.0)}  # the new one enters


def test_a_cancelled_transaction_charges_its_items_and_no_index():
    peer = item("PEERS", "burst.example", GSI1PK="X", GSI1SK="1")
    params = {"TransactItems": [{"Put": {"TableName": "main-physical", "Item": peer}}]}
    response = {"Error": {"Code": "TransactionCanceledException"},
                "CancellationReasons": [{"Code": "TransactionConflict"}]}
    assert by_partition(uses("TransactWriteItems", params, response, old=[peer], new=[peer])) \
        == {"MainTable PEERS": (0, 2.0)}


def test_reads_land_on_the_partitions_they_name():
    page = [item("X", str(i), 400, GSI1PK="FOLLOWERS#7", GSI1SK=str(i), type="follow")
            for i in range(30)]
    query = {"IndexName": "GSI1", "KeyConditionExpression": "#pk = :pk AND #sk BETWEEN :a AND :b",
             "ExpressionAttributeNames": {"#pk": "GSI1PK", "#sk": "GSI1SK"},
             "ExpressionAttributeValues": {":pk": s("FOLLOWERS#7"), ":a": s("0"), ":b": s("~")}}
    [use] = uses("Query", query, {"Items": page, "ScannedCount": 30})
    assert use.partition == Partition("MainTable", "GSI1", "FOLLOWERS#7")
    entry = sum(capacity.item_size(capacity.index_entry(TABLE, TABLE.indexes[0], i))
                for i in page)
    assert use.read == capacity.read_units(entry)  # the index entries' size, not the items'
    stored = [item("ACCT#1", "PROFILE", 5000), item("ACCT#1", "STATS")]
    params = {"RequestItems": {"main-physical": {"Keys": [TABLE.key(i) for i in stored] +
                                                 [{"PK": s("ACCT#2"), "SK": s("USER")}]}}}
    assert by_partition(partition_uses("BatchGetItem", params, {}, before={},
                                       store=Store(*stored), tables=TABLES,
                                       logical=LOGICAL)) == {
        "MainTable ACCT#1": (1.0 + 0.5, 0), "MainTable ACCT#2": (0.5, 0)}  # a miss still costs


def test_errors_other_than_refusals_cost_nothing():
    assert uses("PutItem", {"Item": item("A", "B")}, {"Error": {"Code": "ThrottlingException"}},
                new=[item("A", "B")]) == []


# --- demand, limits, lag --------------------------------------------------------------------------
P_SHARED = Partition("MainTable", "", "NOTIF#1")
P_OWN_A = Partition("MainTable", "", "ACCT#a")
P_OWN_B = Partition("MainTable", "", "ACCT#b")


def test_shared_partitions_scale_with_the_rate_and_a_unit_of_works_own_do_not():
    sample = [Use(P_SHARED, write=4.0, half=0), Use(P_SHARED, write=4.0, half=1),
              Use(P_OWN_A, write=3.0, half=0), Use(P_OWN_B, write=3.0, half=1)]
    found = {d.partition: d for d in demand(sample, units=2, rate=250)}
    assert found[P_SHARED].wcu == 4.0 * 250 and found[P_SHARED].shared  # 4 units a like
    assert found[P_OWN_A].wcu == 3.0 and not found[P_OWN_A].shared
    assert [d.partition for d in demand(sample, units=2, rate=250)][0] == P_SHARED


@pytest.mark.parametrize("wcu,rcu,throttled,lag", [
    (1000, 3000, False, 0.0),        # at the limits: served
    (1500, 0, True, 30.0),           # 500 over for 60 s, taken at 1,000 a second: 30 s
    (0, 6000, True, 60.0),           # 3,000 over for 60 s at 3,000 a second: 60 s
])
def test_limits_and_lag(wcu, rcu, throttled, lag):
    found = Demand(P_SHARED, rcu=rcu, wcu=wcu)
    assert found.throttled() is throttled
    assert found.lag_seconds(60) == lag


def test_headroom_is_how_far_the_rate_may_grow():
    assert Demand(P_SHARED, rcu=1500, wcu=250).headroom() == 2.0
    assert Demand(P_SHARED, rcu=0, wcu=2000).headroom() == 0.5


def test_the_summary_names_throttled_partitions_and_the_worst_lag():
    demands = [Demand(P_SHARED, rcu=0, wcu=2000), Demand(P_OWN_A, rcu=100, wcu=10)]
    found = bench_scale.summary(demands, seconds=10, conflicts=3)
    assert found["throttled_partitions"] == ["MainTable NOTIF#1"]
    assert found["max_partition_wcu"] == 2000 and found["max_partition_rcu"] == 100
    assert found["conflicts"] == 3 and found["lag_seconds"] == 10.0


# --- the conflict rule ---------------------------------------------------------------------------
def recorder() -> bench_scale.Recorder:
    return bench_scale.Recorder(TABLES, Store(), LOGICAL, conflicts_on=True)


def call(rec, operation: str, params: dict) -> tuple[dict, object]:
    model = SimpleNamespace(name=operation)
    context: dict = {}
    rec._started(params={"TableName": "main-physical", **params}, model=model,
                 context=context)
    return context, rec._before_call(model=model, context=context)


def test_a_transaction_on_an_item_another_transaction_holds_is_cancelled():
    rec = recorder()
    peer = {"Put": {"TableName": "main-physical", "Item": item("PEERS", "burst.example")}}
    own = {"Put": {"TableName": "main-physical", "Item": item("ACCT#1", "PROFILE")}}
    first, answer = call(rec, "TransactWriteItems", {"TransactItems": [peer]})
    assert answer is None  # in flight now
    second, answer = call(rec, "TransactWriteItems", {"TransactItems": [own, peer]})
    http, parsed = answer
    assert http.status_code == 400
    assert [r["Code"] for r in parsed["CancellationReasons"]] == ["None", "TransactionConflict"]
    _, answer = call(rec, "PutItem", {"Item": item("PEERS", "burst.example")})
    assert answer[1]["Error"]["Code"] == "TransactionConflictException"
    _, answer = call(rec, "TransactWriteItems", {"TransactItems": [own]})
    assert answer is None  # other items: no conflict
    rec._ended(parsed={}, model=SimpleNamespace(name="TransactWriteItems"), context=first)
    _, answer = call(rec, "TransactWriteItems", {"TransactItems": [peer]})
    assert answer is None  # the first one answered: the item is free again
    rec.conflicts_on = False
    _, answer = call(rec, "TransactWriteItems", {"TransactItems": [peer]})
    assert answer is None  # outside a concurrent sample the rule is off


def test_refusals_are_counted_apart_from_conditions():
    rec = recorder()
    rec.errors.update({"TransactionCanceled:TransactionConflict": 3,
                       "TransactionConflictException": 1,
                       "TransactionCanceled:ConditionalCheckFailed": 2,
                       "ConditionalCheckFailedException": 5})
    assert rec.conflicts() == 4 and rec.conditions_failed() == 7


# --- the fan-out's queue ---------------------------------------------------------------------------
COSTS = Costs(page_ms=50, page_rcu=30, batch_ms=400, batch_wcu=250)


def chain(pages: int) -> SimJob:
    root = node = SimJob("page", 1000)
    for _ in range(pages - 1):
        child = SimJob("page", 1000)
        node.children = [*(SimJob("batch", 250) for _ in range(4)), child]
        node = child
    node.children = [SimJob("batch", 250) for _ in range(4)]
    return root


def tree(pages: int, split: int = 4) -> SimJob:
    nodes = [SimJob("page", 1000)]
    made = 1
    frontier = list(nodes)
    while made < pages:
        parent = frontier.pop(0)
        for _ in range(min(split, pages - made)):
            child = SimJob("page", 1000)
            parent.children.append(child)
            frontier.append(child)
            made += 1
    for node in _all(nodes[0]):
        node.children += [SimJob("batch", 250) for _ in range(4)]
    return nodes[0]


def _all(node: SimJob) -> list[SimJob]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(c for c in current.children if c.kind == "page")
    return found


def test_a_chain_of_pages_takes_a_step_per_page_and_parallel_parts_do_not():
    chained = simulate(chain(300), COSTS, concurrency=1000, page_size=1000)
    parallel = simulate(tree(300), COSTS, concurrency=1000, page_size=1000)
    assert chained["lag_seconds"] > 300 * COSTS.page_ms / 1000
    # Parallel pages wait for the mapping to scale out (5 workers, 5 more a second), not for
    # each other.
    assert parallel["lag_seconds"] < chained["lag_seconds"] / 2


def test_the_queue_never_runs_more_than_its_cap():
    found = simulate(tree(200), COSTS, concurrency=20, page_size=1000)
    assert found["peak_concurrency"] <= 20
    unbounded = simulate(tree(200), COSTS, concurrency=1000, page_size=1000)
    assert unbounded["peak_concurrency"] > 20
    assert unbounded["lag_seconds"] < found["lag_seconds"]


def test_the_concurrency_caps_are_read_from_the_template():
    template = {"Resources": {
        "Capped": {"Type": "AWS::Serverless::Function", "Properties": {"Events": {"Jobs": {
            "Type": "SQS", "Properties": {"ScalingConfig": {"MaximumConcurrency": 7}}}}}},
        "Reserved": {"Type": "AWS::Serverless::Function",
                     "Properties": {"ReservedConcurrentExecutions": 3}},
        "Free": {"Type": "AWS::Serverless::Function", "Properties": {}}}}
    assert bench_scale.concurrency_caps(template) == {"Capped": 7, "Reserved": 3}


def test_the_fan_out_queue_is_capped_in_the_template():
    from local import cfn

    caps = bench_scale.concurrency_caps(cfn.load_template())
    assert 2 <= caps["FanoutFunction"] < bench_scale.ACCOUNT_CONCURRENCY


def test_follow_ids_are_sorted_and_spread_over_years():
    found = bench_scale.follow_ids(1000)
    assert found == sorted(found) and len(found) == len(set(found)) > 990
    from stratus.core import ids

    span_days = (ids.timestamp_ms(found[-1]) - ids.timestamp_ms(found[0])) / 86_400_000
    assert 365 < span_days <= 3 * 365 + 1
    assert Counter(ids.timestamp_ms(f) > ids.timestamp_ms(found[-1]) - 365 * 86_400_000
                   for f in found)[True] > 600  # most followed in the last year
