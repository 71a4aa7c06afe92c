"""The local stack's background pipeline (`Pipeline.run`, what `make dev` runs) sleeps while there
is nothing to do, and wakes when the emulator announces work or something falls due.

It used to poll everything four times a second (a quarter of a core with no traffic). No
latency is asserted here (that is `make bench`'s job); the bounds are seconds wide.
"""

from __future__ import annotations

import threading
import time

import pytest

from local import emulator


@pytest.fixture
def loop(runtime):
    """`Pipeline.run` in a background thread, as the dev server runs it."""
    pipeline = runtime.pipeline
    pipeline.drain()  # what start-up left
    stop = threading.Event()
    thread = threading.Thread(target=pipeline.run, args=(stop,), daemon=True)
    thread.start()
    yield pipeline
    stop.set()
    pipeline.wake()
    thread.join(10)
    assert not thread.is_alive()


def until(condition, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def settle(pipeline) -> int:
    """Wait until the loop has stopped making rounds; the rounds made so far."""
    last = -1
    while pipeline.rounds != last:
        last = pipeline.rounds
        time.sleep(0.3)
    return last


def test_an_idle_pipeline_sleeps(loop):
    before = settle(loop)
    time.sleep(1.5)
    # A loop polling every 0.25 s would have made six rounds.
    assert loop.rounds - before <= 1


def test_a_stream_record_wakes_it_and_is_handled(runtime, loop):
    from stratus.repo.client import client

    before = settle(loop)
    [source] = [s for s in loop.streams if s.stream_arn == runtime.stack.stream_arns["MainTable"]]
    read_before = dict(source.positions)
    client("dynamodb").put_item(TableName=runtime.stack.table_names["MainTable"],
                                Item={"PK": {"S": "TEST#wake"}, "SK": {"S": "TEST#wake"}})
    assert until(lambda: loop.rounds > before)
    assert until(lambda: source.positions != read_before and not source.pending)


def test_a_message_sent_wakes_it(runtime, loop):
    from stratus.repo.client import client

    before = settle(loop)
    client("sqs").send_message(QueueUrl=loop.queues[0].url, MessageBody="{}")
    assert until(lambda: loop.rounds > before)


def test_it_sleeps_until_a_schedule_falls_due(loop):
    settle(loop)
    schedule = loop.schedules[0]
    due = time.monotonic() + 0.5
    schedule.next_at = due
    loop.wake()
    # Fired when due (its next time moves on by its rate), not at the 60 s safety net.
    assert until(lambda: schedule.next_at > due + 1)


def test_next_due_names_a_delayed_message(runtime):
    from stratus.repo.client import client

    pipeline = runtime.pipeline
    for schedule in pipeline.schedules:
        schedule.next_at = time.monotonic() + 3600
    assert pipeline.next_due() > time.monotonic() + 3000
    client("sqs").send_message(QueueUrl=pipeline.queues[0].url, MessageBody="{}",
                               DelaySeconds=2)
    assert 0.5 < pipeline.next_due() - time.monotonic() < 2.5


def test_activity_wait_returns_on_a_write_made_while_looking():
    seen = emulator.ACTIVITY.count("queue:test")
    emulator.ACTIVITY.notify("queue:test")  # announced between reading the count and waiting
    started = time.monotonic()
    assert emulator.ACTIVITY.wait("queue:test", seen, 30)
    assert time.monotonic() - started < 5
    quiet = emulator.ACTIVITY.count("queue:test")
    emulator.ACTIVITY.notify("queue:other")  # another channel's work does not wake it
    assert not emulator.ACTIVITY.wait("queue:test", quiet, 0.05)
