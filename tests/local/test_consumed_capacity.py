"""The local DynamoDB answers `ReturnConsumedCapacity` with the units DynamoDB would charge
(local/emulator.py, "Consumed capacity"; the rules in local/capacity.py), computed from the
items a call touched: the Developer Guide's examples, asked for through a real boto3 client."""

from __future__ import annotations

import boto3
import pytest

from local import capacity, emulator

KB = 1024
KEY = [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]


@pytest.fixture
def ddb(aws):
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(
        TableName="T", BillingMode="PAY_PER_REQUEST", KeySchema=KEY,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("PK", "SK", "G1PK", "G1SK")],
        GlobalSecondaryIndexes=[{
            "IndexName": "GSI1",
            "KeySchema": [{"AttributeName": "G1PK", "KeyType": "HASH"},
                          {"AttributeName": "G1SK", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    return client


def item(size: int, pk: str = "a", sk: str = "s", **extra: dict) -> dict:
    """An item of exactly `size` bytes (names and values, as DynamoDB sizes them)."""
    made = {"PK": {"S": pk}, "SK": {"S": sk}, **extra}
    return {**made, "pad": {"S": "x" * (size - capacity.item_size(made) - len("pad"))}}


def key(pk: str = "a", sk: str = "s") -> dict:
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def test_a_get_of_a_5_kb_item_reports_what_its_consistency_costs(ddb):
    five_kb = item(5 * KB)
    assert capacity.item_size(five_kb) == 5 * KB
    ddb.put_item(TableName="T", Item=five_kb)
    # 5 KB rounds up to 8 KB: two 4 KB blocks, half a unit each when eventually consistent.
    eventually = ddb.get_item(TableName="T", Key=key(), ReturnConsumedCapacity="TOTAL")
    assert eventually["ConsumedCapacity"] == {"TableName": "T", "CapacityUnits": 1.0,
                                              "ReadCapacityUnits": 1.0}
    strongly = ddb.get_item(TableName="T", Key=key(), ConsistentRead=True,
                            ReturnConsumedCapacity="TOTAL")
    assert strongly["ConsumedCapacity"]["CapacityUnits"] == 2.0
    transactional = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": "T",
                                                                   "Key": key()}}],
                                           ReturnConsumedCapacity="TOTAL")
    assert transactional["ConsumedCapacity"] == [{"TableName": "T", "CapacityUnits": 4.0,
                                                  "ReadCapacityUnits": 4.0}]
    missing = ddb.get_item(TableName="T", Key=key("nothing"), ReturnConsumedCapacity="TOTAL")
    assert missing["ConsumedCapacity"]["CapacityUnits"] == 0.5  # a miss costs the minimum


def test_a_call_that_does_not_ask_is_told_nothing(ddb):
    ddb.put_item(TableName="T", Item=item(100))
    assert "ConsumedCapacity" not in ddb.get_item(TableName="T", Key=key())
    assert "ConsumedCapacity" not in ddb.get_item(TableName="T", Key=key(),
                                                  ReturnConsumedCapacity="NONE")


def test_writes_report_the_larger_size_and_each_index_they_touch(ddb):
    indexed = item(3 * KB, G1PK={"S": "g"}, G1SK={"S": "1"})
    put = ddb.put_item(TableName="T", Item=indexed, ReturnConsumedCapacity="INDEXES")
    # 3 KB on the table; the index keeps only keys: a small entry, one unit.
    assert put["ConsumedCapacity"] == {
        "TableName": "T", "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0,
        "Table": {"CapacityUnits": 3.0, "WriteCapacityUnits": 3.0},
        "GlobalSecondaryIndexes": {"GSI1": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}}}
    # Moving the index key: the entry is deleted and put again (two); the item was 3 KB.
    moved = ddb.update_item(TableName="T", Key=key(), UpdateExpression="SET G1SK = :v",
                            ExpressionAttributeValues={":v": {"S": "2"}},
                            ReturnConsumedCapacity="INDEXES")
    assert moved["ConsumedCapacity"]["Table"]["CapacityUnits"] == 3.0
    assert moved["ConsumedCapacity"]["GlobalSecondaryIndexes"]["GSI1"]["CapacityUnits"] == 2.0
    # TOTAL is the same sum without the shares.
    gone = ddb.delete_item(TableName="T", Key=key(), ReturnConsumedCapacity="TOTAL")
    assert gone["ConsumedCapacity"] == {"TableName": "T", "CapacityUnits": 4.0,
                                        "WriteCapacityUnits": 4.0}


def test_transactions_report_twice_the_units_and_checks_as_reads(ddb):
    ddb.put_item(TableName="T", Item=item(5 * KB, pk="checked"))
    answer = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "T", "Item": item(500, pk="p1")}},
        {"Put": {"TableName": "T", "Item": item(500, pk="p2")}},
        {"ConditionCheck": {"TableName": "T", "Key": key("checked"),
                            "ConditionExpression": "attribute_exists(PK)"}}],
        ReturnConsumedCapacity="INDEXES")
    assert answer["ConsumedCapacity"] == [{
        "TableName": "T", "CapacityUnits": 8.0, "ReadCapacityUnits": 4.0,
        "WriteCapacityUnits": 4.0,
        "Table": {"CapacityUnits": 8.0, "ReadCapacityUnits": 4.0, "WriteCapacityUnits": 4.0}}]


def test_a_batch_reports_per_table_and_rounds_each_item_up(ddb):
    ddb.put_item(TableName="T", Item=item(1536, pk="small"))
    ddb.put_item(TableName="T", Item=item(6656, pk="large"))
    answer = ddb.batch_get_item(RequestItems={"T": {
        "Keys": [key("small"), key("large"), key("none")], "ConsistentRead": True}},
        ReturnConsumedCapacity="TOTAL")
    # 4 KB + 8 KB + a miss's minimum, strongly consistent: 1 + 2 + 1.
    assert answer["ConsumedCapacity"] == [{"TableName": "T", "CapacityUnits": 4.0,
                                           "ReadCapacityUnits": 4.0}]


def test_a_filtered_query_reports_every_item_it_examined(ddb):
    for i in range(8):
        ddb.put_item(TableName="T", Item=item(2000, sk=f"s{i}"))
    answer = ddb.query(TableName="T", KeyConditionExpression="PK = :p",
                       FilterExpression="SK = :last", ConsistentRead=True,
                       ExpressionAttributeValues={":p": {"S": "a"}, ":last": {"S": "s7"}},
                       ReturnConsumedCapacity="TOTAL")
    assert (answer["Count"], answer["ScannedCount"]) == (1, 8)
    assert answer["ConsumedCapacity"]["CapacityUnits"] == 4.0  # 16,000 bytes: four 4 KB blocks


def test_a_failed_condition_is_billed_where_cloudwatch_would_show_it(ddb):
    ddb.put_item(TableName="T", Item=item(2 * KB))
    total, unreported = emulator.CONSUMED.snapshot()
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as failed:
        ddb.put_item(TableName="T", Item=item(500), ConditionExpression="attribute_not_exists(PK)",
                     ReturnConsumedCapacity="TOTAL")
    assert "ConsumedCapacity" not in failed.value.response  # as DynamoDB: the error says nothing
    total_after, unreported_after = emulator.CONSUMED.snapshot()
    assert unreported_after.write - unreported.write == 2  # the existing 2 KB item's size
    assert total_after.write - total.write == 2
