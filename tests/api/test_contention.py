"""Contention: many accounts acting on one item at once through the local stack (threads against
the local API Gateway), and DynamoDB's transaction conflicts, which the emulator never produces
(it applies one request at a time) and which are therefore injected as DynamoDB reports them."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

from stratus.repo import base, keys
from stratus.repo import counters as counters_repo
from stratus.repo import effects as effects_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo.client import dynamodb

from tests.rig import (
    adds_to_counters,
    app_token,
    auth,
    cancelled,
    make_app,
    make_user,
    post,
    user_token,
)


def call(runtime, method: str, path: str, *, headers: dict | None = None,
         data: dict | None = None, ip: str = "127.0.0.1") -> tuple[int, dict, object]:
    """One request through the local API Gateway, from a client address of our choosing."""
    body = urlencode(data or {}).encode()
    raw_headers = [(b"host", b"localhost:8000"),
                   (b"content-type", b"application/x-www-form-urlencoded")]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
             "query_string": b"", "headers": raw_headers, "client": (ip, 40000)}
    status, response_headers, payload = runtime.gateway.handle(scope, body)
    return status, {k.decode(): v.decode() for k, v in response_headers}, json.loads(payload)


def crowd(client, size: int) -> list[dict[str, str]]:
    app = make_app(client)
    return [auth(user_token(app, make_user(f"fan{i}"), scopes=("read", "write")))
            for i in range(size)]


def at_once(fn, arguments) -> list:
    with ThreadPoolExecutor(max_workers=32) as pool:
        return list(pool.map(fn, arguments))


def test_a_hundred_concurrent_likes_all_succeed_and_count_exactly(client, people, runtime,
                                                                   drain):
    ids_, tokens = people
    status = post(client, tokens["alice"], status="going viral")
    fans = crowd(client, 100)
    path = f"/api/v1/statuses/{status['id']}/favourite"
    answers = at_once(lambda headers: call(runtime, "POST", path, headers=headers), fans)
    assert [code for code, _, _ in answers] == [200] * 100
    assert all(body["favourited"] is True for _, _, body in answers)
    # counted in the requests: the next read has them all
    assert client.get(f"/api/v1/statuses/{status['id']}").json()["favourites_count"] == 100
    drain()
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 100
    notes = effects_repo.notifications(ids_["alice"])
    assert len(notes) == 100 and {n["notification_type"] for n in notes} == {"favourite"}
    # Everyone's like again (a retrying client) changes nothing.
    at_once(lambda headers: call(runtime, "POST", path, headers=headers), fans)
    drain()
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 100
    assert client.get(f"/api/v1/statuses/{status['id']}").json()["favourites_count"] == 100


def test_fifty_concurrent_boosts_all_succeed_and_count_exactly(client, people, runtime,
                                                                    drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="boost me")
    fans = crowd(client, 50)
    path = f"/api/v1/statuses/{status['id']}/reblog"
    answers = at_once(lambda headers: call(runtime, "POST", path, headers=headers), fans)
    assert [code for code, _, _ in answers] == [200] * 50
    assert len({body["id"] for _, _, body in answers}) == 50
    drain()
    assert client.get(f"/api/v1/statuses/{status['id']}").json()["reblogs_count"] == 50
    fan = client.get("/api/v1/accounts/verify_credentials", headers=fans[0]).json()
    assert fan["statuses_count"] == 1  # a boost is a status of the booster's


def test_fifty_concurrent_sign_ups_for_one_username(client, runtime, drain):
    app = make_app(client)
    tokens = [app_token(client, app) for _ in range(50)]
    drain()  # the stack is running: its stream is being read while sign-ups are refused

    def sign_up(index: int):
        return call(runtime, "POST", "/api/v1/accounts", headers=auth(tokens[index]),
                    ip=f"198.51.100.{index + 1}",
                    data={"username": "popular", "email": f"p{index}@example.org",
                          "password": "a good password", "agreement": "true"})

    answers = at_once(sign_up, range(50))
    codes = sorted(code for code, _, _ in answers)
    assert codes == [200] + [422] * 49
    assert all(body["details"]["username"][0]["error"] == "ERR_TAKEN"
               for code, _, body in answers if code == 422)
    from stratus.repo import accounts as accounts_repo

    assert accounts_repo.id_by_handle("popular") is not None
    assert sum(accounts_repo.id_by_email(f"p{i}@example.org") is not None
               for i in range(50)) == 1
    # The 49 refused sign-ups left nothing behind, and the one that won gets its side effects.
    drain()
    assert len(runtime.mailbox.collect()) == 1
    assert client.get("/nodeinfo/2.0").json()["usage"]["users"]["total"] == 1


# --- injected transaction conflicts ---------------------------------------------------------------
def test_a_conflicting_transaction_is_retried(client, people, monkeypatch, no_backoff):
    _, tokens = people
    ddb, fake, calls = cancelled(times=2)
    monkeypatch.setattr(ddb, "transact_write_items", fake)
    response = client.post("/api/v1/statuses", headers=tokens["alice"], data={"status": "hi"})
    assert response.status_code == 200, response.text
    assert calls["conflicts"] == 2
    listed = client.get(f"/api/v1/accounts/{response.json()['account']['id']}/statuses").json()
    assert [s["id"] for s in listed] == [response.json()["id"]]


def test_a_conflict_that_persists_is_a_retryable_429_not_a_500(client, people, monkeypatch,
                                                                no_backoff):
    ids_, tokens = people
    ddb, fake, calls = cancelled(times=None)
    monkeypatch.setattr(ddb, "transact_write_items", fake)
    response = client.post("/api/v1/statuses", headers=tokens["alice"], data={"status": "hi"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    assert response.json() == {"error": "This resource is busy; try again in a moment"}
    # the counted transaction is tried twice, then the status alone (its counts left to the
    # stream's worker) as often as any transaction
    assert calls["conflicts"] == counters_repo.ATTEMPTS + base.CONFLICT_ATTEMPTS
    monkeypatch.undo()
    assert client.get(f"/api/v1/accounts/{ids_['alice']}/statuses").json() == []


def test_counter_jobs_under_conflict_are_redelivered_and_count_once(client, people, runtime,
                                                                    drain, monkeypatch,
                                                                    no_backoff):
    _, tokens = people
    status = post(client, tokens["alice"], status="contended")
    drain()

    # The status's counters are contended when bob likes it: his like is written alone (200),
    # and the status is left to the stream's worker for a while — carol's and dave's likes do
    # not try to count it.
    ddb, fake, calls = cancelled(times=None, only=adds_to_counters)
    monkeypatch.setattr(ddb, "transact_write_items", fake)
    for name in ("bob", "carol", "dave"):
        liked = client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens[name])
        assert liked.status_code == 200 and liked.json()["favourites_count"] == 1  # their own
    assert calls["conflicts"] == counters_repo.ATTEMPTS
    monkeypatch.undo()
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 0
    # Conflicts for one whole attempt of the worker: it reports its messages as failed.
    ddb, fake, calls = cancelled(times=base.CONFLICT_ATTEMPTS, only=adds_to_counters)
    monkeypatch.setattr(ddb, "transact_write_items", fake)
    runtime.pipeline.pump()  # stream → dispatch → queues → workers, once
    assert calls["conflicts"] == base.CONFLICT_ATTEMPTS
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 0
    drain()
    assert statuses_repo.get(status["id"])["stats"]["favourites_count"] == 3


def test_a_batch_of_likes_is_one_counter_write(runtime):
    """A hundred likes of one status in one worker batch: one transaction, exact count."""
    from stratus.jobs.messages import Count
    from stratus.workers import counters

    base.put({**keys.status_stats("7"), "type": "status_stats", "replies_count": 0,
              "reblogs_count": 0, "favourites_count": 0})
    for i in range(100):
        base.put({**keys.favourite(str(1000 + i), "7"), "type": "fav"})
    batch = [(f"m{i}", Count(event_id=f"e{i}", event="INSERT", item_type="fav",
                             item={"account_id": str(1000 + i), "status_id": "7"}))
             for i in range(100)]
    ddb = dynamodb()
    writes = []
    ddb.meta.events.register("provide-client-params.dynamodb.TransactWriteItems",
                             lambda params, **_: writes.append(len(params["TransactItems"])))
    try:
        assert counters.apply_batch(batch) == []
        assert counters.apply_batch(batch) == []  # redelivered: guards hold, nothing counts
    finally:
        ddb.meta.events.unregister("provide-client-params.dynamodb.TransactWriteItems")
    assert base.get(keys.status_stats("7"))["favourites_count"] == 100
    # 97 guards + the counter item + the day's metrics item (interactions, announce area) +
    # the status's trend candidate for the day, then the last three likes with all three; on
    # redelivery every guard refuses at once and nothing is written.
    assert writes == [100, 6, 100, 6]
    assert base.get(keys.favourite("1000", "7"))["counted"] is True
