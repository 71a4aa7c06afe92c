"""`make fuzz`: schemathesis against the local stack; reports requests, 5xx and tracebacks.

The stack runs in a child process (in-process AWS emulator, like the tests; the stream, queue
and timer consumers pumped like `make dev`) behind a real HTTP server on a spare loopback port,
with its output in `server.log`. It is seeded with two users, statuses, a poll, media and a
scheduled status, and a token for an owner-role user holding every scope. Schemathesis then runs
twice: with the community OpenAPI (tests/reference/mastodon-openapi.json, limited to the
operations Stratus routes) and with the server's own OpenAPI (built from the route table,
`local.routes`). Path parameters carry the seeded ids as examples, so the example and coverage
phases reach real objects as well as the 404 paths.

The server counts every response it sends and logs each 5xx; afterwards the log is searched for
tracebacks. The exit status is non-zero on any 5xx, any traceback, or fewer requests than
`--min-requests`. Figures of a full run are in docs/security.md.

    python -m local.fuzz                        # the full run (≥ 10,000 requests)
    python -m local.fuzz --max-examples 3 --phases examples,coverage --min-requests 200
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import cfn

COMMUNITY_SPEC = cfn.ROOT / "tests" / "reference" / "mastodon-openapi.json"
TRACEBACK = "Traceback (most recent call last)"
SCOPES = "read write follow push admin:read admin:write"
FULL = {"max_examples": 60, "phases": "examples,coverage,fuzzing,stateful", "min_requests": 10000}


# --- the server (child process) ----------------------------------------------------------------
class Counting:
    """ASGI wrapper: counts responses by status and logs every 5xx (and any exception that
    escapes the gateway, which a real API Gateway would answer with a 500)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.statuses: Counter[int] = Counter()
        self.lock = threading.Lock()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 0

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:  # noqa: BLE001 - counted and logged: this is what the fuzz looks for
            print(traceback.format_exc(), flush=True)
            if not status:
                status = 500
                await send({"type": "http.response.start", "status": 500, "headers": []})
                await send({"type": "http.response.body", "body": b""})
        with self.lock:
            self.statuses[status] += 1
        if status >= 500:
            query = scope.get("query_string", b"").decode("latin-1")
            print(f"FUZZ 5XX {status} {scope['method']} {scope['path']}"
                  f"{'?' + query if query else ''}", flush=True)


def _seed(runtime: Any) -> dict[str, Any]:
    """Users, a token with every scope, and one object of each kind the path ids name."""
    import base64

    from starlette.testclient import TestClient

    from stratus.repo import base
    from stratus.repo import oauth as oauth_repo
    from stratus.services import accounts, oauth

    def user(name: str, role: str | None = None) -> str:
        data = accounts.NewAccount(username=name, email=f"{name}@example.org",
                                   password="correct horse battery")
        items = accounts.new_account_items(data, approved=True, confirmed=True,
                                           role_id=accounts.role_id_for(role))
        base.transact(accounts.create_ops(*items))
        return items[0]["id"]

    with TestClient(runtime.gateway, base_url=runtime.base_url) as client:
        created = client.post("/api/v1/apps", data={
            "client_name": "fuzz", "scopes": SCOPES,
            "redirect_uris": "urn:ietf:wg:oauth:2.0:oob"}).json()
        app = oauth.get_app(created["client_id"])
        alice, bob = user("alice", "owner"), user("bob")

        def token(account_id: str) -> str:
            item, raw = oauth.new_token(app, account_id, SCOPES.split())
            oauth_repo.put_token(item)
            return raw

        mine, theirs = ({"Authorization": f"Bearer {token(a)}"} for a in (alice, bob))

        def post(headers: dict[str, str], **data: Any) -> dict[str, Any]:
            response = client.post("/api/v1/statuses", json=data, headers=headers)
            assert response.status_code == 200, response.text
            return response.json()

        status = post(mine, status="Hello #fuzz @bob")
        post(theirs, status="a reply", in_reply_to_id=status["id"])
        private = post(theirs, status="followers only", visibility="private")
        poll = post(mine, status="Which?", poll={"options": ["a", "b"], "expires_in": 3600})
        png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
                               "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        media = client.post("/api/v1/media", headers=mine,
                            files={"file": ("dot.png", png, "image/png")}).json()
        scheduled = client.post("/api/v1/statuses", headers=mine, json={
            "status": "later", "scheduled_at": "2999-01-01T00:00:00Z"}).json()
    return {"token": mine["Authorization"][7:], "ids": {
        "account": alice, "other_account": bob, "status": status["id"],
        "private_status": private["id"], "poll": poll["poll"]["id"],
        "media": media.get("id"), "scheduled": scheduled.get("id"), "username": "alice"}}


def _example_for(path: str, name: str, ids: dict[str, Any]) -> str | None:
    """The seeded object a path parameter names (community paths call every id `{id}`)."""
    kinds = (("/statuses/", "status"), ("/polls/", "poll"), ("/media/", "media"),
             ("/scheduled_statuses/", "scheduled"), ("/accounts/", "other_account"))
    if name == "account_id":  # someone else: staff actions on the fuzzing owner would lock it out
        return ids["other_account"]
    if name in ("status_id", "poll_id", "media_id", "scheduled_id"):
        return ids.get(name.removesuffix("_id"))
    if name == "username":
        return ids["username"]
    if name == "id":
        for marker, kind in kinds:
            if marker in path:
                return ids.get(kind)
    return None


def _with_examples(spec: dict[str, Any], ids: dict[str, Any]) -> dict[str, Any]:
    from .routes import iter_operations

    for path, _method, operation in iter_operations(spec):
        params = operation.get("parameters", []) + spec["paths"][path].get("parameters", [])
        for param in params:
            if param.get("in") == "path":
                example = _example_for(path, param["name"], ids)
                if example:
                    param["example"] = example
    return spec


def community_openapi(table: list[Any]) -> dict[str, Any]:
    """The community spec, limited to the operations Stratus routes (the others would all be
    the catch-all 404), without its servers (the driver gives the URL) and without links to
    the operations left out."""
    from .routes import iter_operations

    spec = json.loads(COMMUNITY_SPEC.read_text())
    kept: dict[str, dict[str, Any]] = {}
    for path, method, operation in iter_operations(spec):
        concrete = re.sub(r"\{[^}]+\}", "1", path)
        if any(r.method == method and r.route.path_regex.match(concrete) for r in table):
            kept.setdefault(path, {k: v for k, v in spec["paths"][path].items()
                                   if k not in ("get", "put", "post", "delete", "patch")})
            kept[path][method.lower()] = operation
    spec["paths"] = kept
    spec.pop("servers", None)
    # Links (the stateful phase follows them) only to operations that are still there.
    operation_ids = {op.get("operationId") for _p, _m, op in iter_operations(spec)}
    links = spec.get("components", {}).get("links", {})
    for name in [n for n, link in links.items() if link.get("operationId") not in operation_ids]:
        del links[name]
    for _path, _method, operation in iter_operations(spec):
        for response in operation.get("responses", {}).values():
            for name, link in list(response.get("links", {}).items()):
                if "$ref" in link:
                    gone = link["$ref"].rsplit("/", 1)[-1] not in links
                else:
                    gone = link.get("operationId") not in operation_ids
                if gone:
                    del response["links"][name]
    return spec


def serve(workdir: Path, port: int) -> None:
    from moto import mock_aws

    from .emulator import prepare
    from .routes import own_openapi, route_table
    from .runtime import start

    prepare()
    with mock_aws():
        domain = f"localhost:{port}"
        runtime = start(domain, f"http://{domain}", mail_dir=workdir / "mail", retry_delay=0,
                        run_schedules_now=False)
        runtime.base_url = f"http://{domain}"
        seeded = _seed(runtime)
        table = route_table(runtime.stack)
        (workdir / "routes.json").write_text(json.dumps(
            [{"method": r.method, "path": r.path, "params": r.path_params} for r in table]))
        (workdir / "community.json").write_text(json.dumps(
            _with_examples(community_openapi(table), seeded["ids"])))
        (workdir / "stratus.json").write_text(json.dumps(
            _with_examples(own_openapi(runtime.stack), seeded["ids"])))

        stop = threading.Event()

        def pump() -> None:
            while not stop.is_set():
                try:
                    work = runtime.pipeline.pump()
                    runtime.mailbox.collect()
                except Exception:  # noqa: BLE001 - logged; the fuzz counts it
                    print(traceback.format_exc(), flush=True)
                    work = 0
                if not work:
                    stop.wait(0.25)

        threading.Thread(target=pump, daemon=True).start()
        import uvicorn

        counting = Counting(runtime.gateway)
        server = uvicorn.Server(uvicorn.Config(counting, host="127.0.0.1", port=port,
                                               log_level="warning", lifespan="off"))
        threading.Thread(target=_announce, args=(server, workdir, seeded), daemon=True).start()
        try:
            server.run()
        except KeyboardInterrupt:
            pass  # uvicorn re-raises the SIGINT it already handled
        finally:
            stop.set()
            (workdir / "summary.json").write_text(json.dumps(
                {str(k): v for k, v in sorted(counting.statuses.items())}))


def _announce(server: Any, workdir: Path, seeded: dict[str, Any]) -> None:
    while not server.started:
        time.sleep(0.05)
    # Written whole, then renamed: the parent waits for the file to exist and reads it at
    # once, so it must never see it half-written.
    (workdir / "ready.json.tmp").write_text(json.dumps(seeded))
    (workdir / "ready.json.tmp").replace(workdir / "ready.json")


# --- hand-made hostile input, on every route of the route table ------------------------------
# Parameter names the services read (Mastodon's), each sent with values of the wrong type or
# text that no UTF-8 store keeps: what schemathesis, which only generates valid UTF-8 and the
# types a spec declares, does not try.
FIELDS = ("status", "spoiler_text", "sensitive", "visibility", "language", "media_ids", "poll",
          "in_reply_to_id", "scheduled_at", "content_type", "allowed_mentions",
          "media_attributes", "display_name", "note", "locked", "bot", "discoverable",
          "fields_attributes", "source", "comment", "description", "focus", "file", "avatar",
          "header", "choices", "username", "email", "password", "agreement", "locale", "reason",
          "date_of_birth", "client_name", "redirect_uris", "scopes", "website", "grant_type",
          "client_id", "client_secret", "code", "token", "limit", "offset", "max_id",
          "since_id", "min_id", "id", "pinned", "tagged", "exclude_reblogs", "only_media", "acct",
          "origin", "by_domain", "email_domain", "ip", "redirect_uri", "code_verifier")
ODD_VALUES: tuple[Any, ...] = (
    "\ud800", "²", "¹²³", "9" * 40, -1, 2 ** 70, 1.5, True, None, [], ["²", {"a": ["b"]}],
    {"0": {"name": "²", "value": "\udfff"}, "²": "x"}, {"options": 5, "expires_in": "²"},
    "a" * 100_000)
ODD_IDS = ("²", "¹²³", "١٢٣", "9" * 30, "99999999999999999999", "-1", "0", "%ED%A0%80", "%00")
RAW_BODIES = (
    ("application/json", b'{"a": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"),
    ("application/json", b'{"status": NaN, "limit": Infinity}'),
    ("application/json", b'{"status": "\xed\xa0\x80"}'),
    ("application/json", b'{"status": "\\ud800", "spoiler_text": "\\udfff"}'),
    ("application/json", b"[1, 2]"),
    ("application/json", b'"just a string"'),
    ("application/x-www-form-urlencoded", b"status=a%ED%A0%80b&note=%FF"),
    ("application/x-www-form-urlencoded", b"a" + b"[b]" * 100 + b"=1"),
    ("application/x-www-form-urlencoded", b"&".join(b"f%d=1" % i for i in range(3000))),
    ("multipart/form-data; boundary=X",
     b'--X\r\nContent-Disposition: form-data; name="status"\r\n\r\n\xed\xa0\x80\r\n--X--\r\n'),
    ("multipart/form-data; boundary=X", b"--X\r\nnot a part"),
)
QUERIES = ("max_id=²", "since_id=¹²³", "min_id=%ED%A0%80", "limit=NaN", "limit=1e400",
           "limit=-5", "offset=99999999999999999999999", "id[]=²&id[]=abc", "id=%FF",
           "a" + "[b]" * 100 + "=1", "pinned=²&tagged=%00&exclude_replies[]=1")


def hostile_requests(routes: list[dict[str, Any]], ids: dict[str, Any],
                     per_field: bool) -> Iterator[tuple[str, str, dict[str, str], bytes]]:
    """(method, path+query, headers, body) for every route: odd path ids, odd queries, raw
    bodies the parsers must refuse, and each known field with each odd value (all fields at
    once unless `per_field`)."""
    def concrete(path: str, value: str | None = None) -> str:
        return re.sub(r"\{([^}]+)\}", lambda m: value if value is not None else str(
            _example_for(path, m.group(1), ids) or "1"), path)

    for number, route in enumerate(routes):
        method, path = route["method"], route["path"]
        if route["params"] and route["params"] != ["username"]:
            for odd in ODD_IDS:
                yield method, concrete(path, odd), {}, b""
        for query in QUERIES:
            yield method, f"{concrete(path)}?{query}", {}, b""
        if method == "GET":
            continue
        for content_type, raw in RAW_BODIES:
            yield method, concrete(path), {"Content-Type": content_type}, raw
        documents = [{field: value for field in FIELDS} for value in ODD_VALUES]
        if per_field:  # each field alone, its odd value turning with the route
            documents += [{field: ODD_VALUES[(number + turn) % len(ODD_VALUES)]}
                          for turn, field in enumerate(FIELDS)]
        for document in documents:
            yield (method, concrete(path), {"Content-Type": "application/json"},
                   json.dumps(document).encode())


def run_hostile(base_url: str, token: str, workdir: Path, mode: str) -> int:
    """Send the hostile requests: `per-field`, `all-fields`, or a `sample` (every 8th of
    `all-fields`, for the short run in the test suite)."""
    import itertools

    import httpx

    routes = json.loads((workdir / "routes.json").read_text())
    ids = json.loads((workdir / "ready.json").read_text())["ids"]
    requests = hostile_requests(routes, ids, per_field=mode == "per-field")
    if mode == "sample":
        requests = itertools.islice(requests, 0, None, 8)
    sent = 0
    with httpx.Client(base_url=base_url, timeout=60) as http:
        for method, target, headers, body in requests:
            http.request(method, target, content=body or None,
                         headers={"Authorization": f"Bearer {token}", **headers})
            sent += 1
    return sent


# --- the driver ------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _environment() -> dict[str, str]:
    from .runtime import AWS_DEFAULTS

    env = {**os.environ, **AWS_DEFAULTS, "POWERTOOLS_SERVICE_NAME": "stratus-fuzz",
           "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_DISABLED": "true",
           "POWERTOOLS_LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join([str(cfn.ROOT / "layers" / "shared"), str(cfn.ROOT)])}
    env.pop("AWS_ENDPOINT_URL", None)
    return env


def run(*, max_examples: int, phases: str, seed: int, workdir: Path, max_time: int | None = None,
        workers: int = 1, hostile: str = "per-field") -> dict[str, Any]:
    """Start the server, run schemathesis with both specs, stop the server; the figures."""
    port = _free_port()
    env = _environment()
    started = time.monotonic()
    with open(workdir / "server.log", "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "local.fuzz", "--serve", str(workdir),
                                   "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                                  env=env, cwd=cfn.ROOT)
        try:
            while not (workdir / "ready.json").exists():
                if server.poll() is not None:
                    raise RuntimeError("the fuzz server did not start; see "
                                       f"{workdir / 'server.log'}")
                time.sleep(0.1)
            seeded = json.loads((workdir / "ready.json").read_text())
            runs = {}
            for name in ("community", "stratus"):
                command = [str(Path(sys.executable).parent / "st"), "run",
                           str(workdir / f"{name}.json"), "--url", f"http://127.0.0.1:{port}",
                           "--header", f"Authorization: Bearer {seeded['token']}",
                           "--checks", "not_a_server_error", "--max-examples", str(max_examples),
                           "--phases", phases, "--seed", str(seed), "--workers", str(workers),
                           "--no-shrink", "--suppress-health-check", "all",
                           "--request-timeout", "30", "--warnings", "off",
                           "--generation-database", "none"]
                if max_time:
                    command += ["--max-time", str(max_time)]
                with open(workdir / f"schemathesis-{name}.log", "w") as out:
                    # In the work directory: schemathesis keeps a cache where it runs.
                    runs[name] = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT,
                                                env={**os.environ, "NO_COLOR": "1"},
                                                cwd=workdir).returncode
            hostile_sent = run_hostile(f"http://127.0.0.1:{port}", seeded["token"], workdir,
                                       hostile) if hostile != "off" else 0
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    statuses = json.loads((workdir / "summary.json").read_text()) \
        if (workdir / "summary.json").exists() else {}
    text = (workdir / "server.log").read_text(errors="replace")
    return {"requests": sum(statuses.values()), "statuses": statuses,
            "server_errors": sum(v for k, v in statuses.items() if int(k) >= 500),
            "tracebacks": text.count(TRACEBACK), "schemathesis_exit": runs,
            "hostile_requests": hostile_sent,
            "seconds": round(time.monotonic() - started, 1), "workdir": str(workdir)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-examples", type=int, default=FULL["max_examples"],
                        help="test cases per operation and phase")
    parser.add_argument("--phases", default=FULL["phases"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-time", type=int, default=None, help="seconds per spec")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--min-requests", type=int, default=FULL["min_requests"])
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--hostile", choices=("per-field", "all-fields", "sample", "off"),
                        default="per-field", help="hand-made bad input on every route: each "
                        "field alone too, all fields at once only, every 8th of those, or none")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port)
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="stratus-fuzz-"))
    workdir.mkdir(parents=True, exist_ok=True)
    figures = run(max_examples=args.max_examples, phases=args.phases, seed=args.seed,
                  workdir=workdir, max_time=args.max_time, workers=args.workers,
                  hostile=args.hostile)
    print(json.dumps(figures, indent=2))
    failed = (figures["server_errors"] or figures["tracebacks"]
              or figures["requests"] < args.min_requests)
    if failed:
        print(f"FAILED: {figures['server_errors']} responses 5xx, {figures['tracebacks']} "
              f"tracebacks, {figures['requests']} requests (minimum {args.min_requests}); "
              f"see {workdir}/server.log", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
