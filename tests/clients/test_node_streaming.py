"""The real Node clients against the local stack on a real port: masto 7 (the token
as the WebSocket sub-protocol, echoed, and an explicit subscribe frame) and megalodon 10 (the
token in `?access_token=`, no sub-protocol, ping frames) receive `update`, `notification` and
`filters_changed` on the user stream; megalodon's `detector()` reads NodeInfo as `mastodon`.

The scripts live in tests/clients/node (packages pinned by its package-lock.json, installed by
`make test`); each prints one JSON line per event it got from its library."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from tests.rig import LiveStack

NODE = shutil.which("node")
PACKAGE = Path(__file__).resolve().parent / "node"
TIMEOUT = 15  # seconds for one line; the scripts give up on their own after DEADLINE
DEADLINE = 60

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH: the masto/megalodon client tests need Node.js "
                         ">= 20.18 (`make test` then installs their packages with npm ci)")


class NodeClient:
    """A client script run by node; its stdout lines, JSON-decoded, one at a time."""

    def __init__(self, script: str, *args: str) -> None:
        if not (PACKAGE / "node_modules" / ".package-lock.json").exists():
            # `make test` installs them and warns loudly when npm ci fails (CI goes on).
            pytest.skip("tests/clients/node has no node_modules: `make test` (or "
                        "`npm ci --prefix tests/clients/node`) installs them")
        self.proc = subprocess.Popen([NODE, str(PACKAGE / script), *args], cwd=PACKAGE,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.other: list[str] = []  # what the library printed itself (e.g. "Reconnecting")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def next(self, timeout: float = TIMEOUT) -> dict:
        line = self.poll(timeout)
        if line is None:
            pytest.fail(f"no line from {self.proc.args[1]} in {timeout} s; {self.other}")
        return line

    def poll(self, timeout: float) -> dict | None:
        """The next JSON line, or None when none comes within `timeout` seconds."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                return None
            if line is None:
                self.proc.wait(5)
                pytest.fail(f"{self.proc.args[1]} ended ({self.proc.returncode}): "
                            f"{self.proc.stderr.read()} {self.other}")
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                self.other.append(line.rstrip())

    def finish(self) -> None:
        """The script exits 0 once it got all the events it was told to expect."""
        assert self.proc.wait(TIMEOUT) == 0, self.proc.stderr.read()
        assert self.lines.get(timeout=TIMEOUT) is None  # nothing after the last event
        assert self.other == []  # no reconnects, no warnings on stdout

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture
def node_client():
    started: list[NodeClient] = []

    def start(script: str, *args: str) -> NodeClient:
        started.append(NodeClient(script, *args))
        return started[-1]

    yield start
    for client in started:
        client.stop()


@pytest.fixture
def listener(live_server):
    """alice follows bob and has an active home (so it is fed); bob has a token too."""
    stack = LiveStack(live_server)
    stack.user("alice")
    stack.user("bob")
    stack.call("alice", "POST", f"/api/v1/accounts/{stack.ids['bob']}/follow")
    stack.call("alice", "GET", "/api/v1/timelines/home")
    stack.drain()
    yield stack
    stack.http.close()


def cause_the_three_events(stack, mine: str) -> dict:
    """bob posts (an update in alice's home), bob favourites alice's status `mine` (a
    notification), alice creates a filter (filters_changed): each drained before the next, so
    they arrive in this order."""
    posted = stack.call("bob", "POST", "/api/v1/statuses", data={"status": "hello from bob"})
    stack.drain()
    stack.call("bob", "POST", f"/api/v1/statuses/{mine}/favourite")
    stack.drain()
    [note] = [n for n in stack.call("alice", "GET", "/api/v1/notifications")
              if n["type"] == "favourite"]
    stack.call("alice", "POST", "/api/v2/filters", json={
        "title": "pets", "context": ["home"], "filter_action": "warn",
        "keywords_attributes": [{"keyword": "cat"}]})
    stack.drain()
    return {"posted": posted["id"], "notification": note["id"]}


def test_masto_streams_update_notification_and_filters_changed(listener, node_client):
    stack = listener
    masto = node_client("masto-stream.mjs", stack.server.base_url, stack.tokens["alice"], "4",
                        str(DEADLINE))
    # masto found the streaming host in /api/v2/instance (it keeps only scheme and host).
    assert masto.next() == {"instance": stack.server.base_url.split("://")[1],
                            "streaming": stack.server.base_url.replace("http://", "ws://")}
    # The handshake accepted the token as the sub-protocol (masto's `ws` refuses it otherwise),
    # then masto sent its subscribe frame.
    assert masto.next() == {"ready": True, "subscribed": "user", "protocolIsToken": True}

    # The server registers the subscription while this test goes on, so alice posts until her
    # own status comes back on the stream (once, nearly always); a lost one is never sent late.
    for _ in range(5):
        mine = stack.call("alice", "POST", "/api/v1/statuses", data={"status": "like me"})["id"]
        stack.drain()
        first = masto.poll(timeout=3)
        if first is not None:
            break
    else:
        pytest.fail("masto's subscription was never registered")
    assert first == {"event": "update", "stream": ["user"], "id": mine}

    ids = cause_the_three_events(stack, mine)
    events = [masto.next() for _ in range(3)]
    masto.finish()  # it was told 4 events: no other one came
    assert events == [
        {"event": "update", "stream": ["user"], "id": ids["posted"]},
        {"event": "notification", "stream": ["user"], "id": ids["notification"],
         "type": "favourite", "status": mine},
        {"event": "filters_changed", "stream": ["user"]},
    ]


def test_megalodon_streams_update_notification_and_filters_changed(listener, node_client):
    stack = listener
    megalodon = node_client("megalodon-stream.mjs", stack.server.base_url,
                            stack.tokens["alice"], "5", str(DEADLINE))
    # ?stream=user subscribes in the handshake: connected means subscribed.
    assert megalodon.next() == {"ready": True}
    mine = stack.call("alice", "POST", "/api/v1/statuses", data={"status": "like me"})["id"]
    stack.drain()
    ids = cause_the_three_events(stack, mine)
    events = [megalodon.next() for _ in range(4)]
    assert events[:3] == [
        {"event": "update", "id": mine},
        {"event": "update", "id": ids["posted"]},
        {"event": "notification", "id": ids["notification"], "type": "favourite",
         "status": mine},
    ]
    # megalodon has no filters_changed: the frame without a payload fails its parser, which
    # it reports as "parser-error" carrying the frame as Mastodon sends it.
    changed = events[3]
    assert changed["event"] == "parser-error"
    assert changed["frame"] == {"stream": ["user"], "event": "filters_changed"}
    # megalodon pings 10 s after connecting and reconnects without a pong.
    assert megalodon.next() == {"event": "pong"}
    megalodon.finish()


def test_megalodon_detector_reads_nodeinfo_as_mastodon(live_server, node_client):
    detect = node_client("megalodon-detect.mjs", live_server.base_url)
    assert detect.next() == {"sns": "mastodon"}
    detect.finish()
