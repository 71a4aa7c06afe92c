"""`make fuzz`: schemathesis against the local stack; reports requests, 5xx and tracebacks.

The stack runs in a child process (in-process AWS emulator, like the tests; the stream, queue
and timer consumers pumped like `make dev`) behind a real HTTP server on a spare loopback port,
with its output in `server.log`. It is seeded with two users, statuses, a poll, media and a
scheduled status, and a token for an owner-role user holding every scope. Schemathesis then runs
twice: with the community OpenAPI (tests/reference/mastodon-openapi.json, limited to the
operations Stratus routes) and with the server's own OpenAPI (built from the route table,
`local.routes`). Path parameters carry the seeded ids as examples, so the example and coverage
phases reach real objects as well as the 404 paths.

Before them (while the seeded objects are as seeded), the inboxes: two loopback peers (each its
own host) serve actors with real RSA keys, and `--inbox` activities (5,000) are POSTed to
`/inbox`, `/users/alice/inbox`, `/actor/inbox` and an unknown user's inbox — malformed,
oversized and 10,000-deep bodies, random JSON shapes, every field of the wrong type, signatures
missing, garbled, expired, forged, by another actor's key or a key of ours, and activities
correctly signed by a peer but hostile in content (ids on other hosts, Announce ids colliding
with our URIs, others' objects) — each one an activity that must change nothing. The server
counts the table's items by type when its queues are drained, before and after (the worker's
once-claims aside).

The server counts every response it sends and logs each 5xx; afterwards the log is searched for
tracebacks. The exit status is non-zero on any 5xx, any traceback, any item changed by the
inbox phase, or fewer requests than `--min-requests`. Figures of a full run are in
docs/security.md.

    python -m local.fuzz                        # the full run (≥ 10,000 requests)
    python -m local.fuzz --max-examples 3 --phases examples,coverage --min-requests 200
    python -m local.fuzz --specs '' --hostile off --inbox 5000 --min-requests 0   # inboxes only
"""

from __future__ import annotations

import argparse
import base64
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
FULL = {"max_examples": 60, "phases": "examples,coverage,fuzzing,stateful", "min_requests": 10000,
        "inbox": 5000}
SPECS = ("community", "stratus")


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
    from stratus.api.accounts import accounts, operator
    from stratus.api.oauth import oauth
    from stratus.repo import base
    from stratus.repo import oauth as oauth_repo

    def user(name: str, role: str | None = None) -> str:
        data = accounts.NewAccount(username=name, email=f"{name}@example.org",
                                   password="correct horse battery")
        items = accounts.new_account_items(data, approved=True, confirmed=True,
                                           role_id=operator.role_id_for(role))
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
        seeded = {**_seed(runtime), "domain": domain}
        table = route_table(runtime.stack)
        (workdir / "routes.json").write_text(json.dumps(
            [{"method": r.method, "path": r.path, "params": r.path_params} for r in table]))
        (workdir / "community.json").write_text(json.dumps(
            _with_examples(community_openapi(table), seeded["ids"])))
        (workdir / "stratus.json").write_text(json.dumps(
            _with_examples(own_openapi(runtime.stack), seeded["ids"])))

        stop = threading.Event()
        control = workdir / "control"
        control.mkdir(exist_ok=True)

        def pump() -> None:
            quiet = 0
            while not stop.is_set():
                # Asked before this round looked for work: what the driver sent before asking
                # is seen by this round.
                asked = list(control.glob("*.want"))
                try:
                    work = runtime.pipeline.pump()
                    runtime.mailbox.collect()
                except Exception:  # noqa: BLE001 - logged; the fuzz counts it
                    print(traceback.format_exc(), flush=True)
                    work = 0
                quiet = 0 if work else quiet + 1
                if quiet >= 2 and asked:  # two rounds with nothing to do: the queues are drained
                    _answer_counts(asked)
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


def _answer_counts(asked: list[Path]) -> None:
    """The driver asks for the table's items by type (`<name>.want`) once the queues are
    drained; answered in `<name>.json`, written whole then renamed."""
    for want in asked:
        from stratus.repo import base
        from stratus.repo.client import dynamodb

        counts: Counter[str] = Counter()
        pages = dynamodb().get_paginator("scan").paginate(
            TableName=base.table(), ProjectionExpression="#t",
            ExpressionAttributeNames={"#t": "type"})
        for page in pages:
            counts.update(raw.get("type", {}).get("S", "?") for raw in page["Items"])
        answer = want.with_suffix(".json")
        answer.with_suffix(".tmp").write_text(json.dumps(dict(sorted(counts.items()))))
        answer.with_suffix(".tmp").replace(answer)
        want.unlink()


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


# --- the inbox: what a hostile server POSTs -------------------------------------------------------
# Item types a refused or dropped activity may still write: the worker's once-claim on (actor,
# activity id), taken before the activity's use case runs.
BOOKKEEPING = ("dedupe",)
INBOX_PATHS = (("/inbox", 10), ("/users/alice/inbox", 7), ("/actor/inbox", 2),
               ("/users/nobody/inbox", 1))
ODD_FIELDS: tuple[Any, ...] = ODD_VALUES + (
    0, -0.0, 2 ** 64, "", " ", "\u0000", "http://", "javascript:alert(1)", "//evil.example/x",
    "acct:alice", {"id": 5}, {"id": None, "type": []}, ["a", "b"], [None], [[[]]],
    {"type": "Note", "content": {"a": 1}}, "x" * 300_000)
KINDS = ("Create", "Update", "Delete", "Follow", "Accept", "Reject", "Add", "Remove", "Like",
         "Announce", "Undo", "Block", "Flag", "Move", "EmojiReact", "Question", "Note", "Person")


class FuzzPeer:
    """A remote server on loopback (its own port: its own host) serving its actors' documents,
    each actor with a real RSA key pair; POSTs to it (a Reject sent back) are answered 202."""

    def __init__(self, *names: str) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        documents: dict[str, bytes] = {}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                body = documents.get(self.path) or documents.get(self.path.split("?")[0], b"")
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "application/activity+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.server.server_address[1]}"
        self.keys = {}
        for name in names:
            self.keys[name] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            pem = self.keys[name].public_key().public_bytes(
                serialization.Encoding.PEM,
                serialization.PublicFormat.SubjectPublicKeyInfo).decode()
            uri = self.uri(name)
            documents[f"/users/{name}"] = json.dumps({
                "@context": ["https://www.w3.org/ns/activitystreams",
                             "https://w3id.org/security/v1"],
                "id": uri, "type": "Person", "preferredUsername": name, "inbox": f"{uri}/inbox",
                "outbox": f"{uri}/outbox", "followers": f"{uri}/followers",
                "following": f"{uri}/following", "endpoints": {"sharedInbox": self.url("/inbox")},
                "publicKey": {"id": self.key_id(name), "owner": uri, "publicKeyPem": pem},
            }).encode()
            # Its WebFinger confirms the handle (a new account is stored only then).
            documents[f"/.well-known/webfinger?resource=acct:{name}@{self.host}"] = json.dumps({
                "subject": f"acct:{name}@{self.host}",
                "links": [{"rel": "self", "type": "application/activity+json", "href": uri}],
            }).encode()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"

    def uri(self, name: str) -> str:
        return self.url(f"/users/{name}")

    def key_id(self, name: str) -> str:
        return self.uri(name) + "#main-key"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def no_effect_activities(actor: str, new_id: Any, local: str, status_uri: str,
                         peer: FuzzPeer, victim: FuzzPeer) -> list[tuple[str, dict[str, Any]]]:
    """Activities by `actor` (on `peer`) that must change nothing here, each named: objects that
    do not exist, objects that are not the actor's, ids on other hosts or colliding with URIs we
    know. Every one still must change nothing with any one of its fields replaced by a value of
    another type (the mutations below)."""
    public = "https://www.w3.org/ns/activitystreams#Public"
    alice, nobody = f"{local}/users/alice", f"{local}/users/nobody"
    missing = f"{local}/users/alice/statuses/1"  # no such status
    bob = victim.uri("bob")
    bobs_note = victim.url("/users/bob/statuses/1")
    unknown = f"{actor}/statuses/unknown"

    def activity(kind: str, obj: Any, **extra: Any) -> dict[str, Any]:
        return {"@context": "https://www.w3.org/ns/activitystreams", "id": new_id(),
                "type": kind, "actor": actor, "object": obj, **extra}

    def note(uri: str, author: str, **extra: Any) -> dict[str, Any]:
        return {"id": uri, "type": "Note", "attributedTo": author, "content": "<p>hi</p>",
                "to": [public], "published": "2026-01-01T00:00:00Z", **extra}

    return [
        ("like-missing", activity("Like", missing)),
        ("follow-nobody", activity("Follow", nobody)),
        ("announce-missing", activity("Announce", missing, to=[public])),
        ("announce-id-is-our-status", {**activity("Announce", status_uri, to=[public]),
                                       "id": status_uri}),
        ("announce-id-on-victim", {**activity("Announce", status_uri, to=[public]),
                                   "id": bobs_note}),
        ("announce-id-is-victim", {**activity("Announce", status_uri, to=[public]), "id": bob}),
        ("create-victims-note", activity("Create", note(bobs_note, bob))),
        ("create-note-on-victim-host", activity("Create", note(bobs_note, actor))),
        ("create-id-is-our-status", activity("Create", note(status_uri, actor))),
        ("update-victim-actor", activity("Update", {"id": bob, "type": "Person",
                                                    "preferredUsername": "bob", "name": "owned"})),
        ("update-unknown-note", activity("Update", note(unknown, actor,
                                                        updated="2026-02-01T00:00:00Z"))),
        ("update-our-status", activity("Update", note(status_uri, actor,
                                                      updated="2026-02-01T00:00:00Z"))),
        ("delete-unknown", activity("Delete", unknown)),
        ("delete-our-status", activity("Delete", status_uri)),
        ("delete-victim", activity("Delete", bob)),
        ("undo-victims-follow", activity("Undo", {"id": bob + "#follows/1", "type": "Follow",
                                                  "actor": bob, "object": alice})),
        ("undo-unknown-like", activity("Undo", {"id": actor + "#likes/0", "type": "Like",
                                                "actor": actor, "object": missing})),
        ("undo-unknown-announce", activity("Undo", bobs_note)),
        ("block-nobody", activity("Block", nobody)),
        ("flag-nothing", activity("Flag", [missing, nobody], content="spam")),
        ("move-to-victim", activity("Move", actor, target=bob)),
        ("accept-unknown", activity("Accept", {"id": f"{local}/follows/none", "type": "Follow",
                                               "actor": alice, "object": actor})),
        ("reject-unknown", activity("Reject", f"{local}/follows/none")),
        ("emoji-react", activity("EmojiReact", status_uri, content="\U0001f525")),
        ("add-featured", activity("Add", status_uri, target=f"{actor}/collections/featured")),
        ("unknown-type", activity("Bite", alice)),
    ]


def _random_json(rng: Any, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 5 and roll < 0.25:
        return {rng.choice(("id", "type", "actor", "object", "to", "cc", "tag", "content",
                            "attributedTo", "inReplyTo", "url", "target", "\u00b2", "")):
                _random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    if depth < 5 and roll < 0.4:
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return rng.choice((None, True, False, rng.randint(-2 ** 63, 2 ** 63), rng.random() * 1e300,
                       rng.choice(KINDS), "".join(chr(rng.randint(1, 0x2FFF))
                                                  for _ in range(rng.randint(0, 40))),
                       "http://" + "a" * rng.randint(0, 3000)))


def _mutated(rng: Any, activity: dict[str, Any], turn: int) -> dict[str, Any]:
    """A copy with one field (of the activity or of its embedded object) replaced by an odd
    value, turning through fields and values so that every field meets every type."""
    copy = json.loads(json.dumps(activity))
    holder = copy
    if isinstance(copy.get("object"), dict) and turn % 3 == 2:
        holder = copy["object"]
    fields = sorted(holder) + ["tag", "attachment", "inReplyTo"]
    field = fields[turn % len(fields)]
    holder[field] = ODD_FIELDS[(turn // len(fields) + rng.randrange(3)) % len(ODD_FIELDS)]
    return copy


def inbox_requests(count: int, seed: int, *, local: str, status_uri: str, target_host: str,
                   peer: FuzzPeer, victim: FuzzPeer
                   ) -> Iterator[tuple[str, str, dict[str, str], bytes]]:
    """`count` (label, path, headers, body) POSTs to our inboxes, none of which may change
    anything: malformed, oversized and nested bodies; random JSON shapes; no-effect activities
    with each field given the wrong type; signatures missing, garbled, expired, from the future,
    forged, over another body, by another actor's key, by a key of ours or one on no server —
    and activities correctly signed by a real peer key but hostile in content."""
    import itertools
    import random

    from cryptography.hazmat.primitives.asymmetric import rsa
    from stratus.federation import signatures

    rng = random.Random(seed)
    rogue = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    counter = itertools.count(1)
    actors = ("mallory", "trudy")

    def new_id(actor: str) -> Any:
        return lambda: f"{actor}/activities/{seed}-{next(counter)}"

    def signed(path: str, body: bytes, name: str, **options: Any) -> dict[str, str]:
        return signatures.sign_cavage(
            "POST", target_host, path, key_id=options.pop("key_id", peer.key_id(name)),
            private_key=options.pop("private_key", peer.keys[name]), body=body, **options)

    def signature_attack(path: str, body: bytes, name: str) -> tuple[str, dict[str, str],
                                                                     bytes]:
        attack = rng.choice(("unsigned", "garbled", "random-bytes", "expired", "future",
                             "forged", "other-body", "victims-key", "our-key", "no-server",
                             "no-algorithm-headers"))
        if attack == "unsigned":
            headers = signed(path, body, name)
            headers.pop("Signature")
        elif attack == "garbled":
            headers = {**signed(path, body, name), "Signature": "".join(
                chr(rng.randint(32, 126)) for _ in range(rng.randint(0, 300)))}
        elif attack == "random-bytes":
            headers = signed(path, body, name)
            noise = base64.b64encode(rng.randbytes(256)).decode()
            headers["Signature"] = re.sub(r'signature="[^"]*"', f'signature="{noise}"',
                                          headers["Signature"])
        elif attack in ("expired", "future"):
            headers = signed(path, body, name, now=time.time() + (-1 if attack == "expired"
                                                                  else 1) * 2 * 86400)
        elif attack == "forged":
            headers = signed(path, body, name, private_key=rogue)
        elif attack == "other-body":
            headers = signed(path, body + b" ", name)
        elif attack == "victims-key":
            headers = signed(path, body, name, key_id=victim.key_id("bob"),
                             private_key=victim.keys["bob"])
        elif attack == "our-key":
            headers = signed(path, body, name, key_id=f"{local}/users/alice#main-key",
                             private_key=rogue)
        elif attack == "no-server":
            headers = signed(path, body, name, key_id="http://127.0.0.1:9/users/x#main-key",
                             private_key=rogue)
        else:
            headers = signed(path, body, name)
            headers["Signature"] = re.sub(r',(algorithm|headers)="[^"]*"', "",
                                          headers["Signature"])
        return f"signature:{attack}", headers, body

    for number in range(count):
        path = rng.choices([p for p, _ in INBOX_PATHS], [w for _, w in INBOX_PATHS])[0]
        name = actors[number % 2]
        actor = peer.uri(name)
        templates = no_effect_activities(actor, new_id(actor), local, status_uri, peer, victim)
        label, activity = templates[number % len(templates)]
        kind = number % 10
        if kind < 4:  # a field of the wrong type, correctly signed
            activity = _mutated(rng, activity, number // 10)
            label = f"wrong-type:{label}"
        elif kind == 4:  # hostile content as it is, correctly signed
            pass
        elif kind == 5:  # ids on the victim's host, correctly signed
            activity = {**activity, "id": victim.url(f"/activities/{number}")}
            label = f"id-elsewhere:{label}"
        elif kind == 6:  # random JSON shapes, correctly signed over their bytes
            shape = _random_json(rng)
            if isinstance(shape, dict) and rng.random() < 0.7:
                shape.update({"id": new_id(actor)(), "actor": actor,
                              "type": rng.choice(KINDS)})
            body = json.dumps(shape).encode()
            yield "random-shape", path, signed(path, body, name), body
            continue
        elif kind == 7:  # raw bodies no parser may choke on
            raw = rng.choice((
                b"", b"{", b"null", b"[]", b'"x"', b"\xff\xfe{}", b'{"id": NaN}',
                b'{"id": "a", "type": "Like", "actor": "' + actor.encode() + b'", "x": ' +
                b"[" * 10_000 + b"]" * 10_000 + b"}",
                b'{"a": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}",
                json.dumps({**activity, "object": "x" * (1024 * 1024)}).encode(),
                json.dumps({**activity, "content": "\U0001f525" * 70_000}).encode(),
                b'{"id": "\\ud800", "type": "Like", "actor": "' + actor.encode() + b'"}',
                json.dumps(activity).encode()[:-7]))
            yield "raw-body", path, signed(path, raw, name), raw
            continue
        body = json.dumps(activity).encode()
        if kind >= 8:
            attack, headers, body = signature_attack(path, body, name)
            yield f"{attack}:{label}", path, headers, body
            continue
        yield label, path, signed(path, body, name), body


def _state(workdir: Path, name: str, timeout: float = 600.0) -> dict[str, int]:
    """The table's items by type, counted by the server once its queues are quiet."""
    control = workdir / "control"
    (control / f"{name}.want").write_text("")
    answer = control / f"{name}.json"
    end = time.monotonic() + timeout
    while not answer.exists():
        if time.monotonic() > end:
            raise RuntimeError(f"the server did not count its items ({name})")
        time.sleep(0.2)
    return json.loads(answer.read_text())


def run_inbox(base_url: str, workdir: Path, count: int, seed: int) -> dict[str, Any]:
    """Warm up (each peer actor sends one activity that changes nothing, so its account is
    stored), count the items, send `count` hostile POSTs, let the queues drain, count again."""
    import httpx
    from stratus.federation import signatures

    seeded = json.loads((workdir / "ready.json").read_text())
    domain = seeded["domain"]
    local = f"http://{domain}"
    status_uri = f"{local}/users/alice/statuses/{seeded['ids']['status']}"
    target_host = base_url.removeprefix("http://")
    peer, victim = FuzzPeer("mallory", "trudy"), FuzzPeer("bob")
    answers: Counter[int] = Counter()
    errors: list[str] = []
    started = time.monotonic()
    log = workdir / "server.log"
    try:
        with httpx.Client(base_url=base_url, timeout=60) as http:
            for site, name in ((peer, "mallory"), (peer, "trudy"), (victim, "bob")):
                body = json.dumps({"id": site.url(f"/warm/{name}"), "type": "Like",
                                   "actor": site.uri(name),
                                   "object": f"{local}/users/alice/statuses/1"}).encode()
                http.post("/inbox", content=body, headers=signatures.sign_cavage(
                    "POST", target_host, "/inbox", key_id=site.key_id(name),
                    private_key=site.keys[name], body=body))
            before = _state(workdir, "before")
            tracebacks = log.read_text(errors="replace").count(TRACEBACK)
            for label, path, headers, body in inbox_requests(
                    count, seed, local=local, status_uri=status_uri, target_host=target_host,
                    peer=peer, victim=victim):
                status = http.post(path, content=body, headers=headers).status_code
                answers[status] += 1
                if status >= 500:
                    errors.append(f"{status} {label} {path}")
            after = _state(workdir, "after")
            tracebacks = log.read_text(errors="replace").count(TRACEBACK) - tracebacks
    finally:
        peer.close()
        victim.close()
    changed = {kind: after.get(kind, 0) - before.get(kind, 0)
               for kind in sorted(set(before) | set(after))
               if kind not in BOOKKEEPING and after.get(kind, 0) != before.get(kind, 0)}
    return {"activities": sum(answers.values()), "answers": dict(sorted(answers.items())),
            "server_errors": sum(n for s, n in answers.items() if s >= 500),
            "tracebacks": tracebacks, "state_changes": sum(abs(n) for n in changed.values()),
            "changed": changed, "errors": errors[:20],
            "seconds": round(time.monotonic() - started, 1)}


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
        workers: int = 1, hostile: str = "per-field", inbox: int = 0,
        specs: tuple[str, ...] = SPECS) -> dict[str, Any]:
    """Start the server, send `inbox` hostile activities to the inboxes, run schemathesis with
    the specs named and the hostile requests; stop the server; the figures."""
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
            # The inboxes first, while the seeded objects are as seeded (the API phases may
            # delete them, block domains, or change the federation mode).
            inbox_figures = run_inbox(f"http://127.0.0.1:{port}", workdir, inbox, seed) \
                if inbox else None
            runs = {}
            for name in specs:
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
            "hostile_requests": hostile_sent, "inbox": inbox_figures,
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
    parser.add_argument("--inbox", type=int, default=FULL["inbox"],
                        help="hostile activities POSTed to the inboxes (0: none)")
    parser.add_argument("--specs", default=",".join(SPECS),
                        help="the OpenAPI specs schemathesis runs, comma-separated ('': none)")
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
                  hostile=args.hostile, inbox=args.inbox,
                  specs=tuple(name for name in args.specs.split(",") if name))
    print(json.dumps(figures, indent=2))
    inbox = figures["inbox"] or {}
    failed = (figures["server_errors"] or figures["tracebacks"]
              or figures["requests"] < args.min_requests or inbox.get("state_changes"))
    if failed:
        print(f"FAILED: {figures['server_errors']} responses 5xx, {figures['tracebacks']} "
              f"tracebacks, {figures['requests']} requests (minimum {args.min_requests}), "
              f"{inbox.get('state_changes', 0)} items changed by the inbox phase "
              f"{inbox.get('changed', {})}; see {workdir}/server.log", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
