"""stratus/repo/item_size.py and its checks in repo/base.py: a write DynamoDB would refuse on
every attempt — an item over 400 KB, NaN, an infinity, a number past 38 digits or outside
1e-130..1e126 — is refused before it is sent, as a permanent failure (a job dropped, not
retried into its dead-letter queue); DynamoDB's own ValidationException for these is the same."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

import pytest

MAX_ITEM = 400 * 1024


def item(pk: str, **attributes) -> dict:
    return {"PK": pk, "SK": "X", "type": "test", **attributes}


@pytest.fixture
def calls(runtime):
    """The names of the DynamoDB calls made while the list is open."""
    from stratus.repo.client import dynamodb

    made: list[str] = []
    client = dynamodb()
    client.meta.events.register("before-call.dynamodb", lambda model, **_: made.append(model.name),
                                unique_id="item-size-calls")
    yield made
    client.meta.events.unregister("before-call.dynamodb", unique_id="item-size-calls")


def test_sizes_are_dynamodbs():
    """The estimate is what DynamoDB counts (local/capacity.py sizes the wire form by the same
    published rules)."""
    from stratus.repo import base, item_size

    from local import capacity

    samples = [
        item("a"), item("b", text="é" * 1000, n=12345, f=0.125, big=10**30, neg=-7, flag=True),
        item("c", m={"x": 1.5, "y": [1, "two", {"three": None}], "z": {"deep": ["é"]}},
             empty=[], data=b"\x00" * 300, tags={"a", "bb"}, nums={1, 22, 333}),
        item("d", gone=None, zero=0, dec=Decimal("1.2300"), tiny=Decimal("1e-120"))]
    for sample in samples:
        assert item_size.size(sample) == capacity.item_size(base.serialize(sample)), sample


def test_a_write_over_400_kb_is_refused_before_it_is_sent(calls):
    """Put, a transaction's Put, a batch write, an update whose values alone pass the limit:
    refused as TooLarge (a Permanent), no request made."""
    from stratus.core.errors import Permanent
    from stratus.repo import base, item_size

    big = item("big", text="x" * MAX_ITEM)
    # (moto refuses items past 405,000 bytes, AWS past 409,600: this one fits both)
    fits = item("fits", text="x" * (MAX_ITEM - 10_000))
    assert issubclass(item_size.TooLarge, Permanent)
    for write in (lambda: base.put(big), lambda: base.transact([base.put_new(big)]),
                  lambda: base.write_many(puts=[fits, big]),
                  lambda: base.transact([base.set_op({"PK": "fits", "SK": "X"},
                                                     {"text": "y" * (MAX_ITEM + 1)})]),
                  lambda: base.update({"PK": "fits", "SK": "X"}, "SET #t = :t",
                                      names={"#t": "text"}, vals={":t": "y" * (MAX_ITEM + 1)})):
        calls.clear()
        with pytest.raises(item_size.TooLarge):
            write()
        assert calls == []
    base.put(fits)  # what fits is written
    assert base.get({"PK": "fits", "SK": "X"})["text"] == fits["text"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), Decimal("NaN"),
                                   Decimal("Infinity"), 10**40, -(10**40), 1e-200, 1e300,
                                   [1, {"x": float("nan")}]])
def test_values_dynamodb_cannot_store_are_refused(calls, value):
    from stratus.repo import base, item_size

    with pytest.raises(item_size.Unstorable):
        base.transact([base.put_new(item("n", value=value))])
    with pytest.raises(item_size.Unstorable):
        base.put(item("n", value=value))
    assert calls == []
    assert base.get({"PK": "n", "SK": "X"}) is None


def test_dynamodbs_own_refusal_of_an_item_too_large_is_permanent(runtime, monkeypatch):
    """An update that makes a stored item too large (only DynamoDB can tell): its
    ValidationException, and a transaction's ValidationError cancellation reason, are
    Unstorable; other errors are not."""
    from stratus.repo import base, item_size
    from stratus.repo.client import dynamodb

    base.put(item("grows", text="x" * 300_000))
    grow = base.set_op({"PK": "grows", "SK": "X"}, {"more": "y" * 200_000})
    with pytest.raises(item_size.Unstorable, match="size"):
        base.transact([grow])
    with pytest.raises(item_size.Unstorable, match="size"):
        base.update({"PK": "grows", "SK": "X"}, "SET #m = :m", names={"#m": "more"},
                    vals={":m": "y" * 200_000})
    assert "more" not in base.get({"PK": "grows", "SK": "X"})

    ddb = dynamodb()

    def cancelled(**kwargs):
        raise ddb.exceptions.TransactionCanceledException({
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": [{"Code": "ValidationError", "Message":
                                     "Item size has exceeded the maximum allowed size"}]},
            "TransactWriteItems")

    monkeypatch.setattr(ddb, "transact_write_items", cancelled)
    with pytest.raises(item_size.Unstorable):
        base.transact([base.put_new(item("small"))])

    def invalid(**kwargs):
        raise ddb.exceptions.ClientError({"Error": {
            "Code": "ValidationException", "Message": "Invalid UpdateExpression"}},
            "TransactWriteItems")

    monkeypatch.setattr(ddb, "transact_write_items", invalid)
    with pytest.raises(ddb.exceptions.ClientError) as raised:
        base.transact([base.put_new(item("small"))])
    assert not isinstance(raised.value, item_size.Unstorable)


def test_a_job_whose_write_cannot_be_stored_is_dropped_not_retried(runtime):
    from stratus.core.observability import JobLimits, sqs_batch_handler
    from stratus.repo import base, queues

    from local.lambda_runtime import isolated

    def record(message) -> None:
        if message.body == "too large":
            base.put(item("job", text="x" * MAX_ITEM))
        elif message.body == "nan":
            base.put(item("job", value=float("nan")))
        else:
            raise RuntimeError("the table is busy")

    event = {"Records": [{
        "messageId": f"m{n}", "receiptHandle": f"r{n}", "body": body,
        "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {},
        "md5OfBody": "", "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:::Q",
        "awsRegion": "us-east-1"} for n, body in enumerate(("too large", "nan", "busy"))]}
    context = SimpleNamespace(function_name="Test", function_version="1", aws_request_id="r",
                              invoked_function_arn="arn:aws:lambda:us-east-1:0:function:Test",
                              memory_limit_in_mb=128, log_group_name="t", log_stream_name="t",
                              get_remaining_time_in_millis=lambda: 60_000)
    handler = sqs_batch_handler(record, limits=JobLimits(seconds=10), send_again=queues.send_again)
    result = isolated(handler)(event, context)
    assert result == {"batchItemFailures": [{"itemIdentifier": "m2"}]}
