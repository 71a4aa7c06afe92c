"""INIT per function as Lambda runs it, against a naive function measured in the same run; and
INIT of one tree against another.

`python -m bench init [--json] [--runs N] [--only Fn1,Fn2]` (part of `make bench`):
issue #22's INIT goal. Every function of template.yaml (but the SSE one, a web app behind the
Lambda Web Adapter) and an *anchor*, a naive function written here (`ANCHOR`: FastAPI with one
route, Mangum, Powertools Logger/Tracer/Metrics as their docs show them, a boto3 client made at
module level, one GetItem), each in a fresh interpreter per measurement, with what Lambda gives
a function:

- the template's environment variables for it (Globals and its own, resolved against the local
  stack) and what the Lambda runtime sets (`LAMBDA_TASK_ROOT`, `AWS_LAMBDA_FUNCTION_NAME`, ...);
- tracing as the template configures it: with `Tracing: Active` the X-Ray variables
  (`AWS_XRAY_DAEMON_ADDRESS`, `AWS_XRAY_CONTEXT_MISSING`, and `_X_AMZN_TRACE_ID` per invocation,
  sampled), so Powertools' Tracer is live as on Lambda. The daemon address is a UDP socket of
  this process, which counts the documents the X-Ray SDK sends;
- the code as `make build` ships it: the function's code directory and the layer's package
  copied and compiled to bytecode (`compileall`, unchecked hashes), nothing written at run time
  (`PYTHONDONTWRITEBYTECODE`, from the template);
- only the packages Lambda has: the layer's requirements and boto3, with what they depend on.
  The development virtualenv's other packages (httpx, moto, pytest...) cannot be imported in the
  child, so X-Ray's `patch_all` finds what it finds on Lambda;
- the modules the runtime's bootstrap (awslambdaric) has loaded before the handler's.

Each measurement is INIT (the handler module's import: imports and app build) and the first
invocation: for an HTTP function an authenticated request (a Bearer token of a user made in the
emulator) that reads DynamoDB, its own plain GET or `FIRST_REQUESTS`; for the others the sample
event in `events/`. Work moved from INIT to the first request shows in the second column. The
anchor runs before every `ANCHOR_EVERY` functions of each of `--runs` rounds (default 5), so its
runs spread over the whole measurement as each function's do, and share the machine's load with
them; figures are medians over the runs, ratios those of the medians (a function's INIT median
over the anchor's). `--json` prints `{"anchor_ms", "functions", "anchor_first_request_ms",
"first_request_ms"}` (INIT medians, then first requests), the table going to stderr.

`python -m bench.init --base REV [--after REV] [--runs N] [--only Fn1,Fn2]`: INIT of one
tree against another. Both trees are exported from git (`git archive`) into temporary folders
and compiled to bytecode as `make build` ships them, so neither side pays for compiling — or
one side only, as happens when one tree holds `__pycache__` from an earlier run and the other
does not. For each function the two trees alternate, `--runs` fresh processes each (default 5);
the median INIT (imports + app build) is printed per function with the ratio after/before, then
the totals. Tracing and metrics are off on both sides.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from local import cfn
from .output import on_stack

GOAL = 0.8  # issue #22: every function's INIT at most this times the anchor's
RUNS = 5
ANCHOR_EVERY = 3  # the anchor runs before every third function of each round
# What the bench reports as loaded at INIT (the heavy imports moved off it, or never on it).
WATCH = ("aws_xray_sdk", "boto3", "botocore.client", "pydantic.v1", "emoji")
# What the Python runtime's bootstrap (awslambdaric: bootstrap.py, lambda_runtime_client.py,
# lambda_runtime_marshaller.py) has imported when it imports the handler.
BOOTSTRAP_IMPORTS = ("importlib", "importlib.metadata", "json", "logging", "os", "sys", "time",
                     "traceback", "http", "http.client", "decimal")
# What the Lambda runtime sets for every function, besides the template's variables.
REGION = cfn.REGION
XRAY_DAEMON = "169.254.79.129:2000"  # Lambda's; the bench points it at its own socket

# The anchor: a naive function as the libraries' docs show them (written to a file and shipped
# like a function's code). `MAIN_TABLE` comes from the template, like a function's table.
ANCHOR = '''\
"""A naive Lambda function: FastAPI with one route, Mangum, Powertools and boto3 as their docs
show them (written by bench/init.py, the anchor its INIT figures are compared with)."""

import os

import boto3
from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from fastapi import FastAPI
from mangum import Mangum

logger = Logger()
tracer = Tracer()
metrics = Metrics()
dynamodb = boto3.client("dynamodb")
TABLE = os.environ["MAIN_TABLE"]

app = FastAPI()


@app.get("/item")
def item():
    found = dynamodb.get_item(TableName=TABLE, Key={"PK": {"S": "BENCH#anchor"},
                                                    "SK": {"S": "ITEM"}})
    return {"found": "Item" in found}


asgi = Mangum(app, lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event, context):
    return asgi(event, context)
'''
ANCHOR_ID = "Anchor"

CHILD = f"import {', '.join(BOOTSTRAP_IMPORTS)}\n" + r"""
with open(sys.argv[1], encoding="utf-8") as fh:
    spec = json.load(fh)
blocked = frozenset(spec["blocked"])


class NotOnLambda:
    # This virtualenv's packages that Lambda does not have (neither the layer nor the runtime).
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotOnLambda)
sys.path.insert(0, spec["task_root"])  # Lambda's code directory
module_name, attribute = spec["handler"].rsplit(".", 1)
started = time.perf_counter()
handler = getattr(importlib.import_module(module_name), attribute)
init_ms = (time.perf_counter() - started) * 1000
at_init = [m for m in spec["watch"] if m in sys.modules]


class Context:
    function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
    function_version = "$LATEST"
    memory_limit_in_mb = int(os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
    invoked_function_arn = spec["arn"]
    aws_request_id = spec["request_id"]
    log_group_name = os.environ["AWS_LAMBDA_LOG_GROUP_NAME"]
    log_stream_name = os.environ["AWS_LAMBDA_LOG_STREAM_NAME"]
    identity = client_context = None
    deadline = time.monotonic() + spec["timeout"]

    def get_remaining_time_in_millis(self):
        return max(int((self.deadline - time.monotonic()) * 1000), 0)


context = Context()
os.environ["_X_AMZN_TRACE_ID"] = spec["trace_id"]  # the runtime sets it for each invocation
started = time.perf_counter()
response = handler(spec["event"], context)
first_ms = (time.perf_counter() - started) * 1000
answer = response if isinstance(response, dict) else {}
sys.stdout.flush()
with open(spec["result"], "w", encoding="utf-8") as fh:
    json.dump({"init_ms": init_ms, "first_ms": first_ms, "status": answer.get("statusCode"),
               "failed": len(answer.get("batchItemFailures") or []), "at_init": at_init,
               "layer": getattr(sys.modules.get("stratus"), "__file__", None)}, fh)
os._exit(0)
"""


# --- what Lambda gives a function: the template's settings, the runtime's variables ----------
def _property(template: dict[str, Any], logical_id: str, name: str, default: Any = None) -> Any:
    """A function's property, else the Globals' (SAM copies Globals.Function into each)."""
    props = template.get("Resources", {}).get(logical_id, {}).get("Properties", {})
    if name in props:
        return props[name]
    return template.get("Globals", {}).get("Function", {}).get(name, default)


def tracing_mode(template: dict[str, Any], logical_id: str, resolver: cfn.Resolver) -> str:
    """`Active` or `PassThrough` (Lambda's default when neither the function nor Globals say)."""
    return str(resolver.resolve(_property(template, logical_id, "Tracing", "PassThrough")))


def runtime_env(name: str, *, memory: int, tracing: str, task_root: str,
                xray_daemon: str = XRAY_DAEMON) -> dict[str, str]:
    """The variables the Lambda runtime (python3.13) sets for a function, besides the template's:
    with `Tracing: Active`, the X-Ray daemon's address and the SDK's context-missing policy
    (`_X_AMZN_TRACE_ID` comes with each invocation, CHILD sets it)."""
    env = {
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
        "AWS_LAMBDA_FUNCTION_NAME": name,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory),
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}",
        "AWS_LAMBDA_LOG_STREAM_NAME": "2026/11/28/[$LATEST]bench",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "LAMBDA_TASK_ROOT": task_root,
        "LAMBDA_RUNTIME_DIR": "/var/runtime",
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
    }
    if tracing == "Active":
        host, port = xray_daemon.rsplit(":", 1)
        env.update({"AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR", "AWS_XRAY_DAEMON_ADDRESS": xray_daemon,
                    "_AWS_XRAY_DAEMON_ADDRESS": host, "_AWS_XRAY_DAEMON_PORT": port})
    return env


def function_env(fn: cfn.Function, template: dict[str, Any], resolver: cfn.Resolver, *,
                 task_root: str, layer_root: str, xray_daemon: str = XRAY_DAEMON,
                 plumbing: dict[str, str] | None = None) -> dict[str, str]:
    """Everything `fn`'s process sees, as on Lambda: the runtime's variables, the template's for
    the function (Globals and its own, resolved against the stack), then `plumbing` (credentials
    and the emulator's endpoint). Nothing of this process's environment leaks in but PATH."""
    memory = int(resolver.resolve(_property(template, fn.logical_id, "MemorySize", 128)))
    env = runtime_env(fn.logical_id, memory=memory,
                      tracing=tracing_mode(template, fn.logical_id, resolver),
                      task_root=task_root, xray_daemon=xray_daemon)
    env.update({key: str(resolver.resolve(value)) for key, value in fn.environment.items()})
    env.update(plumbing or {})
    env["PYTHONPATH"] = layer_root  # the layer (/opt/python on Lambda)
    env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
    return env


def anchor_function(template: dict[str, Any], code_dir: Path) -> cfn.Function:
    """The anchor as a function of the template: Globals' settings, its own service name, the
    main table."""
    globals_env = template.get("Globals", {}).get("Function", {}).get("Environment", {})
    env = {**globals_env.get("Variables", {}), "POWERTOOLS_SERVICE_NAME": "anchor",
           "MAIN_TABLE": {"Ref": "MainTable"}}
    return cfn.Function(ANCHOR_ID, code_dir, "app.handler", env,
                        routes=[cfn.Route("GET", "/item")],
                        timeout=int(_property(template, ANCHOR_ID, "Timeout", 3)))


def lambda_distributions(requirements: Path, runtime: tuple[str, ...] = ("boto3",)) -> set[str]:
    """The distributions a function has on Lambda (canonical names): the layer's requirements
    and the runtime's (`runtime`), with all they require (extras and markers honoured)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    lines = [line.split("#", 1)[0].strip() for line in requirements.read_text().splitlines()]
    todo = [Requirement(line) for line in lines if line] + [Requirement(r) for r in runtime]
    seen: set[tuple[str, tuple[str, ...]]] = set()
    while todo:
        requirement = todo.pop()
        key = (canonicalize_name(requirement.name), tuple(sorted(requirement.extras)))
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = importlib.metadata.distribution(requirement.name).requires or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for text in requires:
            needed = Requirement(text)
            if needed.marker is None or any(needed.marker.evaluate({"extra": extra})
                                            for extra in (requirement.extras or {""})):
                todo.append(needed)
    return {name for name, _ in seen}


def not_on_lambda(have: set[str], own: set[str]) -> list[str]:
    """Top-level modules installed here whose distributions are none of `have` (and not the
    standard library's, nor `own`: the shipped code's)."""
    from packaging.utils import canonicalize_name

    return sorted(module for module, dists in importlib.metadata.packages_distributions().items()
                  if module not in sys.stdlib_module_names and module not in own
                  and not any(canonicalize_name(d) in have for d in dists))


# --- the first invocation ---------------------------------------------------------------------
# (method, path, query) for HTTP functions whose own first plain GET is not the request to time
# (no plain GET, or one that needs parameters); `{username}` and `{domain}` are the bench user's.
FIRST_REQUESTS = {
    "OAuthFunction": ("GET", "/api/v1/apps/verify_credentials", ""),
    "AccountsFunction": ("GET", "/api/v1/accounts/verify_credentials", ""),
    "GraphFunction": ("GET", "/api/v1/follow_requests", ""),
    "AdminFunction": ("GET", "/api/v1/admin/accounts", ""),
    "ActivityPubFunction": ("GET", "/.well-known/webfinger", "resource=acct:{username}@{domain}"),
    # Federation's only requests are POSTs, signed by a peer: this one is unsigned (refused).
    "InboxFunction": ("POST", "/users/{username}/inbox", ""),
    "MediaFunction": ("GET", "/api/v1/media/117657226599751661", ""),
    "MediaProxyFunction": ("GET", "/media_proxy/117657226599751661/original", ""),
    "SearchFunction": ("GET", "/api/v2/search", "q={username}"),
}
INBOX_BODY = {"@context": "https://www.w3.org/ns/activitystreams", "type": "Follow",
              "id": "https://peer.example/follows/1", "actor": "https://peer.example/users/alice",
              "object": "https://{domain}/users/{username}"}


def first_request(fn: cfn.Function) -> tuple[str, str, str]:
    """The request a function's first invocation answers: `FIRST_REQUESTS`, else its first
    plain GET (an /api/v2 one if it has one)."""
    if fn.logical_id in FIRST_REQUESTS:
        return FIRST_REQUESTS[fn.logical_id]
    plain = [r for r in fn.routes if r.method in ("GET", "ANY") and "{" not in r.path
             and r.path != "$default"]
    if not plain:
        raise LookupError(f"{fn.logical_id} has no plain GET: name its request in FIRST_REQUESTS")
    route = next((r for r in plain if r.path.startswith("/api/v2")), plain[0])
    return "GET", route.path, ""


def first_event(fn: cfn.Function, *, token: str, username: str, domain: str) -> dict[str, Any]:
    """The first invocation's event: an authenticated request for an HTTP function (API
    Gateway's payload 2.0, routed as the gateway routes it), else the sample in events/."""
    from local.gateway import Router, build_event

    if not fn.routes:
        sample = cfn.ROOT / "events" / f"{fn.logical_id}.json"
        if sample.exists():
            return json.loads(sample.read_text())
        return {"version": "0", "detail-type": "Scheduled Event", "source": "aws.events",
                "detail": {}}
    method, path, query = (part.format(username=username, domain=domain)
                           for part in first_request(fn))
    found = Router(SimpleNamespace(functions={fn.logical_id: fn})).match(method, path)
    if found is None:
        raise LookupError(f"{method} {path} is not a route of {fn.logical_id}")
    route, params = found
    headers = [("host", domain), ("authorization", f"Bearer {token}"),
               ("accept", "application/json"), ("user-agent", "stratus-bench")]
    body = b""
    if method == "POST":
        text = json.dumps(INBOX_BODY).replace("{domain}", domain).replace("{username}", username)
        body = text.encode()
        headers.append(("content-type", "application/activity+json"))
    route_key = "$default" if route.template == "$default" else f"{route.method} {route.template}"
    return build_event(method, path, query, headers, body, "198.51.100.7", route_key, params)


# --- figures --------------------------------------------------------------------------------
@dataclass
class Figures:
    """A function's runs (or the anchor's): INIT and first request, in milliseconds."""

    init: list[float]
    first: list[float]
    statuses: list[Any] = field(default_factory=list)
    xray_documents: float = 0.0  # X-Ray documents sent per run (median)
    at_init: list[str] = field(default_factory=list)  # WATCH modules loaded at INIT

    @property
    def init_ms(self) -> float:
        return statistics.median(self.init)

    @property
    def first_ms(self) -> float:
        return statistics.median(self.first)

    @property
    def total_ms(self) -> float:
        return statistics.median(i + f for i, f in zip(self.init, self.first))



@dataclass
class Row:
    name: str
    figures: Figures
    init_ratio: float
    total_ratio: float

    @property
    def meets(self) -> bool:
        return self.init_ratio <= GOAL


def ratio_table(anchor: Figures, functions: dict[str, Figures]) -> list[Row]:
    """Each function's INIT and INIT + first request against the anchor's, slowest INIT first."""
    rows = [Row(name, figures, figures.init_ms / anchor.init_ms,
                figures.total_ms / anchor.total_ms) for name, figures in functions.items()]
    return sorted(rows, key=lambda row: -row.init_ratio)


def summary(rows: list[Row]) -> str:
    if not rows:
        return "no functions measured"
    met = sum(row.meets for row in rows)
    slowest = rows[0]
    init = statistics.median(row.init_ratio for row in rows)
    total = statistics.median(row.total_ratio for row in rows)
    worst_total = max(rows, key=lambda row: row.total_ratio)
    return (f"{met} of {len(rows)} functions at most {GOAL}× the anchor's INIT (slowest "
            f"{slowest.name} {slowest.init_ratio:.2f}×, median {init:.2f}×); INIT + first "
            f"request: median {total:.2f}×, slowest {worst_total.name} "
            f"{worst_total.total_ratio:.2f}×")


def as_json(anchor: Figures, functions: dict[str, Figures]) -> dict[str, Any]:
    return {"anchor_ms": round(anchor.init_ms, 1),
            "functions": {name: round(f.init_ms, 1) for name, f in functions.items()},
            "anchor_first_request_ms": round(anchor.first_ms, 1),
            "first_request_ms": {name: round(f.first_ms, 1) for name, f in functions.items()}}


def print_table(anchor: Figures, functions: dict[str, Figures], *, runs: int, tracing: str,
                out: Any) -> None:
    print(f"\nINIT as Lambda runs it (issue #22): median of {runs} fresh processes each, tracing "
          f"{tracing} (the template's), first request authenticated and reading DynamoDB; "
          f"anchor (a) = a naive FastAPI + Mangum + Powertools + boto3 function, same run; "
          f"ratios of the medians; ! = over {GOAL}×",
          file=out)
    print(f"{'function':30} {'INIT ms':>8} {'first ms':>9} {'total ms':>9} {'INIT/a':>7} "
          f"{'total/a':>8} {'status':>7} {'X-Ray':>6}  loaded at INIT", file=out)

    def line(name: str, f: Figures, init_ratio: float, total_ratio: float, mark: str) -> str:
        statuses = ",".join(sorted({str(s) for s in f.statuses}))
        return (f"{name:30} {f.init_ms:8.0f} {f.first_ms:9.0f} {f.total_ms:9.0f} "
                f"{init_ratio:6.2f}{mark} {total_ratio:8.2f} {statuses:>7} "
                f"{f.xray_documents:6.0f}  {' '.join(f.at_init) or '-'}")

    print(line("(anchor)", anchor, 1.0, 1.0, " "), file=out)
    rows = ratio_table(anchor, functions)
    for row in rows:
        print(line(row.name, row.figures, row.init_ratio, row.total_ratio,
                   " " if row.meets else "!"), file=out)
    print(summary(rows), file=out, flush=True)


# --- running it -------------------------------------------------------------------------------
def ship(into: Path) -> tuple[Path, Path]:
    """The layer's package, every function's code and the anchor, as `make build` ships them
    (compiled to bytecode, unchecked hashes). Returns (layer root, anchor's code directory)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(cfn.ROOT / "layers/shared/stratus", into / "layer/stratus", ignore=skip)
    shutil.copytree(cfn.ROOT / "functions", into / "functions", ignore=skip)
    (into / "anchor").mkdir()
    (into / "anchor/app.py").write_text(ANCHOR)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                    "unchecked-hash", str(into)], check=True)
    return into / "layer", into / "anchor"


def _trace_id(sampled: bool) -> str:
    return (f"Root=1-{int(time.time()):08x}-{os.urandom(12).hex()};Parent={os.urandom(8).hex()};"
            f"Sampled={int(sampled)}")


def _drain(sink: socket.socket) -> int:
    count = 0
    while True:
        try:
            sink.recv(65536)
        except BlockingIOError:
            return count
        count += 1


@dataclass
class Subject:
    """A function (or the anchor) ready to run: its spec file, environment and directory."""

    name: str
    spec: Path
    result: Path
    env: dict[str, str]
    cwd: str
    samples: list[dict[str, Any]] = field(default_factory=list)


def _run(subject: Subject, sink: socket.socket, sampled: bool) -> None:
    spec = json.loads(subject.spec.read_text())
    spec["trace_id"] = _trace_id(sampled)
    subject.spec.write_text(json.dumps(spec))
    subject.result.unlink(missing_ok=True)
    _drain(sink)
    done = subprocess.run([sys.executable, "-c", CHILD, str(subject.spec)], env=subject.env,
                          cwd=subject.cwd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not subject.result.exists():
        raise RuntimeError(f"{subject.name}: the measured process failed ({done.returncode}):\n"
                           f"{done.stderr[-3000:] or done.stdout[-3000:]}")
    sample = json.loads(subject.result.read_text())
    time.sleep(0.01)  # the last X-Ray datagrams, on loopback
    sample["xray"] = _drain(sink)
    subject.samples.append(sample)


def _figures(samples: list[dict[str, Any]]) -> Figures:
    return Figures([s["init_ms"] for s in samples], [s["first_ms"] for s in samples],
                   statuses=[s["status"] if s["status"] is not None else
                             ("failed" if s["failed"] else "ok") for s in samples],
                   xray_documents=statistics.median(s["xray"] for s in samples),
                   at_init=sorted({m for s in samples for m in s["at_init"]}))


def _bench_user(domain: str) -> tuple[str, str]:
    """A confirmed user of the stack (an Owner, so the admin API answers it) and a token."""
    from stratus.api.accounts import operator
    from stratus.api.oauth import oauth
    from stratus.repo import oauth as oauth_repo

    username = "benchinit"
    account_id, _ = operator.operator_create(username, f"{username}@example.org",
                                             "bench password", role="Owner", confirmed=True)
    scopes = ["read", "write", "follow", "push", "admin:read", "admin:write"]
    app, _ = oauth.create_app("init bench", "urn:ietf:wg:oauth:2.0:oob", " ".join(scopes), None)
    token, raw = oauth.new_token(app, account_id, scopes)
    oauth_repo.put_token(token)
    return username, raw


def run(runtime: Any, *, runs: int = RUNS, only: set[str] | None = None,
        as_json_out: bool = False, out: Any = None) -> dict[str, Any]:
    """Measure every function (or `only` those) and the anchor against the running local
    stack; print the table (to stderr with `as_json_out`) and return the JSON figures."""
    out = out or (sys.stderr if as_json_out else sys.stdout)
    stack = runtime.stack
    template, resolver = stack.template, stack.resolver
    domain = str(resolver.ref("InstanceDomain"))
    username, token = _bench_user(domain)
    functions = [fn for fn in stack.functions.values() if fn.handler != "run.sh"
                 and (not only or fn.logical_id in only)]
    skipped = [fn.logical_id for fn in stack.functions.values() if fn.handler == "run.sh"]
    plumbing = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                "AWS_SESSION_TOKEN": "local", "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
                "AWS_ENDPOINT_URL": os.environ["AWS_ENDPOINT_URL"]}
    tracing = tracing_mode(template, functions[0].logical_id if functions else ANCHOR_ID,
                           resolver)
    with (socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sink,
          tempfile.TemporaryDirectory(prefix="stratus-init-") as folder):
        sink.bind(("127.0.0.1", 0))  # the X-Ray daemon
        sink.setblocking(False)
        daemon = f"127.0.0.1:{sink.getsockname()[1]}"
        root = Path(folder)
        layer, anchor_dir = ship(root / "ship")
        blocked = not_on_lambda(lambda_distributions(cfn.ROOT / "layers/shared/requirements.txt"),
                                own={p.name for p in layer.iterdir()})

        def subject(fn: cfn.Function, task_root: Path) -> Subject:
            spec = {"task_root": str(task_root), "handler": fn.handler, "blocked": blocked,
                    "watch": list(WATCH), "timeout": fn.timeout, "request_id": "bench-init",
                    "arn": f"arn:aws:lambda:{REGION}:{cfn.ACCOUNT}:function:{fn.logical_id}",
                    "event": first_event(fn, token=token, username=username, domain=domain),
                    "result": str(root / f"{fn.logical_id}.result.json"), "trace_id": ""}
            path = root / f"{fn.logical_id}.spec.json"
            path.write_text(json.dumps(spec))
            env = function_env(fn, template, resolver, task_root=str(task_root),
                               layer_root=str(layer), xray_daemon=daemon, plumbing=plumbing)
            return Subject(fn.logical_id, path, Path(spec["result"]), env, str(task_root))

        anchor = subject(anchor_function(template, anchor_dir), anchor_dir)
        subjects = [subject(fn, root / "ship" / fn.code_dir.relative_to(cfn.ROOT))
                    for fn in functions]
        sampled = {s.name: tracing_mode(template, s.name, resolver) == "Active"
                   for s in [anchor, *subjects]}
        print(f"INIT bench: {len(subjects)} functions and the anchor, {runs} rounds "
              f"(skipped: {', '.join(skipped) or 'none'}, a web app behind the Lambda Web "
              f"Adapter)…", file=out, flush=True)
        for round_ in range(runs):
            for i, fn in enumerate(subjects):
                if i % ANCHOR_EVERY == 0:
                    _run(anchor, sink, sampled[anchor.name])
                _run(fn, sink, sampled[fn.name])
            print(f"  round {round_ + 1} of {runs} done", file=out, flush=True)
        mislaid = {s.name for s in subjects for sample in s.samples
                   if sample["layer"] and not sample["layer"].startswith(str(layer))}
        if mislaid:
            raise RuntimeError(f"the stratus package did not come from the shipped copy: {mislaid}")
    anchor_figures = _figures(anchor.samples)
    figures = {s.name: _figures(s.samples) for s in subjects}
    print_table(anchor_figures, figures, runs=runs, tracing=tracing, out=out)
    return as_json(anchor_figures, figures)


def cli(args: list[str], start_stack: Any) -> int:
    """`python -m bench init [--json] [--runs N] [--only Fn1,Fn2]`."""
    parser = argparse.ArgumentParser(prog="python -m bench init",
                                     description="INIT per function against a naive function")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--only", default="", help="function logical ids, comma-separated")
    options = parser.parse_args(args)
    return on_stack(start_stack, lambda runtime: run(
        runtime, runs=options.runs, only=set(filter(None, options.only.split(","))),
        as_json_out=options.json), options.json)


# --- one tree against another (tracing off) --------------------------------------------------
TREE_CHILD = r"""
import importlib.util, json, os, sys, time
sys.path.insert(0, os.path.dirname(sys.argv[1]))  # Lambda's code directory: sibling modules
t0 = time.perf_counter()
spec = importlib.util.spec_from_file_location("fn", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
getattr(module, sys.argv[2])
print(json.dumps({"init_ms": (time.perf_counter() - t0) * 1000}))
"""
QUIET = {"POWERTOOLS_SERVICE_NAME": "bench", "POWERTOOLS_METRICS_DISABLED": "true",
         "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_LOG_LEVEL": "WARNING",
         "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "bench",
         "AWS_SECRET_ACCESS_KEY": "bench", "PYTHONDONTWRITEBYTECODE": "1"}


def export(rev: str, into: Path) -> Path:
    """The tree of `rev`, as committed, in `into`."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(cfn.ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                    "unchecked-hash", str(into / "layers"), str(into / "functions")], check=True)
    return into


def init_ms(root: Path, fn: cfn.Function) -> float:
    module, attribute = fn.handler.rsplit(".", 1)
    path = root / fn.code_dir.relative_to(cfn.ROOT) / f"{module}.py"
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{root / 'layers/shared'}:{root}"}
    out = subprocess.run([sys.executable, "-c", TREE_CHILD, str(path), attribute], env=env,
                         cwd=root, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["init_ms"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the tree before (a git revision)")
    parser.add_argument("--after", default="HEAD", help="the tree after (default HEAD)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="function logical ids, comma-separated")
    args = parser.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    functions = [f for f in cfn.functions(cfn.load_template())
                 if f.handler != "run.sh" and (not only or f.logical_id in only)]
    with tempfile.TemporaryDirectory() as folder:
        trees = {"before": export(args.base, Path(folder) / "before"),
                 "after": export(args.after, Path(folder) / "after")}
        print(f"INIT ms, median of {args.runs} alternating fresh processes per tree: "
              f"{args.base} → {args.after}")
        totals = {"before": 0.0, "after": 0.0}
        for fn in functions:
            samples: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.runs):
                for label, root in trees.items():
                    samples[label].append(init_ms(root, fn))
            before, after = (statistics.median(samples[k]) for k in ("before", "after"))
            totals["before"] += before
            totals["after"] += after
            print(f"{fn.logical_id:30} {before:8.0f} {after:8.0f} {after / before:6.2f}",
                  flush=True)
        print(f"{'total':30} {totals['before']:8.0f} {totals['after']:8.0f} "
              f"{totals['after'] / totals['before']:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
