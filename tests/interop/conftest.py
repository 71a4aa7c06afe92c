"""Fixtures for the interop tests: a real Fedify peer, our stack behind a real HTTP server with
its background pipeline running, and two Stratus dev servers. Every process listens on
127.0.0.1 on a free port and is stopped after the test."""

from __future__ import annotations

import threading

import pytest

from tests.interop.harness import DevStack, FedifyPeer, free_port, peer_missing


@pytest.fixture
def fedify_peer(tmp_path):
    """A Fedify peer (tests/interop/fedify-peer/peer.mjs), actor /users/peer; skipped (with
    the reason) when its node_modules are not installed."""
    reason = peer_missing()
    if reason:
        pytest.skip(reason)
    peer = FedifyPeer.start(free_port(), tmp_path / "peer.log")
    yield peer
    peer.stop()


@pytest.fixture
def stratus_live(live_server):
    """`live_server` (tests/conftest.py) with the background pipeline running as `make dev`
    runs it: a thread pumps streams, queues and one-off schedules (the inbox and delivery
    queues included) until the test ends, so effects arrive without calling drain (which
    still works: the pipeline runs one pump at a time under its lock)."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def pump() -> None:
        while not stop.is_set():
            try:
                work = live_server.pipeline.pump()
            except Exception as error:  # noqa: BLE001 - reported at teardown, loop goes on
                errors.append(error)
                work = 0
            if not work:
                stop.wait(0.1)

    thread = threading.Thread(target=pump, name="pipeline", daemon=True)
    thread.start()
    yield live_server
    stop.set()
    thread.join(10)
    assert not errors, f"the background pipeline failed: {errors!r}"


@pytest.fixture
def two_stacks(tmp_path):
    """Two `python -m local.devserver` processes (http://localhost:PORT_A and PORT_B), each with
    its own STRATUS_STATE_DIR and instant_signups on; `stack.sign_up(name)` gives a
    Mastodon.py client for a new user."""
    stacks: list[DevStack] = []
    try:
        for name in ("a", "b"):
            stacks.append(DevStack.start(free_port(), tmp_path / name))
        yield tuple(stacks)
    finally:
        for stack in stacks:
            stack.stop()
