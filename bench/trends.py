"""`make bench` (`python -m bench trends [POSTS]`): what the trends job costs after a day
of POSTS public posts (default 10,000).

The day is seeded as the workers leave it (workers/counters.py and workers/effects.py): each
post by one of 1,000 accounts carries 0–3 hashtags drawn from 2,000 by a Zipf law, each first use
of a hashtag by an account that day counts one distinct account and marks the hashtag a
candidate; three posts in ten get favourites and boosts (Zipf again), which marks them
candidates. Yesterday had the same hashtags at a similar level, except a few that are new today.
Then the refresh runs once through the local runtime (the real handler under its IAM role) with
every DynamoDB call charged the units the local DynamoDB reports (local/capacity.py), and the
review run once.
Monthly figures assume the refresh every five minutes at that load all month.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from typing import Any

from local import capacity
from .costs import PRICES
from local.lambda_runtime import invoke

ACCOUNTS, TAGS, NEW_TODAY = 1_000, 2_000, 12


def _zipf(rng: random.Random, n: int, s: float = 1.1) -> int:
    weights = _zipf.cache.get((n, s))
    if weights is None:
        weights = _zipf.cache[(n, s)] = [1 / (k ** s) for k in range(1, n + 1)]
    return rng.choices(range(n), weights=weights)[0]


_zipf.cache = {}


def seed(posts: int, rng: random.Random) -> dict[str, int]:
    from stratus.core import clock, ids
    from stratus.model import tags as tags_model
    from stratus.repo import base, keys, trends

    now = clock.now()
    today, yesterday = clock.day_key(now), clock.day_key(now - __import__("datetime").timedelta(days=1))
    epoch = int(now.timestamp())
    accounts = [ids.new_id() for _ in range(ACCOUNTS)]
    for account_id in accounts:
        base.put({**keys.account_profile(account_id), "type": "profile", "id": account_id,
                  "username": f"u{account_id}", "discoverable": True})
    users: dict[str, set[str]] = defaultdict(set)
    uses: Counter[str] = Counter()
    interacted = 0
    for n in range(posts):
        author = accounts[_zipf(rng, ACCOUNTS, 0.8)]
        names = {f"tag{_zipf(rng, TAGS)}" for _ in range(rng.choice((0, 1, 1, 2, 3)))}
        for name in names:
            users[name].add(author)
            uses[name] += 1
        if rng.random() < 0.3:
            status_id = ids.new_id()
            base.put({**keys.status(status_id), "type": "status", "id": status_id,
                      "account_id": author, "visibility": "public", "created_at":
                      clock.iso(now - __import__("datetime").timedelta(seconds=rng.randint(0, 86400)))})
            hits = 1 + _zipf(rng, 200)
            base.put({**keys.status_stats(status_id), "favourites_count": hits,
                      "reblogs_count": hits // 3})
            base.put({**keys.trend_candidate("statuses", today, status_id),
                      **trends.candidate_item("statuses", today, status_id, epoch)})
            interacted += 1
    fresh = set(rng.sample(sorted(users), min(NEW_TODAY, len(users))))
    for name, who in users.items():
        stats = {tags_model.history_attribute(tags_model.ACCOUNTS, today): len(who),
                 tags_model.history_attribute(tags_model.USES, today): uses[name]}
        if name not in fresh:
            stats[tags_model.history_attribute(tags_model.ACCOUNTS, yesterday)] = max(
                1, int(len(who) * rng.uniform(0.6, 1.4)))
            base.put({**keys.trend_candidate("tags", yesterday, name),
                      **trends.candidate_item("tags", yesterday, name, epoch)})
        base.put({**keys.tag_stats(name), "type": "tag_stats", "name": name, **stats})
        base.put({**keys.trend_candidate("tags", today, name),
                  **trends.candidate_item("tags", today, name, epoch)})
    return {"posts": posts, "hashtags used": len(users), "hashtag uses": sum(uses.values()),
            "distinct account-hashtag pairs": sum(len(w) for w in users.values()),
            "statuses interacted with": interacted}


def measure(runtime: Any, task: str) -> dict[str, Any]:
    from stratus.repo.client import dynamodb

    meter = capacity.Meter()
    charges: list[tuple[str, capacity.Charge]] = []
    meter.attach(dynamodb(), lambda operation, charged: charges.append((operation, charged)))
    started = time.perf_counter()
    try:
        result = invoke(runtime.stack, "TrendsScheduleFunction", {"task": task})
    finally:
        meter.detach(dynamodb())
    seconds = time.perf_counter() - started
    total = capacity.Charge()
    for _, charged in charges:
        total += charged
    return {"result": result, "calls": dict(Counter(op for op, _ in charges)),
            "read_units": total.read, "write_units": total.write + total.index_write,
            "seconds": seconds}


def run(runtime: Any, posts: int = 10_000) -> dict[str, Any]:
    rng = random.Random(7)
    seeded = seed(posts, rng)
    print(f"\nTrends job after a day of {posts:,} public posts")
    print("  seeded: " + ", ".join(f"{k} {v:,}" for k, v in seeded.items()))
    memory_gb = 512 / 1024
    out = {"seeded": seeded}
    for task in ("refresh", "review"):
        m = measure(runtime, task)
        out[task] = m
        ddb = (m["read_units"] * PRICES["dynamodb_read_unit"]
               + m["write_units"] * PRICES["dynamodb_write_unit"])
        lam = m["seconds"] * memory_gb * PRICES["lambda_gb_second"] + PRICES["lambda_request"]
        calls = ", ".join(f"{op} {n}" for op, n in sorted(m["calls"].items()))
        print(f"  {task:8} {sum(m['calls'].values()):5d} DynamoDB calls ({calls}); "
              f"{m['read_units']:.1f} RRU, {m['write_units']:.1f} WRU; "
              f"{m['seconds']:.2f} s locally; ${ddb + lam:.6f} a run -> {m['result']}")
        if task == "refresh":
            runs = 12 * 24 * 30
            print(f"           every 5 minutes for 30 days at this load: {runs:,} runs, "
                  f"${(ddb + lam) * runs:.2f} a month (DynamoDB ${ddb * runs:.2f}, "
                  f"Lambda ${lam * runs:.2f} at 512 MB and the local duration)")
    return out
