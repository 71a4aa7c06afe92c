"""`python -m bench cost [--json] [--quick] [--busy K] [--shards S] [--expire-days D]`
(`costs` is the same; part of `make bench`): what the stack costs on AWS per monthly active user
(MAU) a month at 100, 10,000 and 1,000,000 MAU, and per million requests of the 10,000-MAU mix,
pay-per-request and with provisioned capacity (issue #22, "Cost"; docs/performance.md has the
figures, the profile argued and the assumptions in prose).

The run, in one process on an in-process emulator:
1. builds the instance (bench/instance.py: 30 members with lognormal follower counts, their
   local and remote followers, 12 remote posters, listeners on WebSockets, push subscribers);
2. measures the mix quiet (bench/mix.py: one request, then a drain of the pipeline);
3. measures the activities of issue #22's goals one by one (bench/activities.py: an inbound
   Create of a known actor with 15 local followers and with 30 more, a local like, a local
   post): invocations, SQS requests, DynamoDB units;
4. measures the mix busy: k requests of a kind (`--busy`, default 10), then a drain, the
   stream's records batched per shard (`--shards`, default 4: bench/busy.py), each writing
   kind bracketed by scans of what the tables and the bucket hold (bench/storage.py);
5. prices each size (bench/result.py, bench/pricing.py): the profile's counts (bench/
   profile.py), quiet or busy events as the size's traffic is, the storage line's 12th month
   (with and without the expiry of untouched remote statuses after `--expire-days`, default
   30), the idle cost (`python -m bench idle`), pay-per-request and provisioned.

`--quick` builds a small instance, sends each kind fewer times and busy 3 at a time (to see the
bench work, not for the figures; with busy 10 it took 14 minutes on the loaded shared machine). `--json` prints one object: `{"per_mau_month": {"100":
{"pay_per_request": $, "provisioned": $}, "10000": {...}, "1000000": {...}},
"per_million_requests": {"pay_per_request": $, "provisioned": $}, "by_service": {...},
"activities": {"inbound_create": {"invocations", "sqs", "read_units", "write_units", ...},
"local_like": {...}, "local_post": {...}}, "storage_12_months": {...}, ...}` (and the details:
`sizes`, `kinds`, ...). The full run took 64 minutes on a loaded shared 2-core machine;
everything but the durations is the same from run to run on the same code (seeded; durations
are CPU time, so a busy machine slows the run but changes them little).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import contextmanager
from collections.abc import Iterator
from typing import Any

from . import activities, busy, mix, storage
from . import instance as fixture
from .instance import DOMAIN, Instance, Peers
from .pricing import Deployment
from .result import Result, price

QUICK = {"REGULAR_MEMBERS": 8, "BIG_FOLLOWERS": (1_500,), "LISTENERS": 6,
         "PUBLIC_LISTENERS": 1, "PUSH_SUBSCRIBERS": 2, "MEMBERS_FOLLOWED": 4,
         "REMOTE_POSTERS": 4, "POSTER_HOSTS": 2, "HISTORY_POSTS": 2, "REMOTE_NOTES": 1,
         "REMOTE_POOL": 600, "LOCAL_POOL": 400, "REMOTE_HOSTS": 60}


def start_in_process() -> tuple[Any, Any]:
    """The stack on moto in this process (as the tests run it: the same botocore calls, without
    the loopback HTTP server, which makes each call ~10 times slower here)."""
    import os

    os.environ.update(POWERTOOLS_SERVICE_NAME="bench", POWERTOOLS_METRICS_DISABLED="true",
                      POWERTOOLS_TRACE_DISABLED="true", POWERTOOLS_LOG_LEVEL="WARNING")
    from moto import mock_aws

    from local.emulator import prepare
    from local.runtime import AWS_DEFAULTS, STATE_DIR, start

    for key, value in AWS_DEFAULTS.items():
        os.environ[key] = value
    os.environ.pop("AWS_ENDPOINT_URL", None)
    prepare()
    mock = mock_aws()
    mock.start()
    runtime = start(DOMAIN, f"http://{DOMAIN}", mail_dir=STATE_DIR / "bench-mail",
                    keep_clients=True, extra_env={"POWERTOOLS_LOG_LEVEL": "WARNING",
                                                  "POWERTOOLS_SERVICE_NAME": "bench"})
    return runtime, mock


@contextmanager
def quick() -> Iterator[list[mix.Kind]]:
    """A small instance, and each kind sent at most twice."""
    saved = {name: getattr(fixture, name) for name in QUICK}
    for name, value in QUICK.items():
        setattr(fixture, name, value)
    try:
        yield [mix.Kind(k.label, k.weight, min(k.samples, 2), k.send, k.key, k.busy)
               for k in mix.CLIENT_MIX + mix.INBOUND_MIX]
    finally:
        for name, value in saved.items():
            setattr(fixture, name, value)


def idle_per_month() -> tuple[float | None, str]:
    """The stack's cost a month with no traffic, from `python -m bench idle`."""
    try:
        from .idle import compute

        return float(compute().per_month), "python -m bench idle"
    except Exception as exc:  # noqa: BLE001 - another part's failure is reported, not fatal
        return None, f"python -m bench idle failed ({type(exc).__name__}: {exc})"


def measure_all(runtime: Any, peers: Peers, log: Any, *, kinds: list[mix.Kind] | None = None,
                k: int = 10, shards: int = 4, expire_days: int = 30) -> Result:
    """Steps 1-5 of the module docstring on a running stack."""
    started = time.perf_counter()
    kinds = kinds if kinds is not None else mix.CLIENT_MIX + mix.INBOUND_MIX
    instance = Instance(runtime, peers, log).build()
    try:
        log(f"Measuring the mix, quiet (a drain after each request; "
            f"{time.perf_counter() - started:.0f} s)…")
        mix.warm(instance, kinds)
        quiet, _ = mix.measure(instance, log, kinds=kinds)
        log(f"Measuring the activities ({time.perf_counter() - started:.0f} s)…")
        acts = activities.measure(instance, log)
        found_busy: dict[str, mix.Measured] = {}
        if k > 1:
            log(f"Measuring the mix, busy ({k} requests a drain, {shards} stream shards; "
                f"{time.perf_counter() - started:.0f} s)…")
            scans = [0.0]

            def scan() -> dict[tuple[str, int], float]:
                begun = time.perf_counter()
                try:
                    return storage.scan(runtime.stack)
                finally:
                    scans[0] += time.perf_counter() - begun

            with busy.sharded(runtime.pipeline, shards) as batches:
                found_busy, _ = mix.measure(instance, log, busy=k, kinds=kinds, scan=scan)
            log(f"  busy pass done ({time.perf_counter() - started:.0f} s; storage scans "
                f"{scans[0]:.0f} s)")
            if batches["dropped"]:
                log(f"  {batches['dropped']} stream batches failed and were dropped")
    finally:
        instance.close()
    idle, source = idle_per_month()
    pitr = {info.logical for info in storage.tables(runtime.stack).values() if info.pitr}
    result = price(quiet, found_busy, acts, Deployment.of(runtime.stack.template), pitr, idle,
                   source, time.perf_counter() - started, k=k, expire_days=expire_days)
    result.options.update(shards=shards, kinds=len(kinds))
    return result


def run(as_json: bool = False, *, quick_run: bool = False, k: int = 10, shards: int = 4,
        expire_days: int = 30) -> Result:
    out = sys.stderr if as_json else sys.stdout

    def log(text: str) -> None:
        print(text, file=out, flush=True)

    import warnings

    from .cost_report import report

    warnings.filterwarnings("ignore", message="No application metrics to publish")
    runtime, mock = start_in_process()
    peers = Peers()
    try:
        log("Cost bench: building the instance…")
        if quick_run:
            with quick() as kinds:
                result = measure_all(runtime, peers, log, kinds=kinds, k=k, shards=shards,
                                     expire_days=expire_days)
                result.options["quick"] = True
                report(result, out)
        else:
            result = measure_all(runtime, peers, log, k=k, shards=shards,
                                 expire_days=expire_days)
            report(result, out)
    finally:
        peers.close()
        mock.stop()
    return result


def cli(args: list[str]) -> int:
    """`python -m bench cost [--json] [--quick] [--busy K] [--shards S] [--expire-days D]`."""
    parser = argparse.ArgumentParser(prog="python -m bench cost")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--busy", type=int, default=None, metavar="K",
                        help="requests a drain in the busy pass (1: no busy pass; default 10, "
                             "3 with --quick)")
    parser.add_argument("--shards", type=int, default=4, metavar="S")
    parser.add_argument("--expire-days", type=int, default=30, metavar="D")
    options = parser.parse_args(args)
    k = options.busy if options.busy is not None else (3 if options.quick else 10)
    settings = {"quick_run": options.quick, "k": max(k, 1),
                "shards": max(options.shards, 1), "expire_days": options.expire_days}
    if not options.json:
        run(**settings)
        return 0
    from .output import stdout_to_stderr

    with stdout_to_stderr():
        result = run(as_json=True, **settings)
    print(json.dumps(result.as_json()))
    return 0
