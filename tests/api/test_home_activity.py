"""Who is fed: an account that used the API (any request needing a user) within a week gets
fan-out and `status` notifications, as Mastodon's followers_for_local_distribution; one idle
for longer gets nothing, and when it comes back (any request) its home is rebuilt, the home
timeline answering 206 meanwhile."""

from __future__ import annotations

import sys
from datetime import timedelta

import pytest

from stratus.core import clock
from stratus.jobs import messages as jobs
from stratus.repo import base, keys
from stratus.repo import effects as effects_repo
from stratus.repo import statuses as statuses_repo

from tests.rig import follow, home, post


def _weeks_ago_follow(monkeypatch, client, drain, headers, target_id, days=8):
    """Follow `target_id` (asking to be told of posts) with the clock `days` back: the
    follower's last use of the API, then."""
    real_now = clock.now
    with monkeypatch.context() as m:
        m.setattr(clock, "now", lambda: real_now() - timedelta(days=days))
        follow(client, headers, target_id, notify="true")
        drain()


def _in_home(client, account_id, status_id) -> bool:
    table = client.app.stack.table_names["FeedTable"]
    return base.get(keys.feed_entry(keys.home_feed(account_id), status_id),
                    table_name=table) is not None


def _told(account_id) -> list[str]:
    return [n["status_id"] for n in effects_repo.notifications(account_id)
            if n["notification_type"] == "status"]


def _refresh(client, headers, account_id) -> str:
    return client.get(f"/api/v1_alpha/async_refreshes/home-{account_id}",
                      headers=headers).json()["async_refresh"]["status"]


@pytest.fixture
def fanout_worker(runtime):
    runtime.stack.handler("FanoutFunction")
    return sys.modules["stratus_fn_FanoutFunction"]


def test_any_request_keeps_an_account_fed_and_told(client, people, drain, monkeypatch):
    """Neither alice nor carol reads her home: alice reads her notifications, carol checks
    her credentials; both get bob's new post at home and a `status` notification."""
    ids_, tokens = people
    for name in ("alice", "carol"):
        _weeks_ago_follow(monkeypatch, client, drain, tokens[name], ids_["bob"], days=20)
    assert client.get("/api/v1/notifications", headers=tokens["alice"]).status_code == 200
    assert client.get("/api/v1/accounts/verify_credentials",
                      headers=tokens["carol"]).status_code == 200
    drain()
    news = post(client, tokens["bob"], status="news")
    drain()
    for name in ("alice", "carol"):
        assert _in_home(client, ids_[name], news["id"])
        assert _told(ids_[name]) == [news["id"]]


def test_a_week_idle_account_is_not_fed_and_is_rebuilt_when_it_returns(client, people, drain,
                                                                       monkeypatch):
    ids_, tokens = people
    _weeks_ago_follow(monkeypatch, client, drain, tokens["alice"], ids_["bob"])
    while_away = post(client, tokens["bob"], status="while alice was away")
    drain()
    assert not _in_home(client, ids_["alice"], while_away["id"])
    assert _told(ids_["alice"]) == []
    # Back, with any request; the home read that follows answers 206 until the rebuild is done.
    assert client.get("/api/v1/notifications", headers=tokens["alice"]).status_code == 200
    response = client.get("/api/v1/timelines/home", headers=tokens["alice"])
    assert response.status_code == 206
    assert response.headers["mastodon-async-refresh"] == f'id="home-{ids_["alice"]}", retry=3'
    assert _refresh(client, tokens["alice"], ids_["alice"]) == "running"
    drain()
    assert home(client, tokens["alice"]) == [while_away["id"]]
    assert _refresh(client, tokens["alice"], ids_["alice"]) == "finished"
    assert _told(ids_["alice"]) == []  # a rebuild brings posts back, not notifications
    back = post(client, tokens["bob"], status="welcome back")
    drain()
    assert home(client, tokens["alice"]) == [back["id"], while_away["id"]]
    assert _told(ids_["alice"]) == [back["id"]]


def test_returning_without_reading_home_starts_the_rebuild(client, people, drain, monkeypatch,
                                                           fanout_worker):
    """The day's first request (not a home read) marks the feed: the fan-out worker finds it
    idle and has it rebuilt; a home read while that runs answers 206, then the full feed."""
    ids_, tokens = people
    _weeks_ago_follow(monkeypatch, client, drain, tokens["alice"], ids_["bob"])
    while_away = post(client, tokens["bob"], status="while alice was away")
    drain()
    held: list[jobs.RegenerateHome] = []
    with monkeypatch.context() as m:
        m.setitem(fanout_worker.HANDLERS, jobs.RegenerateHome, held.append)
        assert client.get("/api/v1/accounts/verify_credentials",
                          headers=tokens["alice"]).status_code == 200
        drain()
    assert [j.account_id for j in held] == [ids_["alice"]]
    response = client.get("/api/v1/timelines/home", headers=tokens["alice"])
    assert response.status_code == 206 and response.json() == []
    from stratus.workers import fanout

    for job in held:
        fanout.regenerate_home(job)
    drain()
    assert home(client, tokens["alice"]) == [while_away["id"]]
    assert _refresh(client, tokens["alice"], ids_["alice"]) == "finished"


def test_redelivered_jobs_change_nothing(client, people, runtime, drain, monkeypatch,
                                        fanout_worker):
    """The day's activity job and a post's fan-out, each delivered twice: one rebuild, one
    home entry, one `status` notification."""
    from stratus.repo.queues import send
    from stratus.workers import fanout

    ids_, tokens = people
    _weeks_ago_follow(monkeypatch, client, drain, tokens["alice"], ids_["bob"])
    rebuilds: list[str] = []
    monkeypatch.setitem(fanout_worker.HANDLERS, jobs.RegenerateHome,
                        lambda job: rebuilds.append(job.account_id) or fanout.regenerate_home(job))
    assert client.get("/api/v1/notifications", headers=tokens["alice"]).status_code == 200
    drain()
    send("fanout", [jobs.AccountActive(account_id=ids_["alice"],
                                    day=clock.day_key(clock.now())).to_dict()])
    drain()
    assert rebuilds.count(ids_["alice"]) == 1
    news = post(client, tokens["bob"], status="news")
    drain()
    send("fanout", [jobs.FanOut(status=fanout.fields_of(statuses_repo.get(news["id"]))).to_dict()])
    drain()
    assert home(client, tokens["alice"]) == [news["id"]]
    assert _told(ids_["alice"]) == [news["id"]]
    assert rebuilds.count(ids_["alice"]) == 1  # (bob's first request today rebuilt his)
