"""`make bench`, timelines: DynamoDB round trips of a home timeline page (20 and 40), and the
fan-out of one post to 1,000 and 10,000 followers — write calls (the floor is one
BatchWriteItem per 25 entries), worker invocations and wall time on the local stack.

Run alone with `python -m bench timelines`.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

PAGE_RUNS = 10


class Calls:
    """DynamoDB calls per operation on the shared client, while counting."""

    def __init__(self) -> None:
        from stratus.repo.client import dynamodb

        self.by_operation: Counter[str] = Counter()
        self.trail: list[str] = []  # what each call read or wrote, in order
        self.client = dynamodb()
        self.client.meta.events.register("before-parameter-build.dynamodb", self._count)

    def _count(self, model: Any = None, params: Any = None, **_: Any) -> None:
        self.by_operation[model.name] += 1
        self.trail.append(f"{model.name} {_what(params or {})}")

    def reset(self) -> None:
        self.by_operation.clear()
        self.trail.clear()

    def total(self) -> int:
        return sum(self.by_operation.values())

    def close(self) -> None:
        self.client.meta.events.unregister("before-parameter-build.dynamodb", self._count)


def _kind(attribute: Any) -> str:
    """`{"S": "ACCT#000…12"}` → `ACCT#`: the kind of a key, for the trail."""
    from stratus.repo import keys

    text = str(next(iter(attribute.values()), "")) if isinstance(attribute, dict) else ""
    return keys.prefix_of(text) if "#" in text else text[:12]


def _what(params: dict[str, Any]) -> str:
    """One call, in a few words: table, index and the kinds of key it touched."""
    def table(name: str) -> str:
        return name.rsplit("-", 1)[-1]

    if "RequestItems" in params:  # BatchGetItem / BatchWriteItem
        parts = []
        for name, request in params["RequestItems"].items():
            keys = request["Keys"] if isinstance(request, dict) else [
                (r.get("PutRequest", {}).get("Item") or r.get("DeleteRequest", {}).get("Key"))
                for r in request]
            kinds = sorted({_kind(k.get("PK")) for k in keys})
            parts.append(f"{table(name)} {len(keys)} × {'/'.join(kinds)}")
        return ", ".join(parts)
    where = table(str(params.get("TableName", "")))
    if params.get("IndexName"):
        where += f" {params['IndexName']}"
    if "Key" in params:
        return f"{where} {_kind(params['Key'].get('PK'))} {_kind(params['Key'].get('SK'))}"
    values = params.get("ExpressionAttributeValues", {})
    return f"{where} {_kind(next(iter(values.values()), None))}"


def _viewer(name: str) -> tuple[str, str]:
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.repo import oauth as oauth_repo

    account_id, _ = operator.operator_create(name, f"{name}@example.org", "bench password",
                                             role=None, confirmed=True)
    app, _ = oauth.create_app(f"bench {name}", "urn:ietf:wg:oauth:2.0:oob", "read write follow",
                              None)
    token, raw = oauth.new_token(app, account_id, ["read", "write", "follow"])
    oauth_repo.put_token(token)
    return account_id, raw


def _get(runtime: Any, path: str, query: str, token: str) -> int:
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "client": ("127.0.0.1", 1),
             "headers": [(b"host", b"localhost:8000"),
                         (b"authorization", f"Bearer {token}".encode())]}
    status, _, _ = runtime.gateway.handle(scope, b"")
    return status


def home_pages(runtime: Any) -> list[tuple[str, float, float]]:
    """A reader following 10 accounts with 60 posts between them: (page, handler ms, calls)."""
    from stratus.api.graph import follows
    from stratus.api.statuses import post as posting
    from stratus.auth import identity

    _reader, reader_token = _viewer("reader")
    reader_viewer = identity.viewer_for_token(reader_token)
    _get(runtime, "/api/v1/timelines/home", "", reader_token)  # activates the feed
    runtime.pipeline.drain()
    for i in range(10):
        author, author_token = _viewer(f"author{i}")
        follows.follow(reader_viewer, author, {})
        writer = identity.viewer_for_token(author_token)
        for j in range(6):
            posting.create(writer, {"status": f"post {j} by author {i}"})
    runtime.pipeline.drain()
    calls = Calls()
    rows = []
    try:
        for limit in (20, 40):
            _get(runtime, "/api/v1/timelines/home", f"limit={limit}", reader_token)
            durations, counts = [], []
            for _ in range(PAGE_RUNS):
                calls.reset()
                started = time.perf_counter()
                assert _get(runtime, "/api/v1/timelines/home", f"limit={limit}",
                            reader_token) == 200
                durations.append((time.perf_counter() - started) * 1000)
                counts.append(calls.total())
            rows.append((f"GET /api/v1/timelines/home limit={limit}",
                         statistics.median(durations), statistics.median(counts)))
            if limit == 20:
                print("calls of one page of 20, in order:\n  " + "\n  ".join(calls.trail))
    finally:
        calls.close()
    return rows


def fan_out(runtime: Any, followers: int) -> dict[str, Any]:
    """One post by an account with `followers` active followers (written straight to the
    tables: the follows and active feeds as the graph and home reads leave them)."""
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.core import clock, ids
    from stratus.model.relationships import FollowOptions
    from stratus.repo import base, feeds, keys, relationships

    author, author_token = _viewer(f"popular{followers}")
    now = clock.epoch()
    follow_items, metas = [], []
    for i in range(followers):
        follower = ids.new_id()
        follow_items.append(relationships.follow_item(ids.new_id(), follower, author,
                                                      FollowOptions(), authorized=True))
        metas.append({**keys.feed_meta(keys.home_feed(follower)), "state": "ready",
                      "active_until": feeds.active_until(now)})
    relationships.put_many(follow_items)
    base.write_many(puts=metas, table_name=feeds._table())
    # The fixture's follows are data, not events: their own side effects (a follow
    # notification and a home merge each, ten thousand of them) are skipped, not measured.
    runtime.pipeline.skip_stream()

    invocations: Counter[str] = Counter()
    from local import lambda_runtime

    real_invoke = lambda_runtime.invoke

    def counting(stack, logical_id, event, request_id=None):
        if logical_id == "FanoutFunction":
            invocations["FanoutFunction"] += 1
        return real_invoke(stack, logical_id, event, request_id)

    lambda_runtime.invoke = counting
    import local.pipeline as pipeline_module

    pipeline_module.invoke = counting
    calls = Calls()
    try:
        started = time.perf_counter()
        status_id = posting.create(identity.viewer_for_token(author_token),
                                    {"status": "to all my followers"})
        runtime.pipeline.drain(max_rounds=10_000)
        wall = time.perf_counter() - started
    finally:
        lambda_runtime.invoke = real_invoke
        pipeline_module.invoke = real_invoke
        calls.close()
    from stratus.repo.client import client

    wanted = keys.feed_entry(keys.home_feed(author), status_id)["SK"]
    delivered = sum(
        page["Count"] for page in client("dynamodb").get_paginator("scan").paginate(
            TableName=feeds._table(), FilterExpression="SK = :sk",
            ExpressionAttributeValues={":sk": {"S": wanted}})) - 1  # less the author's own
    return {"followers": followers, "delivered": delivered,
            "batch_writes": calls.by_operation["BatchWriteItem"],
            "floor": -(-(followers + 1) // 25),
            "batch_gets": calls.by_operation["BatchGetItem"],
            "invocations": invocations["FanoutFunction"], "wall_s": wall}


def run(runtime: Any, sizes: tuple[int, ...] = (1000, 10000)) -> None:
    print("\nHome timeline (a reader following 10 accounts, 60 posts; median of "
          f"{PAGE_RUNS})")
    print(f"{'request':40} {'handler ms':>10} {'DynamoDB calls':>15}")
    for label, ms, count in home_pages(runtime):
        print(f"{label:40} {ms:10.2f} {count:15.1f}")
    print("\nFan-out of one post (all followers active)")
    print(f"{'followers':>9} {'delivered':>9} {'BatchWriteItem':>14} {'floor':>6} "
          f"{'BatchGetItem':>12} {'invocations':>11} {'wall s':>7}")
    for size in sizes:
        r = fan_out(runtime, size)
        print(f"{r['followers']:9} {r['delivered']:9} {r['batch_writes']:14} {r['floor']:6} "
              f"{r['batch_gets']:12} {r['invocations']:11} {r['wall_s']:7.1f}", flush=True)
