"""`make bench`, streaming: 100 WebSocket clients on the local stack (each a follower of one
author, listening to its `user` stream, and to `public:local`), one post, and the delivery
latency from the post's request returning to each client having its `update` — with the
pipeline pumped as `make dev` pumps it — and the PostToConnection calls per event.

Run alone with `python -m bench streaming [CLIENTS]`.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from typing import Any

from .timelines import _viewer


def _serve(runtime: Any) -> tuple[Any, int]:
    import socket

    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(runtime.gateway, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, port


async def _clients(port: int, tokens: list[str], stream: str, ready: threading.Event,
                   posted: dict[str, float], arrived: list[float], wanted: int) -> None:
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/api/v1/streaming?stream={stream}"
    sockets = [await connect(url, subprotocols=[t]) for t in tokens]
    ready.set()

    async def listen(ws) -> None:
        while True:
            message = json.loads(await ws.recv())
            if message.get("event") == "update":
                arrived.append(time.perf_counter() - posted["at"])
                return

    try:
        await asyncio.wait_for(asyncio.gather(*(listen(ws) for ws in sockets)), timeout=120)
    finally:
        for ws in sockets:
            await ws.close()


def _round(runtime: Any, port: int, tokens: list[str], stream: str, post: Any
           ) -> tuple[list[float], int]:
    from local.websocket import SOCKETS

    ready, posted, arrived = threading.Event(), {"at": 0.0}, []
    runner = threading.Thread(target=asyncio.run, args=(_clients(
        port, tokens, stream, ready, posted, arrived, len(tokens)),), daemon=True)
    runner.start()
    ready.wait(120)
    time.sleep(0.5)
    before = SOCKETS.posts
    posted["at"] = time.perf_counter()
    post()
    stop = threading.Event()

    def pump() -> None:  # what `make dev`'s background loop does
        while not stop.is_set():
            if not runtime.pipeline.pump():
                stop.wait(0.25)

    pumper = threading.Thread(target=pump, daemon=True)
    pumper.start()
    runner.join(130)
    stop.set()
    pumper.join(10)
    runtime.pipeline.drain()
    return arrived, SOCKETS.posts - before


def run(runtime: Any, clients: int = 100) -> dict[str, Any]:
    from stratus.api.graph import follows
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.core import clock

    author, author_token = _viewer("streamer")
    writer = identity.viewer_for_token(author_token)
    tokens = []
    for i in range(clients):
        follower, token = _viewer(f"listener{i}")
        follows.follow(identity.viewer_for_token(token), author, {})
        tokens.append(token)
    runtime.pipeline.drain()
    from stratus.repo import base, feeds, keys

    now = clock.epoch()  # every listener's home is active (they read it recently)
    base.write_many(puts=[{**keys.feed_meta(keys.home_feed(identity.viewer_for_token(t)
                                                              .account_id)),
                           "state": "ready", "active_until": feeds.active_until(now)}
                          for t in tokens], table_name=feeds._table())
    server, port = _serve(runtime)
    results = {}
    try:
        for stream in ("user", "public:local"):
            arrived, posts = _round(runtime, port, tokens, stream, lambda: posting.create(
                writer, {"status": f"hello, {stream} listeners"}))
            results[stream] = {"received": len(arrived), "posts": posts,
                               "p50": statistics.median(arrived) if arrived else None,
                               "max": max(arrived) if arrived else None}
    finally:
        server.should_exit = True
    print(f"\nStreaming: one post to {clients} WebSocket clients on the local stack "
          "(latency from the post's request returning to each client's `update`)")
    print(f"{'stream':14} {'received':>8} {'PostToConnection':>16} {'p50 s':>7} {'max s':>7}")
    for stream, r in results.items():
        p50 = f"{r['p50']:7.2f}" if r["p50"] is not None else "      -"
        top = f"{r['max']:7.2f}" if r["max"] is not None else "      -"
        print(f"{stream:14} {r['received']:8} {r['posts']:16} {p50} {top}", flush=True)
    return results
