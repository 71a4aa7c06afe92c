"""API Gateway's WebSocket API and the SSE function URL, locally, on the REST API's port.

- **WebSockets** at `/api/v1/streaming` (where clients connect, docs/streaming.md): each
  upgrade becomes the `$connect` event API Gateway would send to the function template.yaml's
  WebSocket integration names (its answer decides: a refusal is an HTTP error, a
  `Sec-WebSocket-Protocol` header is the sub-protocol accepted); each text frame a `$default`
  event (the route response body, if any, is sent back); the end a `$disconnect` event.
  uvicorn's WebSocket implementation answers protocol pings itself (megalodon sends them).
- **PostToConnection / DeleteConnection**: the functions' `apigatewaymanagementapi` client
  keeps its code and endpoint; a botocore `before-call` hook (on clients of the shared
  factory, as local/iam.py's check) answers the call from the open sockets here instead of
  sending it: the message goes to the socket, an unknown id is API Gateway's 410
  GoneException. The IAM check (`execute-api:ManageConnections`) runs before it.
- **SSE**: `GET /api/v1/streaming/...` goes to the ASGI app of the function whose function
  URL streams its response (RESPONSE_STREAM), as the Lambda Web Adapter would run it, acting
  as that function's role.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import os
import re
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

from . import iam
from .lambda_runtime import invoke

PATH = "/api/v1/streaming"
_CLOSE = object()


class Sockets:
    """The open WebSockets of this process: connection id → (event loop, outgoing queue)."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = {}
        self._lock = threading.Lock()
        self.posts = 0  # PostToConnection calls answered (the bench reads it)

    def register(self, connection_id: str, loop: asyncio.AbstractEventLoop,
                 queue: asyncio.Queue) -> None:
        with self._lock:
            self._open[connection_id] = (loop, queue)

    def unregister(self, connection_id: str) -> None:
        with self._lock:
            self._open.pop(connection_id, None)

    def _put(self, connection_id: str, item: Any) -> bool:
        with self._lock:
            found = self._open.get(connection_id)
        if found is None:
            return False
        loop, queue = found
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # its loop has stopped: the socket is gone
            return False
        return True

    def post(self, connection_id: str, data: bytes) -> bool:
        self.posts += 1
        return self._put(connection_id, data.decode("utf-8"))

    def close(self, connection_id: str) -> bool:
        return self._put(connection_id, _CLOSE)

    def __len__(self) -> int:
        return len(self._open)


SOCKETS = Sockets()
_installed = False
_install_lock = threading.Lock()


class _Raw:
    def stream(self, *_: Any, **__: Any):
        yield b""


def _answer(made: Any, status: int, code: str | None = None) -> tuple[Any, dict[str, Any]]:
    from botocore.awsrequest import AWSResponse

    parsed: dict[str, Any] = {"ResponseMetadata": {"HTTPStatusCode": status,
                                                   "RequestId": str(uuid.uuid4())}}
    if code:
        parsed["Error"] = {"Code": code, "Message": ""}
    return AWSResponse(made.meta.endpoint_url, status, {}, _Raw()), parsed


def _management_call(made: Any, model: Any, context: dict[str, Any] | None = None,
                     **_: Any) -> tuple[Any, dict[str, Any]] | None:
    params = (context or {}).get("stratus_ws_params") or {}
    connection_id = params.get("ConnectionId", "")
    if model.name == "PostToConnection":
        data = params.get("Data", b"")
        ok = SOCKETS.post(connection_id, data if isinstance(data, bytes) else data.encode())
    elif model.name == "DeleteConnection":
        ok = SOCKETS.close(connection_id)
    else:  # GetConnection
        ok = connection_id in SOCKETS._open  # noqa: SLF001
        if ok:
            return _answer(made, 200)[0], {"ConnectedAt": datetime.now(UTC),
                                           "ResponseMetadata": {"HTTPStatusCode": 200}}
    return _answer(made, 200 if ok else 410, None if ok else "GoneException")


def _keep_params(params: dict[str, Any], context: dict[str, Any] | None = None,
                 **_: Any) -> None:
    if context is not None:
        context["stratus_ws_params"] = dict(params)


def _attach(made: Any) -> None:
    if made.meta.service_model.service_name != "apigatewaymanagementapi":
        return
    made.meta.events.register("before-parameter-build.apigatewaymanagementapi", _keep_params)
    made.meta.events.register("before-call.apigatewaymanagementapi",
                              lambda **kw: _management_call(made, **kw))


def install() -> None:
    global _installed
    with _install_lock:
        if _installed:
            return
        from stratus.repo import client

        client.on_create(_attach)
        _installed = True


# --------------------------------------------------------------------------- the template
def websocket_function(template: dict[str, Any]) -> str | None:
    """The function the WebSocket API's integration invokes."""
    for resource in template.get("Resources", {}).values():
        if resource.get("Type") != "AWS::ApiGatewayV2::Integration":
            continue
        uri = resource.get("Properties", {}).get("IntegrationUri")
        text = uri.get("Fn::Sub") if isinstance(uri, dict) else uri
        found = re.search(r"\$\{([A-Za-z0-9]+)\.Arn\}", str(text))
        if found:
            return found.group(1)
    return None


def streaming_function(template: dict[str, Any]) -> str | None:
    """The function whose URL streams its response (the SSE app)."""
    for logical, resource in template.get("Resources", {}).items():
        props = resource.get("Properties", {})
        if resource.get("Type") == "AWS::Serverless::Function" and \
                (props.get("FunctionUrlConfig") or {}).get("InvokeMode") == "RESPONSE_STREAM":
            return logical
    return None


_apps: dict[str, Any] = {}


def asgi_app(stack: Any, logical_id: str) -> Any:
    """The function's ASGI app (`app` in its app.py), imported once, as its runtime would."""
    if logical_id not in _apps:
        fn = stack.functions[logical_id]
        path = fn.code_dir / "app.py"
        name = f"stratus_app_{logical_id}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _apps[logical_id] = module.app
    return _apps[logical_id]


# --------------------------------------------------------------------------- the gateway side
def _connection_id() -> str:
    return base64.b64encode(os.urandom(9)).decode("ascii")[:11] + "="


def _event(route: str, kind: str, connection_id: str, scope: dict[str, Any],
           body: str | None = None) -> dict[str, Any]:
    headers: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        name, value = name.decode("latin-1"), value.decode("latin-1")
        headers[name] = f"{headers[name]},{value}" if name in headers else value
    query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                           keep_blank_values=True))
    now = time.time()
    event: dict[str, Any] = {
        "requestContext": {
            "routeKey": route, "eventType": kind, "connectionId": connection_id,
            "messageDirection": "IN", "stage": "live", "apiId": "local",
            "domainName": headers.get("host", "localhost"),
            "requestId": str(uuid.uuid4()), "connectedAt": int(now * 1000),
            "requestTimeEpoch": int(now * 1000),
            "identity": {"sourceIp": (scope.get("client") or ("127.0.0.1", 0))[0]},
        },
        "isBase64Encoded": False,
    }
    if route == "$connect":
        event["headers"] = headers
        event["multiValueHeaders"] = {k: [v] for k, v in headers.items()}
        if query:
            event["queryStringParameters"] = query
    if body is not None:
        event["body"] = body
    return event


async def serve_websocket(stack: Any, scope: dict[str, Any], receive: Any, send: Any) -> None:
    install()
    function = websocket_function(stack.template)
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if function is None or scope["path"].rstrip("/") != PATH:
        await send({"type": "websocket.close", "code": 1008})
        return
    connection_id = _connection_id()
    result = await asyncio.to_thread(invoke, stack, function,
                                     _event("$connect", "CONNECT", connection_id, scope))
    status = int(result.get("statusCode", 200))
    if status >= 300:
        if "websocket.http.response" in scope.get("extensions", {}):
            body = (result.get("body") or "").encode("utf-8")
            await send({"type": "websocket.http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1008})
        return
    headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
    protocol = headers.get("sec-websocket-protocol")
    if protocol not in scope.get("subprotocols", []):
        protocol = None
    queue: asyncio.Queue = asyncio.Queue()
    SOCKETS.register(connection_id, asyncio.get_running_loop(), queue)
    await send({"type": "websocket.accept", "subprotocol": protocol})

    async def reader() -> None:
        while True:
            incoming = await receive()
            if incoming["type"] == "websocket.disconnect":
                return
            text = incoming.get("text")
            if text is None and incoming.get("bytes") is not None:
                text = incoming["bytes"].decode("utf-8", "replace")
            answer = await asyncio.to_thread(
                invoke, stack, function,
                _event("$default", "MESSAGE", connection_id, scope, text or ""))
            if answer and answer.get("body"):
                await queue.put(answer["body"])

    async def writer() -> None:
        while True:
            item = await queue.get()
            if item is _CLOSE:
                await send({"type": "websocket.close", "code": 1000})
                return
            await send({"type": "websocket.send", "text": item})

    tasks = [asyncio.create_task(reader()), asyncio.create_task(writer())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        SOCKETS.unregister(connection_id)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.to_thread(invoke, stack, function,
                                _event("$disconnect", "DISCONNECT", connection_id, scope))


async def serve_sse(stack: Any, scope: dict[str, Any], receive: Any, send: Any) -> bool:
    """Hand an SSE request to the streaming function's app; False if there is none."""
    function = streaming_function(stack.template)
    if function is None:
        return False
    app = asgi_app(stack, function)
    with iam.acting_as(stack, function):
        await app(scope, receive, send)
    return True
