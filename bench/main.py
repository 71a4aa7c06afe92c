"""`make bench`: cold start per function as Lambda runs it (INIT: imports + app build, then an
authenticated first request; bench/init.py, against a naive function measured in the same
run), warm per-request handler time and DynamoDB round trips for the metadata endpoints, the
other parts (reads, search, timelines, ...), then the memory run. Runs against the embedded AWS
emulator, as `make dev` does; numbers go to docs/performance.md.

`python -m bench memory` runs only the memory run: 10,000 writes through the local gateway
(posts, favourites, boosts, refused duplicate sign-ups) with the pipeline running in the
background, as under `make dev`, and the process's resident memory before, during and after. It
fails if the process ends at 1 GB or more: the local stack must run for hours on a laptop.
"""

from __future__ import annotations

import json
import os
import random
import resource
import socket
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

# Before Powertools is imported anywhere: quiet logs, no metrics or traces.
os.environ.update(POWERTOOLS_SERVICE_NAME="bench", POWERTOOLS_METRICS_DISABLED="true",
                  POWERTOOLS_TRACE_DISABLED="true", POWERTOOLS_LOG_LEVEL="WARNING")

from local.runtime import AWS_DEFAULTS  # noqa: E402

WARM_REQUESTS = 50
MEMORY_WRITES = 10_000
MEMORY_LIMIT_MB = 1024
METADATA_PATHS = ["/api/v1/instance", "/api/v2/instance", "/api/v1/instance/rules",
                  "/api/v1/custom_emojis", "/nodeinfo/2.0", "/api/v1/instance/activity"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_stack():
    """The embedded moto server and the stack on it, as `make dev` runs them."""
    for key, value in AWS_DEFAULTS.items():
        os.environ.setdefault(key, value)
    from moto.server import ThreadedMotoServer

    port = _free_port()
    os.environ["MOTO_PORT"] = str(port)
    emulator = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    from werkzeug.serving import WSGIRequestHandler

    WSGIRequestHandler.log_request = lambda *args, **kwargs: None
    from local.emulator import prepare

    prepare()
    emulator.start()
    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
    from local.runtime import STATE_DIR, start

    runtime = start("localhost:8000", "http://localhost:8000", mail_dir=STATE_DIR / "bench-mail",
                    extra_env={"POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_SERVICE_NAME": "bench"})
    return emulator, runtime


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "sse":  # `python -m bench sse [--json]`: an SSE client's
        # price a month and the SSE function's memory (docs/streaming.md)
        from .sse import cli as sse

        return sse(args[1:], start_stack)
    if args and args[0] == "breakdown":  # `python -m bench breakdown [--json]`: where one
        # activity's invocations and units go (bench/breakdown.py)
        from .breakdown import main as breakdown

        breakdown(args[1:])
        return 0
    if args and args[0] in ("cost", "costs"):  # `python -m bench cost [--json]`: a
        # realistic mix priced per million requests and per MAU (issue #22), in its own stack
        from .cost import cli as cost

        return cost(args[1:])
    if args and args[0] == "timelines":  # `python -m bench timelines [FOLLOWERS...]`
        from .timelines import run as timelines

        emulator, runtime = start_stack()
        try:
            timelines(runtime, tuple(int(a) for a in args[1:]) or (1000, 10000))
        finally:
            emulator.stop()
        return 0
    if args and args[0] == "trends":  # `python -m bench trends [POSTS]`
        from .trends import run as trends

        emulator, runtime = start_stack()
        try:
            trends(runtime, int(args[1]) if len(args) > 1 else 10_000)
        finally:
            emulator.stop()
        return 0
    if args and args[0] == "delivery":  # `python -m bench delivery [FOLLOWERS] [HOSTS]`
        from .delivery import run as delivery

        emulator, runtime = start_stack()
        try:
            delivery(runtime, *(int(a) for a in args[1:3]))
        finally:
            emulator.stop()
        return 0
    if args and args[0] == "reads":  # `python -m bench reads [--json]`: DynamoDB rounds
        # and calls of every read page of issue #22, at 20 and 40 items
        from .reads import cli as reads

        return reads(args[1:], start_stack)
    if args and args[0] == "init":  # `python -m bench init [--json] [--runs N] [--only
        # Fn1,Fn2]`: INIT and first request per function as Lambda runs them, against a naive
        # FastAPI + Mangum + Powertools + boto3 function (issue #22)
        from .init import cli as init

        return init(args[1:], start_stack)
    if args and args[0] == "idle":  # `python -m bench idle [--json] [--param NAME=VALUE]
        # [--measure]`: what the stack costs a month with no traffic, from template.yaml
        from .idle import cli as idle

        return idle(args[1:], start_stack)
    if args and args[0] == "scale":  # `python -m bench scale [--json]`: issue #22's
        # scenarios at scale with DynamoDB's partition limits (throttles, conflicts, lag)
        from .scale import cli as scale

        return scale(args[1:], start_stack)
    if args == ["search"]:  # `python -m bench search`: round trips per search type
        from .search import run as search

        emulator, runtime = start_stack()
        try:
            search(runtime)
        finally:
            emulator.stop()
        return 0
    if args and args[0] == "streaming":  # `python -m bench streaming [CLIENTS]`
        from .streaming import run as streaming

        emulator, runtime = start_stack()
        try:
            streaming(runtime, int(args[1]) if len(args) > 1 else 100)
        finally:
            emulator.stop()
        return 0
    if args and args[0] == "latency":  # `python -m bench latency [--json] [--posts N]
        # [--writers N] [--posts-each N] [--interval S]`: post → home entry, notification,
        # WebSocket event, web push, quiet and under concurrent writers
        from .latency import run as latency

        options = {"posts": 30, "writers": 20, "posts_each": 5, "interval": 0}
        rest = args[1:]
        as_json = "--json" in rest
        rest = [a for a in rest if a != "--json"]
        while rest:
            name = rest[0].removeprefix("--").replace("-", "_")
            value = rest[1] if len(rest) > 1 else ""
            if name not in options or not value.isdigit():
                print("usage: python -m bench latency [--json] [--posts N] [--writers N] "
                      "[--posts-each N] [--interval SECONDS]", file=sys.stderr)
                return 2
            options[name] = int(value)
            rest = rest[2:]
        emulator, runtime = start_stack()
        try:
            latency(runtime, as_json=as_json, **options)
        finally:
            emulator.stop()
        return 0
    if args and (args[0] != "memory" or len(args) > 2 or not all(a.isdigit() for a in args[1:])):
        print("usage: python -m bench [cost [--json] | sse [--json] | timelines [FOLLOWERS...] | "
              "streaming [CLIENTS] | trends [POSTS] | search | reads [--json] [--fixture PATH] | scale [--json] | "
              "init [--json] [--runs N] [--only Fn1,Fn2] | idle [--json] [--param NAME=VALUE] | delivery [FOLLOWERS] [HOSTS] | "
              "latency [--json] [--posts N] [--writers N] [--posts-each N] [--interval S] | "
              "memory [WRITES]]",
              file=sys.stderr)
        return 2
    writes = int(args[1]) if len(args) == 2 else MEMORY_WRITES
    emulator, runtime = start_stack()
    try:
        if not args:
            timings(runtime)
        return 0 if memory_bench(runtime, writes) else 1
    finally:
        emulator.stop()


def timings(runtime) -> None:
    from .init import run as init

    init(runtime)  # INIT and first request per function, as Lambda runs them, and the anchor

    from stratus.repo.client import dynamodb

    calls = {"n": 0}
    count = lambda **_: calls.__setitem__("n", calls["n"] + 1)  # noqa: E731
    dynamodb().meta.events.register("before-call.dynamodb", count)
    print(f"\nWarm requests through the local API Gateway (median of {WARM_REQUESTS})")
    print(f"{'path':32} {'handler ms':>10} {'DynamoDB calls':>15}")
    gateway = runtime.gateway
    for path in METADATA_PATHS:
        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                 "query_string": b"", "headers": [(b"host", b"localhost:8000")],
                 "client": ("127.0.0.1", 1)}
        gateway.handle(scope, b"")  # warm
        durations = []
        calls["n"] = 0
        for _ in range(WARM_REQUESTS):
            started = time.perf_counter()
            status, _, _ = gateway.handle(scope, b"")
            durations.append((time.perf_counter() - started) * 1000)
            assert status == 200, (path, status)
        print(f"{path:32} {statistics.median(durations):10.2f} "
              f"{calls['n'] / WARM_REQUESTS:15.1f}")
    statuses_bench(gateway, calls)
    notifications_bench(runtime, calls)
    dynamodb().meta.events.unregister("before-call.dynamodb", count)
    from .search import run as search

    search(runtime)  # a search of each type
    from .reads import run as reads

    reads(runtime)  # rounds and calls of every read page (issue #22)
    from .timelines import run as timelines

    timelines(runtime)  # home pages, fan-out to 1,000 and 10,000 followers
    from .streaming import run as streaming

    streaming(runtime)  # one post to 100 WebSocket clients
    from .costs import run as costs

    costs(runtime)  # contention, filtered listings (the cost mix: `make bench` runs `cost`)
    from .trends import run as trends

    trends(runtime)  # the trends job after a day of 10,000 posts
    from .delivery import run as delivery

    delivery(runtime)  # one post to 1,000 remote followers on 100 servers
    from .latency import run as latency

    latency(runtime)  # post → home, notification, WebSocket, web push: quiet and 20 writers
    from .scale import run as scale

    scale(runtime)  # a viral status, a million followers, an inbox burst: partition limits
    from .idle import run as idle

    idle(runtime)  # the stack's cost a month with no traffic, from template.yaml (issue #22)


def statuses_bench(gateway, calls) -> None:
    """Warm time and DynamoDB round trips for status reads, at two page and thread sizes:
    the round trips must stay flat as pages and threads grow (batched reads)."""
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.api.statuses import interactions
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.repo import oauth as oauth_repo

    account_id, _ = operator.operator_create("bench", "bench@example.org", "bench password",
                                             role=None, confirmed=True)
    app, _ = oauth.create_app("bench", "urn:ietf:wg:oauth:2.0:oob", "read write", None)
    token, raw = oauth.new_token(app, account_id, ["read", "write"])
    oauth_repo.put_token(token)
    viewer = identity.viewer_for_token(raw)
    for i in range(45):
        sid = posting.create(viewer, {"status": f"post {i} #bench"})
        if i % 3 == 0:
            interactions.favourite(viewer, sid)
    threads = {}
    for size in (10, 40):
        root = parent = posting.create(viewer, {"status": f"thread of {size}"})
        for i in range(size):
            parent = posting.create(viewer, {"status": f"reply {i}", "in_reply_to_id": parent})
        threads[size] = root
    headers = [(b"host", b"localhost:8000"), (b"authorization", f"Bearer {raw}".encode())]
    cases = [("GET /api/v1/statuses/:id", f"/api/v1/statuses/{threads[10]}", ""),
             ("GET /statuses/:id/context (10 replies)", f"/api/v1/statuses/{threads[10]}/context", ""),
             ("GET /statuses/:id/context (40 replies)", f"/api/v1/statuses/{threads[40]}/context", ""),
             ("GET /accounts/:id/statuses limit=20", f"/api/v1/accounts/{account_id}/statuses", "limit=20"),
             ("GET /accounts/:id/statuses limit=40", f"/api/v1/accounts/{account_id}/statuses", "limit=40")]
    print(f"\nStatus reads, authenticated (median of {WARM_REQUESTS // 5})")
    print(f"{'request':40} {'handler ms':>10} {'DynamoDB calls':>15}")
    for label, path, query in cases:
        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "headers": headers, "client": ("127.0.0.1", 1)}
        gateway.handle(scope, b"")
        durations = []
        calls["n"] = 0
        runs = WARM_REQUESTS // 5
        for _ in range(runs):
            started = time.perf_counter()
            status, _, _ = gateway.handle(scope, b"")
            durations.append((time.perf_counter() - started) * 1000)
            assert status == 200, (path, status)
        print(f"{label:40} {statistics.median(durations):10.2f} {calls['n'] / runs:15.1f}")


def notifications_bench(runtime, calls) -> None:
    """Warm time and DynamoDB round trips for a page of notifications (v1) and of groups
    (v2): 46 statuses liked three times each and ten mentions, from ten accounts."""
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.api.statuses import interactions
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.repo import oauth as oauth_repo

    app, _ = oauth.create_app("bench", "urn:ietf:wg:oauth:2.0:oob", "read write", None)

    def viewer_of(name: str):
        account_id, _ = operator.operator_create(name, f"{name}@example.org", "bench password",
                                                 role=None, confirmed=True)
        token, raw = oauth.new_token(app, account_id, ["read", "write"])
        oauth_repo.put_token(token)
        return identity.viewer_for_token(raw), raw

    star, raw = viewer_of("star")
    posted = [posting.create(star, {"status": f"notable {i}"}) for i in range(46)]
    for f in range(10):
        fan, _ = viewer_of(f"fan{f}")
        for i, sid in enumerate(posted):
            if (i + f) % 10 < 3:
                interactions.favourite(fan, sid)
        posting.create(fan, {"status": f"@star hello {f}"})
    runtime.pipeline.drain()
    headers = [(b"host", b"localhost:8000"), (b"authorization", f"Bearer {raw}".encode())]
    cases = [("GET /api/v1/notifications limit=20", "/api/v1/notifications", "limit=20"),
             ("GET /api/v1/notifications limit=40", "/api/v1/notifications", "limit=40"),
             ("GET /api/v2/notifications limit=20", "/api/v2/notifications", "limit=20"),
             ("GET /api/v2/notifications limit=40", "/api/v2/notifications", "limit=40"),
             ("GET /api/v2/notifications (Mastodon web)", "/api/v2/notifications",
              "limit=40&grouped_types[]=favourite&grouped_types[]=reblog"
              "&grouped_types[]=follow&expand_accounts=partial_avatars"),
             ("GET /api/v1/notifications/unread_count", "/api/v1/notifications/unread_count", ""),
             ("GET /api/v2/notifications/unread_count", "/api/v2/notifications/unread_count", "")]
    print(f"\nNotifications, 148 notifications in 56 groups (median of {WARM_REQUESTS // 5})")
    print(f"{'request':40} {'handler ms':>10} {'DynamoDB calls':>15}")
    for label, path, query in cases:
        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "headers": headers, "client": ("127.0.0.1", 1)}
        runtime.gateway.handle(scope, b"")
        durations = []
        calls["n"] = 0
        runs = WARM_REQUESTS // 5
        for _ in range(runs):
            started = time.perf_counter()
            status, _, _ = runtime.gateway.handle(scope, b"")
            durations.append((time.perf_counter() - started) * 1000)
            assert status == 200, (path, status)
        print(f"{label:40} {statistics.median(durations):10.2f} {calls['n'] / runs:15.1f}")


# --- memory under sustained writes ----------------------------------------------------------
def resident_mb() -> tuple[float, float]:
    """This process's resident memory now and at its peak, in MB."""
    try:
        status = dict(line.split(":", 1) for line in
                      open("/proc/self/status").read().splitlines() if ":" in line)
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024
    except OSError:  # no /proc (macOS): ru_maxrss is the peak, in bytes there
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
        return peak, peak


class Writer:
    """Clients writing through the local gateway: posts, favourites, boosts, and sign-ups
    refused because the name is taken (a cancelled transaction each)."""

    MIX = ["post"] * 10 + ["favourite"] * 5 + ["boost"] * 3 + ["refused_sign_up"] * 2

    def __init__(self, gateway, users: int = 40) -> None:
        from stratus.api.accounts import operator
        from stratus.api.oauth import oauth
        from stratus.repo import oauth as oauth_repo

        self.gateway = gateway
        app, _ = oauth.create_app("memory bench", "urn:ietf:wg:oauth:2.0:oob", "read write", None)
        app_token, self.app_token = oauth.new_token(app, None, ["read", "write"])
        oauth_repo.put_token(app_token)
        self.users = []
        for i in range(users):
            account_id, _ = operator.operator_create(f"writer{i}", f"writer{i}@example.org",
                                                     "writer password", role=None, confirmed=True)
            token, raw = oauth.new_token(app, account_id, ["read", "write"])
            oauth_repo.put_token(token)
            self.users.append(raw)
        self.statuses: list[str] = []
        self.lock = threading.Lock()
        self.outcomes: dict[tuple[str, int], int] = {}

    def request(self, method: str, path: str, token: str, form: dict | None = None,
                ip: str = "127.0.0.1") -> tuple[int, bytes]:
        body = urlencode(form or {}).encode()
        headers = [(b"host", b"localhost:8000"), (b"authorization", f"Bearer {token}".encode())]
        if form is not None:
            headers.append((b"content-type", b"application/x-www-form-urlencoded"))
        scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
                 "query_string": b"", "headers": headers, "client": (ip, 1)}
        status, _, payload = self.gateway.handle(scope, body)
        return status, payload

    def write(self, n: int) -> None:
        rng = random.Random(n)
        kind = rng.choice(self.MIX)
        token = rng.choice(self.users)
        with self.lock:
            target = rng.choice(self.statuses[-200:]) if self.statuses else None
        if kind != "refused_sign_up" and kind != "post" and target is None:
            kind = "post"
        if kind == "post":
            status, payload = self.request("POST", "/api/v1/statuses", token,
                                           {"status": f"post {n} #bench{n % 7}"})
            if status == 200:
                with self.lock:
                    self.statuses.append(json.loads(payload)["id"])
        elif kind in ("favourite", "boost"):
            action = "favourite" if kind == "favourite" else "reblog"
            status, _ = self.request("POST", f"/api/v1/statuses/{target}/{action}", token, {})
        else:
            # A distinct address per attempt keeps the sign-up rate limit out of the way.
            ip = f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"
            status, _ = self.request("POST", "/api/v1/accounts", self.app_token, {
                "username": f"writer{rng.randrange(len(self.users))}", "password": "x" * 12,
                "email": f"other{n}@example.org", "agreement": "true", "locale": "en"}, ip)
        with self.lock:
            self.outcomes[(kind, status)] = self.outcomes.get((kind, status), 0) + 1


def memory_bench(runtime, writes: int = MEMORY_WRITES, clients: int = 4) -> bool:
    """Sustained writes with the pipeline running; True if the process ends under the limit."""
    import gc

    gc.collect()
    before, _ = resident_mb()
    print(f"\nMemory under sustained writes ({writes} writes through the local API Gateway by "
          f"{clients} clients, pipeline running)")
    writer = Writer(runtime.gateway)
    stop = threading.Event()

    def pipeline_loop() -> None:  # what `make dev` runs in the background
        runtime.pipeline.run(stop, after_round=runtime.mailbox.collect)

    background = threading.Thread(target=pipeline_loop, name="pipeline", daemon=True)
    background.start()
    started = time.perf_counter()
    print(f"{'writes':>7} {'RSS MB':>8} {'elapsed s':>10}")
    print(f"{0:7} {before:8.0f} {0:10.0f}")
    step = max(writes // 10, 1)
    with ThreadPoolExecutor(clients) as pool:
        for done in range(0, writes, step):
            list(pool.map(writer.write, range(done, min(done + step, writes))))
            print(f"{min(done + step, writes):7} {resident_mb()[0]:8.0f} "
                  f"{time.perf_counter() - started:10.0f}", flush=True)
    writing = time.perf_counter() - started
    stop.set()
    runtime.pipeline.wake()
    background.join()
    while runtime.pipeline.pump(schedules=False):  # let the pipeline catch up
        pass
    runtime.mailbox.collect()
    gc.collect()
    after, peak = resident_mb()
    outcomes = ", ".join(f"{kind} {status}: {count}"
                         for (kind, status), count in sorted(writer.outcomes.items()))
    print(f"outcomes: {outcomes}")
    verdict = "under" if after < MEMORY_LIMIT_MB else "NOT under"
    print(f"{writes} writes in {writing:.0f} s; the pipeline had handled all their side effects "
          f"{time.perf_counter() - started - writing:.0f} s later")
    print(f"resident memory: {before:.0f} MB at start, {after:.0f} MB at the end "
          f"(peak {peak:.0f} MB): {verdict} {MEMORY_LIMIT_MB / 1024:.0f} GB")
    return after < MEMORY_LIMIT_MB


if __name__ == "__main__":
    sys.exit(main())
