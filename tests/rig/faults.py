"""DynamoDB's refusals, injected as DynamoDB reports them — the emulator applies one request at
a time and never produces them: a transaction cancelled by a concurrent one
(`TransactionConflict`) or by a throttled partition (`ThrottlingError`)."""

from __future__ import annotations

import pytest
from stratus.repo import base
from stratus.repo.client import dynamodb


def cancelled(code: str = "TransactionConflict", *, times: int | None = None,
              only=lambda items: True):
    """A TransactWriteItems that is cancelled with `code` for its last item (and `None` for the
    others) `times` times (None: always) when `only(TransactItems)`. Returns (client, the fake
    to monkeypatch in as `transact_write_items`, {"conflicts": how many were cancelled})."""
    ddb = dynamodb()
    real = ddb.transact_write_items
    calls = {"conflicts": 0}

    def transact_write_items(**kwargs):
        if (times is None or calls["conflicts"] < times) and only(kwargs["TransactItems"]):
            calls["conflicts"] += 1
            reasons = [{"Code": "None"} for _ in kwargs["TransactItems"]]
            reasons[-1] = {"Code": code, "Message": f"{code} on the item"}
            error = {"Error": {"Code": "TransactionCanceledException",
                               "Message": "Transaction cancelled, please refer cancellation "
                                          f"reasons for specific reasons [None, {code}]"},
                     "CancellationReasons": reasons}
            raise ddb.exceptions.TransactionCanceledException(error, "TransactWriteItems")
        return real(**kwargs)

    return ddb, transact_write_items, calls


def adds_to_counters(items) -> bool:
    """A transaction that adds to a counter item (what a contended counter refuses)."""
    return any(i.get("Update", {}).get("UpdateExpression", "").startswith("ADD")
               for i in items)


@pytest.fixture
def no_backoff(monkeypatch):
    """Retries of cancelled transactions without their jittered sleeps."""
    monkeypatch.setattr(base, "_backoff", lambda attempt: None)
