"""core/parallel.py: reads at once, in order, with the caller's context, and never stuck when
every worker is busy waiting (parts that gather parts of their own). No timing asserted."""

from __future__ import annotations

import contextvars
import threading

import pytest

from stratus.core import parallel

who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def test_results_come_in_the_order_asked_and_run_on_other_threads():
    threads = set()

    def part(n: int):
        threads.add(threading.get_ident())
        return n * n

    assert parallel.gather(*(lambda n=n: part(n) for n in range(10))) == [n * n for n in range(10)]
    assert parallel.gather() == []
    assert len(threads) > 1


def test_each_part_sees_the_callers_context():
    token = who.set("alice")
    try:
        assert parallel.gather(*(who.get for _ in range(5))) == ["alice"] * 5
        assert parallel.start(who.get).result() == "alice"
    finally:
        who.reset(token)


def test_an_error_of_one_part_is_raised():
    def broken():
        raise ValueError("no")

    with pytest.raises(ValueError):
        parallel.gather(lambda: 1, broken, lambda: 3)


def test_parts_gathering_parts_never_starve_the_pool():
    # More waiting parts than workers: each waits for parts of its own that no free worker
    # may be left to start; whoever waits takes queued work back and runs it.
    def inner(n: int) -> int:
        return sum(parallel.gather(*(lambda m=m: m for m in range(n % 5 + 2))))

    outer = [lambda n=n: inner(n) for n in range(parallel.WORKERS * 3)]
    assert parallel.gather(*outer) == [sum(range(n % 5 + 2)) for n in range(parallel.WORKERS * 3)]


def test_detached_work_runs_marked_and_nobody_waits_for_it():
    done = threading.Event()
    seen = []

    def background():
        seen.append(parallel.is_detached())
        done.set()

    assert not parallel.is_detached()
    parallel.detached(background)
    assert done.wait(10)
    assert seen == [True]
    assert not parallel.is_detached()
