"""`make bench`, latency: from a post's request returning to its side effects, on the local
stack with the pipeline running as `make dev` runs it (`Pipeline.run`, woken by the emulator):

- **home**: the follower's home feed entry written (the fan-out worker);
- **notification**: the mention notification written;
- **websocket**: the `update` event arriving at the follower's WebSocket client, connected to
  the local WebSocket API (`/api/v1/streaming?stream=user`) through a real uvicorn server;
- **push**: the web push request arriving at a push endpoint (tests/rig/push_receiver.py, a
  push service on loopback holding the subscriber's keys; the payloads are decrypted after the
  run to tell which post each push is for).

Each post is `POST /api/v1/statuses` over HTTP by an author the reader follows, mentioning
the reader. Two runs: **quiet** (one writer, one post at a time, each waited for) and
**N writers** (N threads, each on its own connection, posting back to back, or one post every
`--interval` seconds; the run waits until every side effect has arrived, or 10 minutes). The home and
notification times are taken when the write's DynamoDB call returns (a botocore hook on the
process's shared client, which every function uses), the other two when the client receives.
Everything (server, pipeline, clients) shares one process, as `make dev` and its clients on
one laptop share its cores.

Run alone with `python -m bench latency [--json] [--posts N] [--writers N]
[--posts-each N] [--interval SECONDS]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import importlib.util
import json
import logging
import statistics
import sys
import threading
import time
from typing import Any
from urllib.parse import urlencode

from local import cfn
from .streaming import _serve

# As local/devserver.py: a burst of threads overflows the clients' 10 pooled connections.
logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
PATHS = ("home", "notification", "websocket", "push")
WRITE_OPERATIONS = {"PutItem", "UpdateItem", "BatchWriteItem", "TransactWriteItems"}
WAIT = 30.0  # seconds a post's side effects may take before they count as lost


def _push_receiver_module() -> Any:
    """tests/rig/push_receiver.py by path (the rig package's __init__ is the tests' business)."""
    path = cfn.ROOT / "tests" / "rig" / "push_receiver.py"
    spec = importlib.util.spec_from_file_location("stratus_bench_push_receiver", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


class _TimedList(list):
    """The receiver's `received`, with the time each push arrived."""

    def append(self, item: Any) -> None:  # called by the receiver's request thread
        super().append((time.perf_counter(), item))


def _written_items(operation: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The items (or the keys, for updates) a write call names."""
    if operation == "PutItem":
        return [params.get("Item") or {}]
    if operation == "UpdateItem":
        return [params.get("Key") or {}]
    items = []
    if operation == "BatchWriteItem":
        for requests in (params.get("RequestItems") or {}).values():
            items += [r["PutRequest"]["Item"] for r in requests if "PutRequest" in r]
    elif operation == "TransactWriteItems":
        for entry in params.get("TransactItems") or []:
            if "Put" in entry:
                items.append(entry["Put"]["Item"])
    return items


class Arrivals:
    """When each status reached each path (perf_counter seconds, first arrival)."""

    def __init__(self, reader_id: str) -> None:
        from stratus.repo import keys
        from stratus.repo.client import dynamodb

        self.home_pk = keys.home_feed(reader_id)
        self.notification_pk = keys.notifications_of(reader_id)
        self.times: dict[str, dict[str, float]] = {path: {} for path in PATHS}
        self.lock = threading.Lock()
        self.client = dynamodb()
        self.client.meta.events.register("before-parameter-build.dynamodb", self._keep,
                                         unique_id="bench-latency-keep")
        self.client.meta.events.register("after-call.dynamodb", self._written,
                                         unique_id="bench-latency-written")

    def close(self) -> None:
        self.client.meta.events.unregister("before-parameter-build.dynamodb",
                                           unique_id="bench-latency-keep")
        self.client.meta.events.unregister("after-call.dynamodb",
                                           unique_id="bench-latency-written")

    def arrived(self, path: str, status_id: str, at: float) -> None:
        with self.lock:
            self.times[path].setdefault(status_id, at)

    @staticmethod
    def _keep(params: dict[str, Any], context: dict[str, Any] | None = None, model: Any = None,
              **_: Any) -> None:
        if context is not None and model is not None and model.name in WRITE_OPERATIONS:
            context["bench_latency_params"] = params

    def _written(self, http_response: Any = None, model: Any = None,
                 context: dict[str, Any] | None = None, **_: Any) -> None:
        params = (context or {}).get("bench_latency_params")
        if params is None or http_response is None or http_response.status_code != 200:
            return
        at = time.perf_counter()
        from stratus.repo import keys

        for item in _written_items(model.name, params):
            partition = (item.get("PK") or {}).get("S")
            if partition == self.home_pk:
                sort = (item.get("SK") or {}).get("S", "")
                if sort.startswith(keys.FEED_ENTRY):
                    self.arrived("home", keys.unpad(sort[len(keys.FEED_ENTRY):]), at)
            elif partition == self.notification_pk:
                status_id = (item.get("status_id") or {}).get("S")
                if status_id:
                    self.arrived("notification", status_id, at)


def _token(account_id: str, name: str, scopes: list[str]) -> str:
    from stratus.api.oauth import oauth
    from stratus.repo import oauth as oauth_repo

    app, _ = oauth.create_app(f"latency {name}", "urn:ietf:wg:oauth:2.0:oob", " ".join(scopes),
                              None)
    token, raw = oauth.new_token(app, account_id, scopes)
    oauth_repo.put_token(token)
    return raw


def _account(name: str, scopes: list[str]) -> tuple[str, str]:
    from stratus.api.accounts import operator

    account_id, _ = operator.operator_create(name, f"{name}@example.org", "bench password",
                                             role=None, confirmed=True)
    return account_id, _token(account_id, name, scopes)


def _request(port: int, method: str, path: str, token: str, form: dict[str, str] | None = None,
             connection: http.client.HTTPConnection | None = None) -> dict[str, Any]:
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    body = urlencode(form or {})
    connection.request(method, path, body=body, headers={
        "Authorization": f"Bearer {token}", "Host": "localhost:8000",
        "Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    data = response.read()
    if own:
        connection.close()
    if response.status != 200:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data)


async def _listen(port: int, token: str, arrivals: Arrivals, ready: threading.Event,
                  stop: threading.Event) -> None:
    from websockets.asyncio.client import connect

    url = f"ws://127.0.0.1:{port}/api/v1/streaming?stream=user"
    async with connect(url, subprotocols=[token]) as ws:
        ready.set()
        while not stop.is_set():
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                continue
            if message.get("event") == "update":
                arrivals.arrived("websocket", json.loads(message["payload"])["id"],
                                 time.perf_counter())


class Probe:
    """The reader, its WebSocket client and push endpoint, and the authors it follows."""

    def __init__(self, runtime: Any, port: int, writers: int) -> None:
        from stratus.api.graph import follows
        from stratus.auth import identity
        from stratus.core import clock
        from stratus.repo import base, feeds, keys

        self.port = port
        stamp = f"{time.time_ns() % 10**8:08d}"
        self.reader_id, self.reader_token = _account(f"reader{stamp}",
                                                     ["read", "write", "follow", "push"])
        reader = identity.viewer_for_token(self.reader_token)
        self.writers = []
        for i in range(writers):
            writer_id, token = _account(f"writer{stamp}w{i}", ["read", "write", "follow"])
            follows.follow(reader, writer_id, {})
            self.writers.append(token)
        runtime.pipeline.drain()
        # The reader's home is active (read recently), so the fan-out writes to it.
        base.write_many(puts=[{**keys.feed_meta(keys.home_feed(self.reader_id)),
                               "state": "ready", "active_until": feeds.active_until(clock.epoch())}],
                        table_name=feeds._table())
        self.receiver = _push_receiver_module().PushReceiver()
        self.receiver.received = _TimedList()
        _request(port, "POST", "/api/v1/push/subscription", self.reader_token, {
            "subscription[endpoint]": self.receiver.endpoint,
            **{f"subscription[keys][{k}]": v for k, v in self.receiver.keys().items()},
            "data[alerts][mention]": "true", "data[policy]": "all"})
        self.arrivals = Arrivals(self.reader_id)
        self.stop = threading.Event()
        ready = threading.Event()
        self.listener = threading.Thread(target=asyncio.run, name="bench-websocket", daemon=True,
                                         args=(_listen(port, self.reader_token, self.arrivals,
                                                       ready, self.stop),))
        self.listener.start()
        if not ready.wait(30):
            raise RuntimeError("the WebSocket client could not connect")
        self.reader_handle = _request(port, "GET", "/api/v1/accounts/verify_credentials",
                                      self.reader_token)["acct"]
        self.posted: dict[str, tuple[str, float]] = {}  # marker -> (status id, returned at)
        self.lock = threading.Lock()

    def close(self) -> None:
        self.stop.set()
        self.listener.join(5)
        self.arrivals.close()
        self.receiver.close()

    def post(self, writer: int, n: int, connection: http.client.HTTPConnection | None = None
             ) -> str:
        marker = f"probe{writer}x{n}"
        status = _request(self.port, "POST", "/api/v1/statuses", self.writers[writer],
                          {"status": f"{marker} hello @{self.reader_handle}"}, connection)
        returned = time.perf_counter()
        with self.lock:
            self.posted[marker] = (status["id"], returned)
        return status["id"]

    def _pushes(self) -> None:
        for at, push in list(self.receiver.received):
            body = self.receiver.decrypt(push).get("body", "")
            marker = body.split(" ", 1)[0]
            if marker in self.posted:
                self.arrivals.arrived("push", self.posted[marker][0], at)

    def complete(self, status_ids: list[str]) -> bool:
        self._pushes()
        times = self.arrivals.times
        return all(s in times[path] for s in status_ids for path in PATHS)

    def wait(self, status_ids: list[str], timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.complete(status_ids):
            time.sleep(0.02)

    def latencies(self, markers: list[str]) -> dict[str, dict[str, Any]]:
        self._pushes()
        result = {}
        for path in PATHS:
            arrived = self.arrivals.times[path]
            samples = sorted(max(0.0, arrived[sid] - returned)
                             for sid, returned in (self.posted[m] for m in markers)
                             if sid in arrived)
            result[path] = {"posts": len(markers), "arrived": len(samples),
                            "p50_s": _percentile(samples, 50), "p99_s": _percentile(samples, 99),
                            "max_s": samples[-1] if samples else None}
        return result


def _percentile(samples: list[float], p: int) -> float | None:
    if not samples:
        return None
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


def quiet(probe: Probe, posts: int) -> dict[str, Any]:
    markers = []
    for n in range(posts):
        status_id = probe.post(0, n)
        markers.append(f"probe0x{n}")
        probe.wait([status_id])
        time.sleep(0.2)  # the pipeline goes back to sleep before the next post
    return probe.latencies(markers)


def loaded(probe: Probe, writers: int, posts_each: int, interval: float = 0.0
           ) -> dict[str, Any]:
    markers = [f"probe{w}x{n}" for w in range(writers) for n in range(1000, 1000 + posts_each)]

    def write(w: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", probe.port, timeout=60)
        try:
            time.sleep(interval * w / writers)  # paced writers start staggered
            for n in range(1000, 1000 + posts_each):
                started = time.perf_counter()
                # Paced: a connection per post (the server closes one idle for 5 s).
                probe.post(w, n, None if interval else connection)
                time.sleep(max(0.0, interval - (time.perf_counter() - started)))
        finally:
            connection.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=write, args=(w,), name=f"bench-writer{w}")
               for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    written = time.perf_counter() - started
    probe.wait([probe.posted[m][0] for m in markers], timeout=WAIT * 20)  # the backlog drains
    result = probe.latencies(markers)
    result["writes_per_s"] = round(len(markers) / written, 1)
    return result


def run(runtime: Any, *, posts: int = 30, writers: int = 20, posts_each: int = 5,
        interval: float = 0.0, as_json: bool = False) -> dict[str, Any]:
    """Both runs; the table on stdout, or with `as_json` only the JSON document there (what
    the functions print meanwhile, such as Powertools' metrics, goes to stderr)."""
    if as_json:
        with contextlib.redirect_stdout(sys.stderr):
            results = _measure(runtime, posts, writers, posts_each, interval)
        print(json.dumps({"latency": results}, indent=2), flush=True)
        return results
    results = _measure(runtime, posts, writers, posts_each, interval)
    _table(results, posts, writers, posts_each, interval)
    return results


def _measure(runtime: Any, posts: int, writers: int, posts_each: int, interval: float
             ) -> dict[str, Any]:
    server, port = _serve(runtime)
    stop = threading.Event()
    pipeline = threading.Thread(target=runtime.pipeline.run, args=(stop,),
                                kwargs={"after_round": runtime.mailbox.collect},
                                name="pipeline", daemon=True)
    probe = None
    try:
        probe = Probe(runtime, port, writers)
        pipeline.start()  # as `make dev` runs it
        probe.wait([probe.post(0, -1)])  # warm: every function on the path imported once
        results = {"quiet": quiet(probe, posts),
                   f"{writers} writers": loaded(probe, writers, posts_each, interval)}
    finally:
        stop.set()
        runtime.pipeline.wake()
        if pipeline.is_alive():
            pipeline.join(30)
        if probe is not None:
            probe.close()
        server.should_exit = True
    return results


def _table(results: dict[str, Any], posts: int, writers: int, posts_each: int,
           interval: float) -> None:
    pace = f"one every {interval:g} s" if interval else "back to back"
    print(f"\nLatency from a post's request returning to each side effect (seconds; quiet: "
          f"{posts} posts one at a time; {writers} writers: {posts_each} posts each, {pace})")
    print(f"{'run':12} {'path':13} {'arrived':>9} {'p50 s':>7} {'p99 s':>7} {'max s':>7}")

    def cell(value: float | None) -> str:
        return f"{value:7.3f}" if value is not None else "      -"

    for run_name, paths in results.items():
        for path in PATHS:
            r = paths[path]
            print(f"{run_name:12} {path:13} {r['arrived']:>4}/{r['posts']:<4} {cell(r['p50_s'])} "
                  f"{cell(r['p99_s'])} {cell(r['max_s'])}")
        if "writes_per_s" in paths:
            print(f"{run_name:12} {'(posts/s)':13} {paths['writes_per_s']:>9}")
