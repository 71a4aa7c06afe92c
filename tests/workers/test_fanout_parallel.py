"""Fan-out in parallel pages (workers/fanout.py): a post's followers are split into ranges of
follow ids that never overlap and always cover them, so every follower is delivered to exactly
once, in far fewer sequential steps than pages; every job delivered again (SQS redelivers)
hands out the same batches, so nobody gets the post, its notification or its stream event
twice."""

from __future__ import annotations

import random
import sys
from collections import Counter

import pytest
from stratus.core import clock, ids
from stratus.jobs import messages as jobs
from stratus.jobs import outbox
from stratus.model.relationships import FollowOptions
from stratus.repo import base, feeds, keys, relationships
from stratus.repo import effects as effects_repo
from stratus.repo.queues import send
from stratus.workers import fanout

from tests.rig import auth, make_app, make_user, post, user_token

FOLLOWERS = 90
NOTIFIED = 3  # followers (real users) who asked to be told of new posts


@pytest.mark.parametrize("low,high,count", [(0, 100, 4), (10, 11, 4), (5, 8, 4),
                                             (1000, 10**18, 4), (7, 7, 4), (0, 1, 1)])
def test_parts_cover_a_range_once(low, high, count):
    found = fanout.parts(str(low), str(high), count)
    assert len(found) <= count
    covered = []
    previous = low
    for after, until in found:
        assert int(after) == previous and int(until) > int(after)  # contiguous, none empty
        previous = int(until)
    if high > low:
        assert previous == high
        covered = [(int(a), int(u)) for a, u in found]
        assert sum(u - a for a, u in covered) == high - low
    else:
        assert found == []


def _worker(runtime):
    name = "stratus_fn_FanoutFunction"
    if name not in sys.modules:
        runtime.stack.handler("FanoutFunction")
    return sys.modules[name]


def test_a_post_reaches_every_follower_once_in_parallel_pages_even_redelivered(
        client, people, runtime, drain, monkeypatch):
    monkeypatch.setattr(fanout, "FOLLOWERS_PAGE", 5)
    monkeypatch.setattr(fanout, "BATCH", 3)
    monkeypatch.setattr(fanout, "SPLIT", 3)
    ids_, tokens = people
    author = ids_["alice"]
    # Followers who followed over two years, most of them lately (as a growing account's are).
    now_ms = ids.timestamp_ms(ids.new_id())
    rng = random.Random(22)
    year_ms = 365 * 86400 * 1000
    follows, metas, followers = [], [], []
    for _ in range(FOLLOWERS - NOTIFIED):
        follower = ids.new_id()
        followers.append(follower)
        follow_id = ids.new_id(now_ms - int(2 * year_ms * rng.random() ** 3) - 1000)
        follows.append(relationships.follow_item(follow_id, follower, author, FollowOptions(),
                                                 authorized=True))
    app = make_app(client)
    told = []
    for i in range(NOTIFIED):
        fan = make_user(f"told{i}")
        headers = auth(user_token(app, fan))
        client.get("/api/v1/timelines/home", headers=headers)  # an active feed
        response = client.post(f"/api/v1/accounts/{author}/follow", headers=headers,
                               data={"notify": "true"})
        assert response.status_code == 200
        told.append(fan)
    relationships.put_many(follows)
    clock_now = clock.epoch()
    for follower in followers:
        metas.append({**keys.feed_meta(keys.home_feed(follower)), "state": "ready",
                      "active_until": feeds.active_until(clock_now)})
    base.write_many(puts=metas, table_name=feeds._table())
    drain()

    worker = _worker(runtime)
    handled: list[jobs.Job] = []
    depth: dict[tuple[str | None, str | None], int] = {}
    current: list[int] = [0]
    real_enqueue = fanout._enqueue

    def enqueue(*messages):
        for message in messages:
            if isinstance(message, jobs.FanOut):
                depth.setdefault((message.after, message.until), current[0] + 1)
        real_enqueue(*messages)

    def fan_out(job):
        handled.append(job)
        current[0] = depth.setdefault((job.after, job.until), 0)
        return fanout.fan_out(job)

    monkeypatch.setattr(fanout, "_enqueue", enqueue)
    monkeypatch.setitem(worker.HANDLERS, jobs.FanOut, fan_out)
    monkeypatch.setitem(worker.HANDLERS, jobs.Deliver,
                        lambda job: handled.append(job) or fanout.deliver(job))
    status = post(client, tokens["alice"], status="to every follower, once")
    drain(max_rounds=1000)

    everyone = [*followers, *told]
    delivered = Counter(r for job in handled if isinstance(job, jobs.Deliver)
                        for r in job.receivers)
    assert delivered == Counter([*everyone, author])  # each follower in exactly one batch
    table = feeds._table()
    for follower in everyone:
        assert base.get(keys.feed_entry(keys.home_feed(follower), status["id"]),
                        table_name=table) is not None
    pages = [job for job in handled if isinstance(job, jobs.FanOut)]
    chain = -(-FOLLOWERS // fanout.FOLLOWERS_PAGE)  # a chain: one step per page (18 here)
    steps = max(depth.values()) + 1
    assert steps < chain / 2, (steps, chain)
    assert all(job.until is not None for job in pages)  # bounded from the stream event on
    first_batches = sorted(tuple(job.receivers) for job in handled
                           if isinstance(job, jobs.Deliver))

    # SQS delivers every one of those jobs again: the same batches, and nothing twice.
    handled.clear()
    send("fanout", [job.to_dict() for job in pages])
    drain(max_rounds=1000)
    again = {tuple(job.receivers) for job in handled if isinstance(job, jobs.Deliver)}
    assert again == set(first_batches)
    for fan in told:
        notes = [n for n in effects_repo.notifications(fan)
                 if n["notification_type"] == "status"]
        assert len(notes) == 1


def test_a_redelivered_stream_event_bounds_its_fan_out_alike():
    """The outbox derives `until` from the stream record, so a redelivered record (or the
    dispatcher run twice) makes the same job, split into the same parts."""
    record = {"eventID": "e1", "eventName": "INSERT",
              "dynamodb": {"ApproximateCreationDateTime": 1795700000.0,
                           "Keys": {"PK": {"S": "STATUS#00000000000000000001"},
                                    "SK": {"S": "STATUS"}},
                           "NewImage": {"PK": {"S": "STATUS#00000000000000000001"},
                                        "SK": {"S": "STATUS"}, "type": {"S": "status"},
                                        "id": {"S": "1"}, "account_id": {"S": "2"},
                                        "visibility": {"S": "public"}}}}
    first = outbox.fan_out(outbox.decode(record))
    assert first == outbox.fan_out(outbox.decode(record))
    assert ids.timestamp_ms(first.until) == 1795700000000 + outbox.FAN_OUT_MARGIN_MS
