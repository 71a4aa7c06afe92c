"""Where moto differs from AWS in ways the local pipeline would notice (local/emulator.py).

Each test drives the emulator through boto3 the way the pipeline does and checks what AWS
guarantees: a cancelled transaction leaves nothing on the table or its stream, a shard iterator
taken earlier sees every later write, and the emulator does not keep every iterator it handed
out.
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from local import emulator
from stratus.repo.client import client

TABLE = "emulator-test"


@pytest.fixture
def table(aws):
    ddb = client("dynamodb")
    ddb.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    return ddb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]


def _key(pk: str) -> dict:
    return {"pk": {"S": pk}, "sk": {"S": "item"}}


def _iterator(stream_arn: str, kind: str = "TRIM_HORIZON") -> str:
    streams = client("dynamodbstreams")
    shard = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]
    return streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard["ShardId"],
                                      ShardIteratorType=kind)["ShardIterator"]


def _read(iterator: str) -> tuple[list[dict], str]:
    """Every record from the iterator on, and the iterator to continue with."""
    records = []
    while True:
        page = client("dynamodbstreams").get_records(ShardIterator=iterator, Limit=1000)
        iterator = page["NextShardIterator"]
        if not page["Records"]:
            return records, iterator
        records.extend(page["Records"])


def _changes(records: list[dict]) -> list[tuple[str, str]]:
    return [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records]


def _cancelled(*items: dict) -> None:
    with pytest.raises(ClientError) as raised:
        client("dynamodb").transact_write_items(TransactItems=list(items))
    assert raised.value.response["Error"]["Code"] == "TransactionCanceledException", raised.value


def _put_new(pk: str, **attrs) -> dict:
    return {"Put": {"TableName": TABLE, "Item": {**_key(pk), **attrs},
                    "ConditionExpression": "attribute_not_exists(pk)"}}


def test_an_earlier_iterator_sees_no_phantom_and_every_later_write(table):
    ddb = client("dynamodb")
    ddb.put_item(TableName=TABLE, Item={**_key("carol"), "n": {"N": "1"}})
    records, iterator = _read(_iterator(table))
    assert _changes(records) == [("INSERT", "carol")]

    # The first write applies, the second fails its condition: the transaction is cancelled.
    _cancelled(_put_new("username#dave"), _put_new("carol"))
    assert "Item" not in ddb.get_item(TableName=TABLE, Key=_key("username#dave"))

    ddb.put_item(TableName=TABLE, Item={**_key("erin"), "n": {"N": "1"}})
    later, _ = _read(iterator)
    assert _changes(later) == [("INSERT", "erin")]
    # A fresh reader sees the same history: the cancelled write is nowhere.
    everything, _ = _read(_iterator(table))
    assert _changes(everything) == [("INSERT", "carol"), ("INSERT", "erin")]
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in everything]
    assert numbers == sorted(set(numbers))


def test_an_update_in_a_cancelled_transaction_leaves_the_item_as_it_was(table):
    ddb = client("dynamodb")
    ddb.put_item(TableName=TABLE, Item={**_key("stats"), "users": {"N": "1"},
                                        "tags": {"L": [{"S": "a"}]}})
    _, iterator = _read(_iterator(table))
    _cancelled(
        {"Update": {"TableName": TABLE, "Key": _key("stats"),
                    "UpdateExpression": "SET #u = #u + :one, tags = list_append(tags, :t)",
                    "ExpressionAttributeNames": {"#u": "users"},
                    "ExpressionAttributeValues": {":one": {"N": "1"}, ":t": {"L": [{"S": "b"}]}}}},
        {"Delete": {"TableName": TABLE, "Key": _key("absent"),
                    "ConditionExpression": "attribute_exists(pk)"}})
    item = ddb.get_item(TableName=TABLE, Key=_key("stats"), ConsistentRead=True)["Item"]
    assert item["users"] == {"N": "1"} and item["tags"] == {"L": [{"S": "a"}]}

    ddb.update_item(TableName=TABLE, Key=_key("stats"), UpdateExpression="SET #u = :n",
                    ExpressionAttributeNames={"#u": "users"},
                    ExpressionAttributeValues={":n": {"N": "5"}})
    later, _ = _read(iterator)
    assert _changes(later) == [("MODIFY", "stats")]
    assert later[0]["dynamodb"]["OldImage"]["users"] == {"N": "1"}
    assert later[0]["dynamodb"]["NewImage"]["users"] == {"N": "5"}


def test_a_committed_transaction_still_writes_its_stream_records(table):
    ddb = client("dynamodb")
    _, iterator = _read(_iterator(table))
    ddb.transact_write_items(TransactItems=[_put_new("frank"), _put_new("username#frank")])
    later, _ = _read(iterator)
    assert sorted(_changes(later)) == [("INSERT", "frank"), ("INSERT", "username#frank")]


def test_the_streams_backend_does_not_keep_every_iterator(table, monkeypatch):
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    from local import cfn

    backend = dynamodbstreams_backends[cfn.ACCOUNT][cfn.REGION]
    clock = [1000.0]
    monkeypatch.setattr(emulator, "_now", lambda: clock[0], raising=False)
    iterator = _iterator(table)
    for _ in range(50):  # a consumer polling an idle stream for an hour
        iterator = client("dynamodbstreams").get_records(ShardIterator=iterator)[
            "NextShardIterator"]
        clock[0] += 72
    # AWS keeps an iterator for 15 minutes: about 13 of them can still be alive.
    assert len(backend.shard_iterators) <= 15 * 60 // 72 + 2

    client("dynamodb").put_item(TableName=TABLE, Item=_key("grace"))
    records, _ = _read(iterator)  # the newest iterator still works
    assert _changes(records) == [("INSERT", "grace")]


def test_an_expired_iterator_is_refused_as_on_aws(table, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(emulator, "_now", lambda: clock[0], raising=False)
    iterator = _iterator(table)
    clock[0] += 15 * 60 + 1
    client("dynamodbstreams").get_records(ShardIterator=_iterator(table))  # sweeps old ones
    with pytest.raises(ClientError) as raised:
        client("dynamodbstreams").get_records(ShardIterator=iterator)
    assert raised.value.response["Error"]["Code"] == "ExpiredIteratorException"


def test_stream_records_read_back_exactly(table):
    item = {**_key("blob"), "data": {"B": b"\x00\xffbytes"}, "n": {"N": "12.5"},
            "tags": {"SS": ["a", "b"]}, "nested": {"M": {"l": {"L": [{"BOOL": True},
                                                                    {"NULL": True}]}}}}
    client("dynamodb").put_item(TableName=TABLE, Item=item)
    [record], _ = _read(_iterator(table))
    assert record["dynamodb"]["NewImage"] == item
    assert record["dynamodb"]["ApproximateCreationDateTime"].year >= 2024  # a timestamp


def test_the_emulator_does_not_keep_every_object_it_creates(table):
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodbstreams.models import ShardIterator

    before = len(Item.instances_tracked), len(ShardIterator.instances_tracked)
    ddb = client("dynamodb")
    for n in range(30):  # each update copies the item; moto tracked every copy for its dashboard
        ddb.update_item(TableName=TABLE, Key=_key("counter"), UpdateExpression="SET n = :n",
                        ExpressionAttributeValues={":n": {"N": str(n)}})
    _read(_iterator(table))
    assert (len(Item.instances_tracked), len(ShardIterator.instances_tracked)) == before
