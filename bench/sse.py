"""`python -m bench sse [--json]`: what an SSE client costs (docs/streaming.md, "What
streaming costs"), measured where it can be and priced.

The SSE function is measured as Lambda runs it: its app (functions/streaming_sse/app.py) under
uvicorn in a process of its own, the shared layer on its path, the template's environment
(MemorySize aside), the local stack's tables behind the emulator on loopback. One client opens
`/api/v1/streaming/user` and reads for `SECONDS` while a status it should see is posted; the
process's peak resident memory (VmHWM) is what must fit the function's MemorySize, with the
Lambda Web Adapter extension (a Rust binary, ~10 MB, not measured here) beside it. What one poll
of the mailbox costs in DynamoDB is read from the local DynamoDB's ConsumedCapacity answers.

The price of an always-connected client a month, at the template's MemorySize and
SSE_POLL_SECONDS, and at 512 MB / 0.5 s (before 2026-11-27): the function is billed for as
long as the response is open (every second of the month, at its memory), one invocation per
`SSE_MAX_SECONDS`, and each poll's reads. Beside it, the WebSocket API's price for the same
client: connection-minutes, and a `$connect`/`$disconnect` pair every SESSION_MINUTES
(bench/cost.py measures a pair; its figure is taken here as 15 write and 3 read units and
two ~20 ms invocations).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from local import capacity, cfn
from .costs import PRICES

SECONDS = 8.0
BEFORE = {"memory_mb": 512, "poll_seconds": 0.5}
SECONDS_PER_MONTH = 30 * 24 * 3600
SESSION_MINUTES = 10
# One WebSocket reconnection ($connect + $disconnect), as `python -m bench cost` measured
# it on 2026-11-27: two invocations of ~20 ms at 512 MB, 3 read and 15 write units.
RECONNECT = {"invocations": 2, "seconds": 0.040, "read_units": 3.0, "write_units": 15.0}


def _setting(template: dict[str, Any]) -> tuple[int, float, float]:
    """(MemorySize, SSE_POLL_SECONDS, SSE_MAX_SECONDS) of the SSE function in the template."""
    from local.websocket import streaming_function

    logical = streaming_function(template)
    props = template["Resources"][logical]["Properties"]
    memory = int(props.get("MemorySize") or template["Globals"]["Function"].get("MemorySize"))
    env = (props.get("Environment") or {}).get("Variables") or {}
    return memory, float(env.get("SSE_POLL_SECONDS", "0.5")), float(env.get("SSE_MAX_SECONDS",
                                                                            "870"))


def price(memory_mb: int, poll_seconds: float, max_seconds: float,
          units_per_poll: float) -> dict[str, float]:
    """$ a month of one SSE client connected all month, by item."""
    p = PRICES
    invocations = SECONDS_PER_MONTH / max_seconds
    return {
        "Lambda duration": SECONDS_PER_MONTH * memory_mb / 1024 * p["lambda_gb_second"],
        "Lambda requests": invocations * p["lambda_request"],
        "DynamoDB reads (polls)": SECONDS_PER_MONTH / poll_seconds * units_per_poll
        * p["dynamodb_read_unit"],
        "X-Ray (one trace an invocation)": invocations * p["xray_trace"],
    }


def websocket_price() -> dict[str, float]:
    """$ a month of one WebSocket client connected all month."""
    p = PRICES
    minutes = SECONDS_PER_MONTH / 60
    sessions = minutes / SESSION_MINUTES
    return {
        "connection-minutes": minutes * p["websocket_connection_minute"],
        "reconnections (Lambda)": sessions * RECONNECT["invocations"] * p["lambda_request"]
        + sessions * RECONNECT["seconds"] * 0.5 * p["lambda_gb_second"],
        "reconnections (DynamoDB)": sessions * (RECONNECT["read_units"]
                                                * p["dynamodb_read_unit"]
                                                + RECONNECT["write_units"]
                                                * p["dynamodb_write_unit"]),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _peak_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def units_per_poll(runtime: Any, token: str) -> float:
    """DynamoDB read units of one empty poll of an SSE connection's mailbox, as reported."""
    from stratus.api.streaming import streaming
    from stratus.repo.client import dynamodb

    connection_id = streaming.open_sse({"authorization": f"Bearer {token}"}, {}, "user")
    charges: list[capacity.Charge] = []
    meter = capacity.Meter()
    meter.attach(dynamodb(), lambda operation, charged: charges.append(charged))
    try:
        streaming.sse_pending(connection_id)
    finally:
        meter.detach(dynamodb())
        streaming.disconnect(connection_id)
    return sum(c.read for c in charges)


def measure(runtime: Any) -> dict[str, Any]:
    """The SSE app's process streaming to one client: its peak memory, events received."""
    import http.client

    from stratus.api.statuses import post as posting
    from stratus.auth import identity

    from .costs import people
    from local.websocket import streaming_function

    (reader, author), _ = people("sse", 2)
    from stratus.api.graph import follows

    follows.follow(reader.viewer, author.account_id, {})
    runtime.pipeline.drain()
    from stratus.core import clock
    from stratus.repo import base, feeds, keys

    # The reader's home is fed (it used the API this week): the author's post reaches it.
    base.write_many(puts=[{**keys.feed_meta(keys.home_feed(reader.account_id)),
                           "state": "ready", "active_until": feeds.active_until(clock.epoch())}],
                    table_name=feeds._table())
    template = runtime.stack.template
    memory, poll, longest = _setting(template)
    fn = runtime.stack.functions[streaming_function(template)]
    port = _free_port()
    # The stack's environment (tables, the emulator's endpoint: resolved by the local stack),
    # the function's own settings, its code and the layer on the path.
    env = {**os.environ, "PYTHONPATH": f"{cfn.ROOT / 'layers/shared'}:{fn.code_dir}",
           "POWERTOOLS_SERVICE_NAME": "streaming-sse", "SSE_POLL_SECONDS": str(poll),
           "SSE_MAX_SECONDS": str(longest)}
    child = subprocess.Popen([sys.executable, "-m", "uvicorn", "--port", str(port),
                              "--no-access-log", "app:app"], cwd=fn.code_dir, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    events: list[str] = []
    stream = None
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                connection.request("GET", "/api/v1/streaming/health")
                if connection.getresponse().status == 200:
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        stream = http.client.HTTPConnection("127.0.0.1", port, timeout=SECONDS)
        stream.request("GET", "/api/v1/streaming/user",
                       headers={"Authorization": f"Bearer {reader.token}"})
        answer = stream.getresponse()

        def read() -> None:
            started = time.monotonic()
            while time.monotonic() - started < SECONDS:
                try:
                    line = answer.fp.readline()
                except TimeoutError:
                    return
                if not line:
                    return
                if line.startswith(b"event:"):
                    events.append(line.decode().split(":", 1)[1].strip())

        reader_thread = threading.Thread(target=read, daemon=True)
        reader_thread.start()
        time.sleep(1.0)
        posting.create(identity.viewer_for_token(author.token), {"status": "hello, SSE"})
        runtime.pipeline.drain()
        reader_thread.join(SECONDS + 5)
        peak = _peak_mb(child.pid)
    finally:
        if stream is not None:
            stream.close()
        child.kill()  # uvicorn would wait for the open response to end
        _, errors = child.communicate(timeout=10)
    if not events:
        print(errors.decode(errors="replace")[-2000:], file=sys.stderr)
    per_poll = units_per_poll(runtime, reader.token)
    now = price(memory, poll, longest, per_poll)
    before = price(BEFORE["memory_mb"], BEFORE["poll_seconds"], longest, per_poll)
    socket_price = websocket_price()
    return {"memory_mb": memory, "poll_seconds": poll, "max_seconds": longest,
            "peak_rss_mb": round(peak, 1), "events": events,
            "read_units_per_poll": per_poll,
            "per_client_month": round(sum(now.values()), 2),
            "per_client_month_before": round(sum(before.values()), 2),
            "websocket_per_client_month": round(sum(socket_price.values()), 4),
            "items": {k: round(v, 4) for k, v in now.items()},
            "items_before": {k: round(v, 4) for k, v in before.items()},
            "websocket_items": {k: round(v, 4) for k, v in socket_price.items()}}


def report(found: dict[str, Any]) -> str:
    out = [f"SSE (StreamingSseFunction: {found['memory_mb']} MB, a poll every "
           f"{found['poll_seconds']:g} s, responses of {found['max_seconds']:.0f} s)",
           f"  the app's process streaming to one client: peak resident memory "
           f"{found['peak_rss_mb']:.0f} MB (+ ~10 MB for the Web Adapter extension); events "
           f"received: {', '.join(found['events']) or 'none'}",
           f"  one poll: {found['read_units_per_poll']:g} read units (the connection's item, "
           f"strongly consistent, and the mailbox query)",
           f"  an always-connected client a month: ${found['per_client_month']:.2f} "
           + "(" + ", ".join(f"{k} ${v:.2f}" for k, v in found["items"].items()) + ")",
           f"  at 512 MB and a poll every 0.5 s (before): ${found['per_client_month_before']:.2f}",
           f"  the same client on the WebSocket API: ${found['websocket_per_client_month']:.3f} "
           + "(" + ", ".join(f"{k} ${v:.3f}" for k, v in found["websocket_items"].items())
           + ")"]
    return "\n".join(out)


def cli(args: list[str], start_stack: Any) -> int:
    """`python -m bench sse [--json]`."""
    if any(a != "--json" for a in args):
        print("usage: python -m bench sse [--json]", file=sys.stderr)
        return 2
    emulator, runtime = start_stack()
    try:
        found = measure(runtime)
    finally:
        emulator.stop()
    print(json.dumps(found) if "--json" in args else report(found))
    return 0
