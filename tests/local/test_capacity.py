"""The request units `make bench` charges DynamoDB calls (local/capacity.py), against the rules
and worked examples of the Amazon DynamoDB Developer Guide ("DynamoDB item sizes and formats",
"Capacity unit consumption for reads/writes", "Global secondary indexes", "Transactions")."""

from __future__ import annotations

import pytest

from local import capacity
from local.capacity import Index, Table, charge, item_size, read_units, write_units

KB = 1024
TABLE = Table("T", "PK", "SK", (
    Index("GSI1", "GSI1PK", "GSI1SK", "INCLUDE", ("flag",)),
    Index("GSI2", "GSI2PK", "GSI2SK", "KEYS_ONLY"),
))
TABLES = {"T": TABLE}


def sized(size: int, pk: str = "a", sk: str = "s", pad: str = "pad", **extra) -> dict:
    """An item of exactly `size` bytes: PK, SK, `extra` attributes and a padding attribute."""
    item = {"PK": {"S": pk}, "SK": {"S": sk}, **extra}
    length = size - item_size(item) - len(pad)
    assert length >= 0
    return {**item, pad: {"S": "x" * length}}


class Store:
    """Items by key, and what a Query examined, as the emulator would give them."""

    def __init__(self, *items: dict, examined: list[dict] | None = None) -> None:
        self.items = {capacity.key_id("T", TABLE.key(i)): i for i in items}
        self._examined = examined or []

    def item(self, table, key):
        return self.items.get(capacity.key_id(table, key))

    def examined(self, params, response):
        return self._examined


def before(*items: dict) -> dict:
    return {capacity.key_id("T", TABLE.key(i)): i for i in items}


def key(item: dict) -> dict:
    return TABLE.key(item)


# --- item sizes --------------------------------------------------------------------------------
@pytest.mark.parametrize("attributes, size", [
    ({"Name": {"S": "abc"}}, 4 + 3),                      # name + UTF-8 bytes
    ({"é": {"S": "ü€"}}, 2 + 2 + 3),                       # UTF-8, not characters
    ({"Id": {"N": "101"}}, 2 + 2 + 1),                     # 3 digits: 2 bytes, plus 1
    ({"n": {"N": "1200"}}, 1 + 1 + 1),                     # trailing zeros trimmed: "12"
    ({"n": {"N": "0.0100"}}, 1 + 1 + 1),                   # leading and trailing: "1"
    ({"n": {"N": "-123.45"}}, 1 + 3 + 1),                  # 5 significant digits
    ({"b": {"B": b"\x00\x01\x02\x03"}}, 1 + 4),            # raw bytes ...
    ({"b": {"B": "AAECAw=="}}, 1 + 4),                     # ... also when given in base64
    ({"ok": {"BOOL": False}}, 2 + 1),
    ({"none": {"NULL": True}}, 4 + 1),
    ({"l": {"L": []}}, 1 + 3),                             # empty List: 3 bytes
    ({"l": {"L": [{"S": "ab"}, {"N": "7"}]}}, 1 + 3 + (2 + 1) + (2 + 1)),  # +1 per element
    ({"m": {"M": {"k": {"S": "v"}}}}, 1 + 3 + (1 + 1 + 1)),  # an element counts its name
    ({"m": {"M": {"in": {"L": [{"BOOL": True}]}}}}, 1 + 3 + (2 + (3 + 1 + 1) + 1)),
    ({"ss": {"SS": ["a", "bc"]}}, 2 + 3),
    ({"ns": {"NS": ["1", "22"]}}, 2 + 2 + 2),
    ({"Name": {"S": "abc"}, "Id": {"N": "101"}}, 7 + 5),   # an item: the sum
])
def test_item_size_follows_dynamodbs_rules(attributes, size):
    assert item_size(attributes) == size


# --- reads -------------------------------------------------------------------------------------
def test_reads_round_up_to_4_kb():
    # "reading a 3,500-byte item consumes the same throughput as reading a 4 KB item"
    assert read_units(3500, consistent=True) == read_units(4 * KB, consistent=True) == 1
    assert read_units(3500) == 0.5
    # "a strongly consistent read of an 8 KB item requires two read request units, an
    # eventually consistent read of an 8 KB item requires one, and a transactional read four"
    assert read_units(8 * KB, consistent=True) == 2
    assert read_units(8 * KB) == 1
    assert read_units(8 * KB, transactional=True) == 4
    # GetItem of 10 KB: "DynamoDB rounds the item size to 12 KB"
    assert read_units(10 * KB, consistent=True) == 3
    # "For an eventually consistent read, if the total item size is 80 KB, ... 10"
    assert read_units(80 * KB) == 10


def test_a_read_that_finds_nothing_still_costs_the_minimum():
    store = Store()
    params = {"TableName": "T", "Key": {"PK": {"S": "a"}, "SK": {"S": "s"}}}
    result = charge("GetItem", params, {}, before={}, store=store, tables=TABLES)
    assert (result.read, result.missed) == (0.5, 0.5)
    strong = {**params, "ConsistentRead": True}
    assert charge("GetItem", strong, {}, before={}, store=store, tables=TABLES).read == 1


def test_get_item_is_charged_for_the_whole_item_even_with_a_projection():
    item = sized(10 * KB)
    params = {"TableName": "T", "Key": key(item), "ProjectionExpression": "PK",
              "ConsistentRead": True}
    response = {"Item": {"PK": item["PK"]}}
    assert charge("GetItem", params, response, before={}, store=Store(item),
                  tables=TABLES).read == 3


def test_batch_get_rounds_each_item_up_on_its_own():
    # "if BatchGetItem reads a 1.5 KB item and a 6.5 KB item, DynamoDB calculates the size as
    # 12 KB (4 KB + 8 KB), not 8 KB"
    small, large = sized(1536, pk="small"), sized(6656, pk="large")
    params = {"RequestItems": {"T": {"Keys": [key(small), key(large)], "ConsistentRead": True}}}
    result = charge("BatchGetItem", params, {"Responses": {"T": [small, large]}}, before={},
                    store=Store(small, large), tables=TABLES)
    assert result.read == 3
    eventually = {"RequestItems": {"T": {"Keys": [key(small), key(large)]}}}
    assert charge("BatchGetItem", eventually, {}, before={}, store=Store(small, large),
                  tables=TABLES).read == 1.5


def test_batch_get_charges_missing_keys_and_not_unprocessed_ones():
    found = sized(100, pk="here")
    missing = {"PK": {"S": "gone"}, "SK": {"S": "s"}}
    later = {"PK": {"S": "later"}, "SK": {"S": "s"}}
    params = {"RequestItems": {"T": {"Keys": [key(found), missing, later]}}}
    response = {"Responses": {"T": [found]}, "UnprocessedKeys": {"T": {"Keys": [later]}}}
    result = charge("BatchGetItem", params, response, before={}, store=Store(found),
                    tables=TABLES)
    assert (result.read, result.missed) == (1.0, 0.5)


def test_query_sums_the_items_then_rounds_once():
    # "suppose your query returns 10 items whose combined size is 40.8 KB. DynamoDB rounds the
    # item size for the operation to 44 KB"
    items = [sized(4178, sk=f"s{i}") for i in range(10)]  # 41,780 bytes: 40.8 KB
    params = {"TableName": "T", "KeyConditionExpression": "PK = :pk", "ConsistentRead": True}
    response = {"Items": items, "Count": 10, "ScannedCount": 10}
    result = charge("Query", params, response, before={}, store=Store(), tables=TABLES)
    assert (result.read, result.examined) == (11, 10)
    # "If a query returns 1500 items of 64 bytes each, the cumulative size is 96 KB."
    tiny = [sized(64, sk=f"{i:04d}") for i in range(1500)]
    result = charge("Query", params, {"Items": tiny, "ScannedCount": 1500}, before={},
                    store=Store(), tables=TABLES)
    assert result.read == 24


def test_a_filtered_query_pays_for_every_item_it_examined():
    examined = [sized(2000, sk=f"s{i}") for i in range(8)]  # 16,000 bytes
    params = {"TableName": "T", "KeyConditionExpression": "PK = :pk",
              "FilterExpression": "flag = :yes", "ConsistentRead": True}
    response = {"Items": examined[:1], "Count": 1, "ScannedCount": 8}
    result = charge("Query", params, response, before={}, store=Store(examined=examined),
                    tables=TABLES)
    assert (result.read, result.examined) == (4, 8)  # not 1 (the one item returned)


def test_a_query_on_an_index_is_charged_for_the_index_entries():
    # "a global secondary index where each item contains 2000 bytes ... the query returns 8
    # items ... 16,000 bytes ... rounded up to the nearest 4 KB boundary ... 0.5 × (16 KB /
    # 4 KB), or 2 read capacity units"
    entries = [sized(2000, sk=f"s{i}", pad="flag", GSI1PK={"S": "p"}, GSI1SK={"S": f"{i}"})
               for i in range(8)]  # `flag` is projected: each entry is the whole 2000 bytes
    params = {"TableName": "T", "IndexName": "GSI1", "KeyConditionExpression": "GSI1PK = :p"}
    result = charge("Query", params, {"Items": entries, "ScannedCount": 8}, before={},
                    store=Store(), tables=TABLES)
    assert result.read == 2
    # Attributes the index does not project are not read from it.
    fat = [{**entry, "body": {"S": "y" * 4000}} for entry in entries]
    assert charge("Query", {**params, "FilterExpression": "x"}, {"Items": [], "ScannedCount": 8},
                  before={}, store=Store(examined=fat), tables=TABLES).read == 2


# --- writes ------------------------------------------------------------------------------------
def test_writes_round_up_to_1_kb():
    assert write_units(500) == 1                       # "writing a 500-byte item ... 1 KB"
    assert write_units(3 * KB) == 3                    # "a 3 KB item would require three"
    assert write_units(3 * KB, transactional=True) == 6  # "... a transactional ... six"
    assert write_units(int(1.6 * KB)) == 2             # "an item of 1.6 KB ... up to 2 KB"


def test_put_update_and_delete_are_charged_the_larger_size():
    small, large = sized(500), sized(3 * KB)
    put = {"TableName": "T", "Item": large}
    assert charge("PutItem", put, {}, before=before(small), store=Store(large),
                  tables=TABLES).write == 3
    shrink = {"TableName": "T", "Item": small}  # replacing a 3 KB item with a small one
    assert charge("PutItem", shrink, {}, before=before(large), store=Store(small),
                  tables=TABLES).write == 3
    update = {"TableName": "T", "Key": key(small), "UpdateExpression": "SET pad = :p"}
    assert charge("UpdateItem", update, {}, before=before(small), store=Store(large),
                  tables=TABLES).write == 3
    delete = {"TableName": "T", "Key": key(large)}
    assert charge("DeleteItem", delete, {}, before=before(large), store=Store(),
                  tables=TABLES).write == 3
    assert charge("DeleteItem", delete, {}, before={}, store=Store(),
                  tables=TABLES).write == 1  # nothing to delete: still one unit


def test_a_failed_conditional_write_still_costs():
    failed = {"Error": {"Code": "ConditionalCheckFailedException"}}
    existing = sized(2 * KB)
    put = {"TableName": "T", "Item": sized(500), "ConditionExpression": "attribute_not_exists(PK)"}
    assert charge("PutItem", put, failed, before=before(existing), store=Store(existing),
                  tables=TABLES).write == 2
    # "For a new item, DynamoDB consumes one write capacity unit."
    update = {"TableName": "T", "Key": {"PK": {"S": "new"}, "SK": {"S": "s"}},
              "ConditionExpression": "attribute_exists(PK)"}
    result = charge("UpdateItem", update, failed, before={}, store=Store(), tables=TABLES)
    assert (result.write, result.index_write) == (1, 0)
    other_error = {"Error": {"Code": "ValidationException"}}
    assert charge("PutItem", put, other_error, before={}, store=Store(),
                  tables=TABLES).write == 0


def test_batch_write_rounds_each_item_up_on_its_own():
    # "if BatchWriteItem writes a 500 byte item and a 3.5 KB item, DynamoDB calculates the size
    # as 5 KB (1 KB + 4 KB)"
    small, large = sized(500, pk="small"), sized(3584, pk="large")
    params = {"RequestItems": {"T": [{"PutRequest": {"Item": small}},
                                     {"PutRequest": {"Item": large}}]}}
    assert charge("BatchWriteItem", params, {}, before={}, store=Store(small, large),
                  tables=TABLES).write == 5
    left = {"UnprocessedItems": {"T": [{"PutRequest": {"Item": large}}]}}
    assert charge("BatchWriteItem", params, left, before={}, store=Store(small),
                  tables=TABLES).write == 1


def test_transactions_cost_twice_and_condition_checks_are_transactional_reads():
    # "each transaction writes three 500-byte items ... you would need to provision six WCUs"
    items = [sized(500, pk=f"p{i}") for i in range(3)]
    params = {"TransactItems": [{"Put": {"TableName": "T", "Item": i}} for i in items]}
    assert charge("TransactWriteItems", params, {}, before={}, store=Store(*items),
                  tables=TABLES).write == 6
    checked = sized(5 * KB, pk="checked")
    with_check = {"TransactItems": [{"Put": {"TableName": "T", "Item": items[0]}},
                                    {"ConditionCheck": {"TableName": "T", "Key": key(checked),
                                                        "ConditionExpression": "x"}}]}
    result = charge("TransactWriteItems", with_check, {}, before=before(checked),
                    store=Store(items[0], checked), tables=TABLES)
    assert (result.write, result.read) == (2, 4)
    # Cancelled: its items' units, and no index writes (nothing changed).
    indexed = sized(500, pk="i", GSI1PK={"S": "g"}, GSI1SK={"S": "1"})
    cancelled = {"Error": {"Code": "TransactionCanceledException"},
                 "CancellationReasons": [{"Code": "ConditionalCheckFailed"}]}
    result = charge("TransactWriteItems",
                    {"TransactItems": [{"Put": {"TableName": "T", "Item": indexed}}]},
                    cancelled, before={}, store=Store(), tables=TABLES)
    assert (result.write, result.index_write) == (2, 0)


# --- global secondary indexes ------------------------------------------------------------------
def gsi1(pk: str = "g", sk: str = "1", **extra) -> dict:
    return {"GSI1PK": {"S": pk}, "GSI1SK": {"S": sk}, **extra}


def index_units(old: dict | None, new: dict | None) -> float:
    return capacity.index_write_units(TABLE, old, new)


def test_index_writes_follow_the_documented_cases():
    plain = sized(300)
    indexed = {**plain, **gsi1()}
    # "If you write a new item to the table that defines an indexed attribute ... one write"
    assert index_units(None, indexed) == 1
    assert index_units(plain, indexed) == 1  # an update defining a previously undefined one
    # "If an update ... changes the value of an indexed key attribute (from A to B), two writes"
    assert index_units(indexed, {**plain, **gsi1(sk="2")}) == 2
    # "... caused the indexed attribute to be deleted, one write is required to delete"
    assert index_units(indexed, plain) == 1
    assert index_units(indexed, None) == 1   # the item itself deleted
    # "If an item is not present in the index before or after ..., no additional write cost"
    assert index_units(plain, {**plain, "pad": {"S": "changed"}}) == 0
    # "... only changes the value of projected attributes ..., one write"
    assert index_units({**indexed, "flag": {"BOOL": False}},
                       {**indexed, "flag": {"BOOL": True}}) == 1
    # An attribute the index does not project changes nothing in it.
    assert index_units(indexed, {**indexed, "pad": {"S": "changed"}}) == 0
    # Equal numbers written differently are the same value.
    assert index_units({**indexed, "flag": {"N": "1.0"}}, {**indexed, "flag": {"N": "1"}}) == 0


def test_each_index_is_charged_for_its_own_entry_size():
    big = {**sized(300), **gsi1(flag={"S": "f" * 2000}),
           "GSI2PK": {"S": "k"}, "GSI2SK": {"S": "1"}}
    # GSI1 projects `flag` (a 2 KB entry: 2 units), GSI2 only keys (1 unit).
    assert index_units(None, big) == 3


def test_puts_and_deletes_include_their_index_writes():
    indexed = {**sized(500), **gsi1()}
    result = charge("PutItem", {"TableName": "T", "Item": indexed}, {}, before={},
                    store=Store(indexed), tables=TABLES)
    assert (result.write, result.index_write) == (1, 1)
    result = charge("DeleteItem", {"TableName": "T", "Key": key(indexed)}, {},
                    before=before(indexed), store=Store(), tables=TABLES)
    assert (result.write, result.index_write) == (1, 1)


def test_a_table_is_read_from_its_description_with_its_projections():
    key_schema = [{"AttributeName": "PK", "KeyType": "HASH"},
                  {"AttributeName": "SK", "KeyType": "RANGE"}]
    indexes = [{"IndexName": "GSI1",
                "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                              {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["flag"]}}]
    assert capacity.table_schema("stack-Main", key_schema, indexes) == Table(
        "stack-Main", "PK", "SK", (Index("GSI1", "GSI1PK", "GSI1SK", "INCLUDE", ("flag",)),))


# --- DynamoDB's answer, both ways --------------------------------------------------------------
def test_consumed_capacity_is_answered_per_table_with_each_index_share():
    indexed = {**sized(500), **gsi1()}
    put = {"TableName": "T", "Item": indexed}
    charged = charge("PutItem", put, {}, before={}, store=Store(indexed), tables=TABLES)
    assert capacity.consumed_capacity("PutItem", put, charged, "TOTAL") == {
        "TableName": "T", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}
    assert capacity.consumed_capacity("PutItem", put, charged, "INDEXES") == {
        "TableName": "T", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0,
        "Table": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0},
        "GlobalSecondaryIndexes": {"GSI1": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}}}
    # A batch answers a list, one entry per table; a query on an index is the index's read.
    keys = {"RequestItems": {"T": {"Keys": [key(indexed)]}}}
    batch = charge("BatchGetItem", keys, {}, before={}, store=Store(indexed), tables=TABLES)
    assert capacity.consumed_capacity("BatchGetItem", keys, batch, "TOTAL") == [
        {"TableName": "T", "CapacityUnits": 0.5, "ReadCapacityUnits": 0.5}]
    query = {"TableName": "T", "IndexName": "GSI1", "KeyConditionExpression": "GSI1PK = :p"}
    read = charge("Query", query, {"Items": [indexed], "ScannedCount": 1}, before={},
                  store=Store(), tables=TABLES)
    assert capacity.consumed_capacity("Query", query, read, "INDEXES")["GlobalSecondaryIndexes"] \
        == {"GSI1": {"CapacityUnits": 0.5, "ReadCapacityUnits": 0.5}}


def test_a_reported_answer_is_read_back_into_the_same_charge():
    indexed = {**sized(500), **gsi1()}
    checked = sized(5 * KB, pk="checked")
    params = {"TransactItems": [{"Put": {"TableName": "T", "Item": indexed}},
                                {"ConditionCheck": {"TableName": "T", "Key": key(checked),
                                                    "ConditionExpression": "x"}}]}
    charged = charge("TransactWriteItems", params, {}, before=before(checked),
                     store=Store(indexed, checked), tables=TABLES)
    answer = {"ConsumedCapacity": capacity.consumed_capacity("TransactWriteItems", params,
                                                             charged, "INDEXES")}
    back = capacity.reported("TransactWriteItems", params, answer)
    assert (back.read, back.write, back.index_write) == (4, 2, 1) == \
        (charged.read, charged.write, charged.index_write)
    # TOTAL without Read/WriteCapacityUnits (older answers): the operation names the kind.
    assert capacity.reported("PutItem", {}, {"ConsumedCapacity": {
        "TableName": "T", "CapacityUnits": 3.0}}).write == 3


def test_what_dynamodb_does_not_report_is_derived_from_the_call():
    asked = {"RequestItems": {"T": {"Keys": [{"PK": {"S": k}, "SK": {"S": "s"}}
                                             for k in ("a", "b", "c", "d")]}}}
    answer = {"Responses": {"T": [sized(100, pk="a")]},
              "UnprocessedKeys": {"T": {"Keys": [{"PK": {"S": "d"}, "SK": {"S": "s"}}]}},
              "ConsumedCapacity": [{"TableName": "T", "CapacityUnits": 1.5}]}
    result = capacity.reported("BatchGetItem", asked, answer)
    assert (result.read, result.missed) == (1.5, 1.0)  # b and c found nothing: 0.5 each
    assert capacity.reported("Query", {}, {"ScannedCount": 7, "Items": []}).examined == 7
    assert capacity.reported("GetItem", {"ConsistentRead": True}, {}).missed == 1


# --- against the emulator ----------------------------------------------------------------------
def test_the_meter_reads_what_the_local_dynamodb_reports_for_real_calls(runtime):
    """Through the stack's own repository code: every data call asks for INDEXES, a replaced
    item is charged its old (larger) size, and a filtered Query pays for all it read."""
    from stratus.repo import base
    from stratus.repo.client import dynamodb

    charges: list[tuple[str, capacity.Charge]] = []
    asked: list[str | None] = []
    ddb = dynamodb()
    ddb.meta.events.register("before-parameter-build.dynamodb",
                             lambda params, **_: asked.append(params.get("ReturnConsumedCapacity")),
                             unique_id="test-asked")
    capacity.Meter().attach(ddb, lambda operation, charged: charges.append((operation, charged)))
    try:
        base.put({"PK": "sizing-1", "SK": "A", "body": "x" * 3000})
        base.put({"PK": "sizing-1", "SK": "A", "body": "small"})          # replaces 3 KB
        for i in range(10):
            base.put({"PK": "sizing-2", "SK": f"{i:02d}", "keep": i == 9, "body": "y" * 500})
        found = list(base.query("sizing-2", filter=("#k = :yes", {"#k": "keep"}, {":yes": True})))
        assert base.get({"PK": "sizing-1", "SK": "A"})["body"] == "small"
    finally:
        capacity.Meter.detach(ddb)
        ddb.meta.events.unregister("before-parameter-build.dynamodb", unique_id="test-asked")
    assert asked and set(asked) == {"INDEXES"}
    assert [c.write for op, c in charges[:2]] == [3, 3]
    assert len(found) == 1
    query = next(c for op, c in charges if op == "Query")
    # Ten items of ~530 bytes examined (5.3 KB: 2 blocks, eventually consistent), one returned.
    sizes = sum(item_size(base.serialize({"PK": "sizing-2", "SK": f"{i:02d}", "keep": i == 9,
                                          "body": "y" * 500})) for i in range(10))
    assert query.examined == 10
    assert query.read == read_units(sizes) == 1.0
