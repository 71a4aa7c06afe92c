"""core/warm.py: values kept for a while, and renewed in the background while they are used
(the viewer behind a token, role definitions, IP blocks, custom emoji)."""

from __future__ import annotations

import pytest
from stratus.core import warm


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(warm.time, "monotonic", lambda: now[0])
    return now


@pytest.fixture
def background(monkeypatch):
    """The work `get` starts in the background, held until the test runs it."""
    started = []
    monkeypatch.setattr(warm.parallel, "detached", started.append)
    return started


def test_a_value_in_use_is_renewed_once_past_half_its_time(clock, background):
    cache = warm.Keyed(ttl=10)
    cache.put("k", "old", cache.generation)
    loads = []

    def load():
        loads.append(1)
        return "new"

    assert cache.get("k", ahead=load) == "old" and background == []  # not yet half its time
    clock[0] += 6
    assert cache.get("k", ahead=load) == "old" and cache.get("k", ahead=load) == "old"
    assert len(background) == 1  # one renewal at a time
    background.pop()()
    assert loads == [1] and cache.get("k") == "new"
    clock[0] += 9  # 15 s after the first put: the renewed value lives on
    assert cache.get("k") == "new"
    clock[0] += 2
    assert cache.get("k") is None


def test_a_renewal_that_finds_nothing_drops_the_value(clock, background):
    cache = warm.Keyed(ttl=10)
    cache.put("k", "revoked soon", cache.generation)
    clock[0] += 6
    assert cache.get("k", ahead=lambda: None) == "revoked soon"
    background.pop()()
    assert cache.get("k") is None


def test_a_forget_wins_over_a_renewal_begun_before_it(clock, background):
    cache = warm.Keyed(ttl=10)
    cache.put("k", "old", cache.generation)
    clock[0] += 6
    cache.get("k", ahead=lambda: "read before the forget")
    cache.forget()
    background.pop()()
    assert cache.get("k") is None


def test_a_warm_value_renews_itself_while_used(clock, background):
    loads = []
    cache = warm.Warm(lambda: loads.append(1) or len(loads), ttl=10)
    assert cache.get() == 1 and background == []
    clock[0] += 6
    assert cache.get() == 1
    background.pop()()
    assert cache.get() == 2 and loads == [1, 1]
