"""Counts a request keeps (model/counting.py) stay exact through faults: a counter item
contended (the item written alone, counted by the stream's worker), a job redelivered, a
transaction rolled back, a viral status whose counter partition throttles, a count corrupted
and recounted. Conflicts and throttling are injected as DynamoDB reports them (the emulator
applies one request at a time and never produces them)."""

from __future__ import annotations

from stratus.repo import base, keys
from stratus.repo import counters as counters_repo
from stratus.repo import interactions as interactions_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo.client import dynamodb

from tests.rig import (
    account,
    adds_to_counters,
    cancelled,
    deliver_twice,
    dispatch_only,
    follow,
    post,
)


def counts_of(client, status_id: str) -> tuple[int, int, int]:
    shown = client.get(f"/api/v1/statuses/{status_id}").json()
    return shown["replies_count"], shown["reblogs_count"], shown["favourites_count"]


def every_counter_job_twice(runtime, drain) -> None:
    """The stream's counter jobs of what was written, each delivered twice; then everything."""
    dispatch_only(runtime)
    assert deliver_twice(runtime, "CountersQueue") > 0
    drain()


def test_items_written_without_their_counts_are_counted_once_by_the_worker(
        client, people, runtime, drain, monkeypatch, no_backoff):
    """A like, a reply and a follow whose counted write was refused (contended counter items):
    each is written alone — the request succeeds — and the stream's worker counts it exactly
    once, however often its job is delivered."""
    ids_, tokens = people
    target = post(client, tokens["alice"], status="busy")
    drain()
    ddb, fake, calls = cancelled(only=adds_to_counters)
    monkeypatch.setattr(ddb, "transact_write_items", fake)
    liked = client.post(f"/api/v1/statuses/{target['id']}/favourite", headers=tokens["bob"])
    assert liked.status_code == 200 and liked.json()["favourites_count"] == 1  # bob's own view
    post(client, tokens["carol"], status="@alice me too", in_reply_to_id=target["id"])
    follow(client, tokens["dave"], ids_["alice"])
    assert calls["conflicts"] > 0
    monkeypatch.undo()
    assert counts_of(client, target["id"]) == (0, 0, 0)  # not counted yet: the worker's
    every_counter_job_twice(runtime, drain)
    assert counts_of(client, target["id"]) == (1, 0, 1)
    assert account(client, ids_["alice"])["followers_count"] == 1
    assert account(client, ids_["dave"])["following_count"] == 1
    assert account(client, ids_["carol"])["statuses_count"] == 1
    # Undone while their counters are still hot in this process (left to the worker for a
    # minute): the worker takes them back, exactly once.
    unliked = client.post(f"/api/v1/statuses/{target['id']}/unfavourite", headers=tokens["bob"])
    assert unliked.json()["favourites_count"] == 0  # bob's own view at once
    client.post(f"/api/v1/accounts/{ids_['alice']}/unfollow", headers=tokens["dave"])
    every_counter_job_twice(runtime, drain)
    assert counts_of(client, target["id"]) == (1, 0, 0)
    assert account(client, ids_["alice"])["followers_count"] == 0


def test_a_like_undone_before_the_worker_counted_it_is_never_counted(
        client, people, runtime, drain, monkeypatch, no_backoff):
    _, tokens = people
    target = post(client, tokens["alice"], status="quick")
    drain()
    ddb, fake, _ = cancelled(only=adds_to_counters)
    monkeypatch.setattr(ddb, "transact_write_items", fake)
    client.post(f"/api/v1/statuses/{target['id']}/favourite", headers=tokens["bob"])
    monkeypatch.undo()
    undone = client.post(f"/api/v1/statuses/{target['id']}/unfavourite", headers=tokens["bob"])
    assert undone.json()["favourites_count"] == 0
    drain()
    assert counts_of(client, target["id"]) == (0, 0, 0)


def test_counted_jobs_redelivered_change_nothing(client, people, runtime, drain):
    ids_, tokens = people
    target = post(client, tokens["alice"], status="once")
    client.post(f"/api/v1/statuses/{target['id']}/favourite", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{target['id']}/reblog", headers=tokens["carol"])
    post(client, tokens["dave"], status="@alice hi", in_reply_to_id=target["id"])
    follow(client, tokens["bob"], ids_["alice"])
    every_counter_job_twice(runtime, drain)
    assert counts_of(client, target["id"]) == (1, 1, 1)
    assert account(client, ids_["alice"])["followers_count"] == 1
    assert account(client, ids_["alice"])["statuses_count"] == 1
    # removals made by requests, delivered twice: counted down once (by the request)
    client.post(f"/api/v1/statuses/{target['id']}/unfavourite", headers=tokens["bob"])
    client.post(f"/api/v1/statuses/{target['id']}/unreblog", headers=tokens["carol"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/unfollow", headers=tokens["bob"])
    every_counter_job_twice(runtime, drain)
    assert counts_of(client, target["id"]) == (1, 0, 0)
    assert account(client, ids_["alice"])["followers_count"] == 0
    assert account(client, ids_["carol"])["statuses_count"] == 0


def test_a_rolled_back_write_counts_nothing(client, people, drain):
    """A follow refused by a block (its transaction cancelled) and a like of a status whose
    counters are gone (deleted meanwhile) leave every count as it was."""
    ids_, tokens = people
    client.post(f"/api/v1/accounts/{ids_['alice']}/block", headers=tokens["bob"])
    refused = client.post(f"/api/v1/accounts/{ids_['bob']}/follow", headers=tokens["alice"])
    assert refused.status_code == 403
    assert account(client, ids_["bob"])["followers_count"] == 0
    assert account(client, ids_["alice"])["following_count"] == 0
    gone = post(client, tokens["carol"], status="soon gone")
    stored = statuses_repo.get(gone["id"])
    base.delete(keys.status_stats(gone["id"]))  # the status's counters went first
    assert interactions_repo.favourite(ids_["dave"], stored) is True  # the like is kept
    drain()
    assert account(client, ids_["bob"])["followers_count"] == 0
    assert base.get(keys.status_stats(gone["id"])) is None  # nothing revived


FANS = 1000


def test_a_viral_status_throttles_neither_its_likers_nor_anyone_else(
        client, people, runtime, drain, monkeypatch, no_backoff):  # about 20 s
    """1,000 likes of one status within one second, with DynamoDB's partition limit applied to
    transactions (1,000 write units a second per item; a transactional write costs 2): no like
    fails, the status's counters are left to the stream's worker once they are hot, another
    status liked meanwhile is still counted in its request, and the final count is exact."""
    ids_, tokens = people
    viral = statuses_repo.get(post(client, tokens["alice"], status="viral")["id"])
    quiet = statuses_repo.get(post(client, tokens["bob"], status="quiet")["id"])
    drain()
    used: dict[str, int] = {}
    ddb = dynamodb()
    real = ddb.transact_write_items
    throttled = {"n": 0}

    def partition_limited(**kwargs):
        items = kwargs["TransactItems"]
        touched = [next(iter(i.values()))["Key" if "Key" in next(iter(i.values())) else "Item"]
                   for i in items]
        names = [f"{k['PK']['S']}/{k['SK']['S']}" for k in touched]
        if any(used.get(n, 0) + 2 > 1000 for n in names):
            throttled["n"] += 1
            reasons = [{"Code": "ThrottlingError" if used.get(n, 0) + 2 > 1000 else "None"}
                       for n in names]
            error = {"Error": {"Code": "TransactionCanceledException", "Message": "throttled"},
                     "CancellationReasons": reasons}
            raise ddb.exceptions.TransactionCanceledException(error, "TransactWriteItems")
        for n in names:
            used[n] = used.get(n, 0) + 2
        return real(**kwargs)

    monkeypatch.setattr(ddb, "transact_write_items", partition_limited)
    fans = [str(900_000_000 + i) for i in range(FANS)]
    assert all(interactions_repo.favourite(fan, viral) for fan in fans)
    assert interactions_repo.favourite(ids_["carol"], quiet) is True
    assert statuses_repo.get(quiet["id"])["stats"]["favourites_count"] == 1  # counted at once
    assert throttled["n"] == counters_repo.ATTEMPTS  # found hot once, then left to the worker
    assert 0 < statuses_repo.get(viral["id"])["stats"]["favourites_count"] < FANS
    monkeypatch.undo()  # a second later: the worker's aggregated writes are within the limit
    dispatch_only(runtime)  # the stream's jobs; then only the counters worker (the notifications
    counters_queue = next(q for q in runtime.pipeline.queues if q.queue == "CountersQueue")
    while runtime.pipeline.pump_queue(counters_queue):  # of 1,000 likes are another test's)
        pass
    assert statuses_repo.get(viral["id"])["stats"]["favourites_count"] == FANS
    assert client.get(f"/api/v1/statuses/{viral['id']}").json()["favourites_count"] == FANS


def test_recount_mends_corrupted_counts(client, people, drain, monkeypatch, capsys):
    from stratusctl import cli

    ids_, tokens = people
    target = post(client, tokens["alice"], status="count me")
    client.post(f"/api/v1/statuses/{target['id']}/favourite", headers=tokens["bob"])
    post(client, tokens["bob"], status="@alice yes", in_reply_to_id=target["id"])
    follow(client, tokens["carol"], ids_["alice"])
    drain()
    base.update(keys.status_stats(target["id"]),
                "SET favourites_count = :f, replies_count = :r, reblogs_count = :b",
                vals={":f": 42, ":r": 5, ":b": 3})
    base.update(keys.account_stats(ids_["alice"]),
                "SET followers_count = :f, statuses_count = :s", vals={":f": 7, ":s": 0})
    assert counts_of(client, target["id"]) == (5, 3, 42)
    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    assert cli.main(["statuses", "recount", target["id"]]) == 0
    assert cli.main(["accounts", "recount", "alice"]) == 0
    out = capsys.readouterr().out
    assert "favourites_count 42 -> 1" in out and "followers_count 7 -> 1" in out
    assert counts_of(client, target["id"]) == (1, 0, 1)
    alice = account(client, ids_["alice"])
    assert (alice["followers_count"], alice["statuses_count"]) == (1, 1)
    assert cli.main(["statuses", "recount", target["id"]]) == 0  # nothing left to mend
    assert capsys.readouterr().out.strip().endswith(": ok")
    assert cli.main(["accounts", "recount", "nobody"]) == 1


def test_a_throttled_counted_write_is_written_alone_not_failed(client, people, drain,
                                                                 monkeypatch, no_backoff):
    """DynamoDB's ThrottlingException (what botocore raises once its own retries are spent) on
    the counted write is contention like a cancelled transaction: the like is written alone
    (200) and counted by the worker; a write that stays throttled is a 429, never a 500."""
    _, tokens = people
    target = post(client, tokens["alice"], status="throttled")
    drain()
    ddb = dynamodb()
    real = ddb.transact_write_items
    calls = {"n": 0, "limit": 1}

    def throttled(**kwargs):
        calls["n"] += 1
        if calls["n"] <= calls["limit"]:
            raise ddb.exceptions.ClientError(
                {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}},
                "TransactWriteItems")
        return real(**kwargs)

    monkeypatch.setattr(ddb, "transact_write_items", throttled)
    liked = client.post(f"/api/v1/statuses/{target['id']}/favourite", headers=tokens["bob"])
    assert liked.status_code == 200 and liked.json()["favourites_count"] == 1
    assert calls["n"] == 2  # the counted write refused, the like alone written
    calls.update(n=0, limit=100)
    refused = client.post("/api/v1/statuses", headers=tokens["carol"], data={"status": "hi"})
    assert refused.status_code == 429
    monkeypatch.undo()
    drain()
    assert counts_of(client, target["id"]) == (0, 0, 1)
