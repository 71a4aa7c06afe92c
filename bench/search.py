"""`python -m bench search` (and part of `make bench`): DynamoDB round trips and warm
handler time of a search of each type (docs/search.md), counted as the other request benches
count them (every DynamoDB call the request makes, authentication included)."""

from __future__ import annotations

import statistics
import time
from typing import Any

RUNS = 10
NAMES = ("alice", "alicia", "alina", "alison", "ali", "alister", "alma", "bob", "carol", "dave")


def _setup(runtime: Any) -> tuple[str, str]:
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.api.statuses import interactions
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.read import statuses as statuses_read
    from stratus.repo import oauth as oauth_repo

    app, _ = oauth.create_app("bench", "urn:ietf:wg:oauth:2.0:oob", "read write", None)
    people = []
    for n in range(120):  # 120 accounts, 84 of them with a word starting with "al"
        name = f"{NAMES[n % len(NAMES)]}{n}"
        account_id, _ = operator.operator_create(name, f"{name}@example.org", "bench password",
                                                 role=None, confirmed=True)
        token, raw = oauth.new_token(app, account_id, ["read", "write"])
        oauth_repo.put_token(token)
        people.append((identity.viewer_for_token(raw), raw))
    viewer, raw = people[0]
    last = None
    for i in range(60):  # the viewer's own statuses and ones it liked: 120 with "tide"
        last = posting.create(viewer, {"status": f"the tide at dawn, note {i} #tide{i % 30}"})
        other = posting.create(people[1 + i % 20][0], {"status": f"tide tables {i}"})
        interactions.favourite(viewer, other)
    runtime.pipeline.drain()
    return raw, statuses_read.show(None, last)["url"]


def run(runtime: Any) -> None:
    from stratus.repo.client import dynamodb

    raw, url = _setup(runtime)
    calls = {"n": 0}

    def count(**_: Any) -> None:
        calls["n"] += 1

    dynamodb().meta.events.register("before-call.dynamodb", count)
    headers = [(b"host", b"localhost:8000"), (b"authorization", f"Bearer {raw}".encode())]
    cases = [
        ("accounts q=al limit=20", "/api/v2/search", "q=al&type=accounts&limit=20"),
        ("accounts q=al limit=40", "/api/v2/search", "q=al&type=accounts&limit=40"),
        ("accounts q=al offset=40 limit=40", "/api/v2/search",
         "q=al&type=accounts&limit=40&offset=40"),
        ("accounts q=@alice0 (exact)", "/api/v2/search", "q=%40alice0&type=accounts"),
        ("v1 accounts/search q=ali limit=5", "/api/v1/accounts/search", "q=ali&limit=5"),
        ("hashtags q=tide limit=20", "/api/v2/search", "q=tide&type=hashtags&limit=20"),
        ("statuses q=tide limit=20", "/api/v2/search", "q=tide&type=statuses&limit=20"),
        ("statuses q=tide limit=40", "/api/v2/search", "q=tide&type=statuses&limit=40"),
        ("statuses q='tide dawn' limit=20", "/api/v2/search",
         "q=tide+dawn&type=statuses&limit=20"),
        ("statuses by URL (resolve)", "/api/v2/search",
         f"q={url}&resolve=true&type=statuses"),
        ("all types q=tide limit=20", "/api/v2/search", "q=tide&limit=20"),
    ]
    print(f"\nSearch, 120 accounts, 120 statuses the viewer may find (median of {RUNS})")
    print(f"{'request':40} {'handler ms':>10} {'DynamoDB calls':>15}")
    try:
        for label, path, query in cases:
            scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                     "query_string": query.encode(), "headers": headers,
                     "client": ("127.0.0.1", 1)}
            runtime.gateway.handle(scope, b"")
            durations = []
            calls["n"] = 0
            for _ in range(RUNS):
                started = time.perf_counter()
                status, _, _ = runtime.gateway.handle(scope, b"")
                durations.append((time.perf_counter() - started) * 1000)
                assert status == 200, (path, query, status)
            print(f"{label:40} {statistics.median(durations):10.2f} {calls['n'] / RUNS:15.1f}")
    finally:
        dynamodb().meta.events.unregister("before-call.dynamodb", count)
