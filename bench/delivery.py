"""`make bench`, delivery: one public post by an account with FOLLOWERS remote followers spread
over HOSTS servers (default 1,000 on 100), delivered through the local stack to a loopback
inbox server. Counted: federation and delivery Lambda invocations, SQS messages sent (per
queue, and SendMessageBatch calls), signed POSTs received, and DynamoDB calls made inside the
two workers (per operation).

Run alone with `python -m bench delivery [FOLLOWERS] [HOSTS]`.
"""

from __future__ import annotations

import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any

from local.loopback import Loopback

WORKERS = ("FederationFunction", "DeliveryFunction")


class Inboxes(Loopback):
    """A loopback server that accepts every POST (202) and counts the signed ones per path."""

    def __init__(self) -> None:
        self.posts: Counter[str] = Counter()
        self.signed = 0
        inboxes = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                inboxes.posts[self.path] += 1
                inboxes.signed += int("keyId=" in (self.headers.get("Signature") or ""))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(Handler)


def _seed(inboxes: Inboxes, author: str, followers: int, hosts: int) -> None:
    """Remote followers as the remote-accounts work stores them (profiles with inboxes), and
    their follows of the author, written straight to the table."""
    from stratus.core import clock, ids
    from stratus.model.relationships import FollowOptions
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import relationships

    profiles, follows = [], []
    for i in range(followers):
        domain, username, account_id = f"host{i % hosts}.example", f"user{i}", ids.new_id()
        profiles.append({
            "id": account_id, "username": username, "domain": domain, "display_name": "",
            "note": "", "fields": [], "locked": False, "bot": False,
            "created_at": clock.iso(clock.now()), "uri": f"https://{domain}/users/{username}",
            "url": f"https://{domain}/@{username}",
            "inbox": inboxes.url(f"/{domain}/users/{username}/inbox"),
            "shared_inbox": inboxes.url(f"/{domain}/inbox")})
        follows.append(relationships.follow_item(ids.new_id(), account_id, author,
                                                 FollowOptions(), authorized=True))
    accounts_repo.put_profiles(profiles)
    relationships.put_many(follows)


def run(runtime: Any, followers: int = 1000, hosts: int = 100) -> dict[str, Any]:
    from stratus.api.statuses import post as posting
    from stratus.auth import identity
    from stratus.repo.client import client, dynamodb

    from local import lambda_runtime

    from .timelines import _viewer

    inboxes = Inboxes()
    author, token = _viewer(f"federated{followers}")
    _seed(inboxes, author, followers, hosts)
    runtime.pipeline.skip_stream()  # the fixture's writes are data, not events

    current: list[str | None] = [None]
    invocations: Counter[str] = Counter()
    ddb: Counter[str] = Counter()
    sqs_messages: Counter[str] = Counter()
    sqs_calls: Counter[str] = Counter()
    real_invoke = lambda_runtime.invoke

    def counting(stack, logical_id, event, request_id=None):
        invocations[logical_id] += 1
        current[0] = logical_id
        try:
            return real_invoke(stack, logical_id, event, request_id)
        finally:
            current[0] = None

    def on_dynamodb(model: Any = None, **_: Any) -> None:
        if current[0] in WORKERS:
            ddb[f"{current[0]}:{model.name}"] += 1

    def on_sqs(model: Any = None, params: Any = None, **_: Any) -> None:
        if model.name not in ("SendMessageBatch", "SendMessage"):
            return
        queue = (params or {}).get("QueueUrl", "").rsplit("/", 1)[-1]
        sqs_calls[f"{model.name} {queue}"] += 1
        sqs_messages[queue] += len(params.get("Entries", [])) if model.name == \
            "SendMessageBatch" else 1

    import local.pipeline as pipeline_module

    lambda_runtime.invoke = counting
    pipeline_module.invoke = counting
    dynamodb().meta.events.register("before-parameter-build.dynamodb", on_dynamodb)
    client("sqs").meta.events.register("before-parameter-build.sqs", on_sqs)
    try:
        started = time.perf_counter()
        posting.create(identity.viewer_for_token(token), {"status": "to every server"})
        runtime.pipeline.drain(max_rounds=10_000)
        wall = time.perf_counter() - started
    finally:
        lambda_runtime.invoke = real_invoke
        pipeline_module.invoke = real_invoke
        dynamodb().meta.events.unregister("before-parameter-build.dynamodb", on_dynamodb)
        client("sqs").meta.events.unregister("before-parameter-build.sqs", on_sqs)
        inboxes.close()
    federation_queue = next((q for q in sqs_messages if "Federation" in q), None)
    delivery_queue = next((q for q in sqs_messages if "Delivery" in q), None)
    out = {"followers": followers, "hosts": hosts, "posts": sum(inboxes.posts.values()),
           "signed": inboxes.signed, "distinct_inboxes": len(inboxes.posts),
           "invocations": {w: invocations[w] for w in WORKERS},
           "federation_messages": sqs_messages.get(federation_queue or "", 0),
           "delivery_messages": sqs_messages.get(delivery_queue or "", 0),
           "send_calls": dict(sqs_calls), "dynamodb": dict(ddb), "wall_s": wall}
    print(f"\nDelivery of one public post to {followers:,} remote followers on {hosts} servers")
    print(f"  signed POSTs received {out['signed']:,} ({out['distinct_inboxes']} inboxes, "
          f"each once: {max(inboxes.posts.values(), default=0) == 1})")
    print(f"  Lambda invocations: FederationFunction {out['invocations'][WORKERS[0]]}, "
          f"DeliveryFunction {out['invocations'][WORKERS[1]]}")
    print(f"  SQS messages: federation {out['federation_messages']}, delivery "
          f"{out['delivery_messages']}; send calls "
          + ", ".join(f"{k} {v}" for k, v in sorted(sqs_calls.items())))
    print("  DynamoDB calls in the workers: "
          + ", ".join(f"{k} {v}" for k, v in sorted(ddb.items())))
    print(f"  {wall:.2f} s locally, post to last delivery")
    return out
