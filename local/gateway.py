"""API Gateway HTTP API, locally: route each request to the function template.yaml maps it to,
build the payload-format-2.0 event API Gateway would send, call the real handler, and turn its
result back into an HTTP response. Also serves media from the bucket, as CloudFront would, and
streaming on the same port: the WebSocket API and the SSE function URL (local/websocket.py)."""

from __future__ import annotations

import asyncio
import base64
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, unquote

from . import cfn, websocket
from .lambda_runtime import invoke

TEXT_TYPES = ("text/", "application/json", "application/x-www-form-urlencoded",
              "application/xml", "application/activity+json", "application/ld+json",
              "application/jrd+json")


@dataclass
class CompiledRoute:
    function: str
    method: str
    template: str
    regex: re.Pattern[str] | None
    specificity: tuple[int, int, int]


def _compile(function: str, route: cfn.Route) -> CompiledRoute:
    if route.path == "$default":
        return CompiledRoute(function, route.method, route.path, None, (0, 0, 0))
    pattern, literal, params, greedy = "", 0, 0, 0
    for segment in route.path.strip("/").split("/"):
        match = re.fullmatch(r"\{([A-Za-z0-9_]+)(\+?)\}", segment)
        if match and match.group(2):
            pattern += f"/(?P<{match.group(1)}>.+)"
            greedy += 1
        elif match:
            pattern += f"/(?P<{match.group(1)}>[^/]+)"
            params += 1
        else:
            pattern += "/" + re.escape(segment)
            literal += 1
    return CompiledRoute(function, route.method, route.path, re.compile(pattern + "$"),
                         (1 - greedy, literal, -params))


class Router:
    def __init__(self, stack: Any) -> None:
        self.routes = [_compile(fn.logical_id, r) for fn in stack.functions.values()
                       for r in fn.routes]

    def match(self, method: str, path: str) -> tuple[CompiledRoute, dict[str, str]] | None:
        probe = path.rstrip("/") or "/"
        best: tuple[tuple, CompiledRoute, dict[str, str]] | None = None
        for route in self.routes:
            if route.method not in (method, "ANY"):
                continue
            if route.regex is None:
                params: dict[str, str] = {}
            else:
                found = route.regex.match(probe)
                if not found:
                    continue
                params = {k: unquote(v) for k, v in found.groupdict().items()}
            rank = (route.regex is not None, route.specificity, route.method != "ANY")
            if best is None or rank > best[0]:
                best = (rank, route, params)
        return (best[1], best[2]) if best else None


def build_event(method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                source_ip: str, route_key: str, path_params: dict[str, str]) -> dict[str, Any]:
    joined: dict[str, str] = {}
    cookies: list[str] = []
    for name, value in headers:
        name = name.lower()
        if name == "cookie":
            cookies.extend(c.strip() for c in value.split(";") if c.strip())
            continue
        joined[name] = f"{joined[name]},{value}" if name in joined else value
    content_type = joined.get("content-type", "")
    is_text = not body or any(content_type.startswith(t) for t in TEXT_TYPES)
    if is_text:
        try:
            body_text = body.decode("utf-8")
        except UnicodeDecodeError:
            is_text = False
    if not is_text:
        body_text = base64.b64encode(body).decode("ascii")
    now = datetime.now(UTC)
    request_id = str(uuid.uuid4())
    query_params: dict[str, str] = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        query_params[k] = f"{query_params[k]},{v}" if k in query_params else v
    host = joined.get("host", "localhost")
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route_key,
        "rawPath": path,
        "rawQueryString": query,
        "headers": joined,
        "requestContext": {
            "accountId": cfn.ACCOUNT,
            "apiId": "local",
            "domainName": host,
            "domainPrefix": host.split(".")[0],
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": source_ip, "userAgent": joined.get("user-agent", "")},
            "requestId": request_id,
            "routeKey": route_key,
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(now.timestamp() * 1000),
        },
        "isBase64Encoded": not is_text,
    }
    if cookies:
        event["cookies"] = cookies
    if query_params:
        event["queryStringParameters"] = query_params
    if path_params:
        event["pathParameters"] = path_params
    if body:
        event["body"] = body_text
    return event


def _not_found() -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    # What API Gateway itself answers when no route matches.
    return 404, [(b"content-type", b"application/json")], b'{"message":"Not Found"}'


def cors_configuration(template: dict[str, Any]) -> dict[str, Any]:
    for resource in template.get("Resources", {}).values():
        if resource.get("Type") == "AWS::Serverless::HttpApi":
            return resource.get("Properties", {}).get("CorsConfiguration") or {}
    return {}


def media_headers(template: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    """The security headers the media distribution's response headers policy adds."""
    resources = template.get("Resources", {})
    for resource in resources.values():
        if resource.get("Type") != "AWS::CloudFront::Distribution":
            continue
        behaviour = resource["Properties"]["DistributionConfig"].get("DefaultCacheBehavior", {})
        policy_id = behaviour.get("ResponseHeadersPolicyId")
        policy = resources.get(policy_id.get("Ref")) if isinstance(policy_id, dict) else None
        if policy is None:
            return []
        config = policy["Properties"]["ResponseHeadersPolicyConfig"]
        security = config.get("SecurityHeadersConfig", {})
        headers = []
        if security.get("ContentTypeOptions"):
            headers.append((b"x-content-type-options", b"nosniff"))
        if security.get("ContentSecurityPolicy"):
            headers.append((b"content-security-policy",
                            security["ContentSecurityPolicy"]["ContentSecurityPolicy"].encode()))
        return headers
    return []


class Gateway:
    """An ASGI application in front of the stack's HTTP functions."""

    def __init__(self, stack: Any, media_bucket: str | None = None) -> None:
        self.stack = stack
        self.router = Router(stack)
        self.media_bucket = media_bucket
        self.cors = cors_configuration(stack.template)
        self.media_headers = media_headers(stack.template)

    def _cors_headers(self, origin: str | None) -> list[tuple[bytes, bytes]]:
        """What API Gateway adds for the template's CorsConfiguration."""
        allowed = self.cors.get("AllowOrigins") or []
        if not origin or not self.cors or ("*" not in allowed and origin not in allowed):
            return []
        headers = [(b"access-control-allow-origin", ("*" if "*" in allowed else origin).encode())]
        if self.cors.get("ExposeHeaders"):
            headers.append((b"access-control-expose-headers",
                            ",".join(self.cors["ExposeHeaders"]).lower().encode()))
        return headers

    def _preflight(self, origin: str) -> tuple[int, list, bytes]:
        headers = self._cors_headers(origin)
        if headers:
            headers += [(b"access-control-allow-methods",
                         ",".join(self.cors.get("AllowMethods", [])).encode()),
                        (b"access-control-allow-headers",
                         ",".join(self.cors.get("AllowHeaders", [])).lower().encode()),
                        (b"access-control-max-age", str(self.cors.get("MaxAge", 0)).encode())]
        return 204, headers, b""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] == "websocket":
            await websocket.serve_websocket(self.stack, scope, receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["method"] == "GET" and scope["path"].startswith(websocket.PATH + "/") \
                and await websocket.serve_sse(self.stack, scope, receive, send):
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        status, headers, payload = await asyncio.to_thread(self.handle, scope, body)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    def handle(self, scope: dict[str, Any], body: bytes) -> tuple[int, list, bytes]:
        method = scope["method"].upper()
        path = scope.get("raw_path", scope["path"].encode()).decode("latin-1").split("?")[0]
        path = unquote(path)
        query = scope.get("query_string", b"").decode("latin-1")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        client = scope.get("client") or ("127.0.0.1", 0)
        origin = next((v for k, v in headers if k.lower() == "origin"), None)
        if method == "OPTIONS" and origin and any(
                k.lower() == "access-control-request-method" for k, _ in headers):
            return self._preflight(origin)
        status, response_headers, payload = self._dispatch(method, path, query, headers, body,
                                                           client)
        return status, response_headers + self._cors_headers(origin), payload

    def _dispatch(self, method: str, path: str, query: str, headers: list, body: bytes,
                  client: tuple) -> tuple[int, list, bytes]:
        if self.media_bucket and path.startswith("/system/") and method in ("GET", "HEAD"):
            return self.media(path[len("/system/"):])
        found = self.router.match(method, path)
        if found is None:
            return _not_found()
        route, params = found
        route_key = "$default" if route.template == "$default" else f"{route.method} {route.template}"
        event = build_event(method, path, query, headers, body, client[0], route_key, params)
        result = invoke(self.stack, route.function, event,
                        event["requestContext"]["requestId"])
        return self.response(result)

    @staticmethod
    def response(result: dict[str, Any]) -> tuple[int, list, bytes]:
        raw = result.get("body") or ""
        payload = base64.b64decode(raw) if result.get("isBase64Encoded") else raw.encode("utf-8")
        headers = [(k.lower().encode("latin-1"), str(v).encode("latin-1"))
                   for k, v in (result.get("headers") or {}).items()]
        for name, values in (result.get("multiValueHeaders") or {}).items():
            headers.extend((name.lower().encode("latin-1"), str(v).encode("latin-1"))
                           for v in values)
        headers.extend((b"set-cookie", c.encode("latin-1")) for c in result.get("cookies") or [])
        return int(result.get("statusCode", 200)), headers, payload

    def media(self, key: str) -> tuple[int, list, bytes]:
        from stratus.repo.client import client

        s3 = client("s3")
        try:
            obj = s3.get_object(Bucket=self.media_bucket, Key=key)
        except s3.exceptions.NoSuchKey:
            return 404, [(b"content-type", b"text/plain")], b"Not Found"
        except Exception:  # noqa: BLE001 - anything else the emulator says is a miss too
            return 404, [(b"content-type", b"text/plain")], b"Not Found"
        content_type = obj.get("ContentType") or "application/octet-stream"
        return 200, [(b"content-type", content_type.encode()),
                     (b"cache-control", b"public, max-age=31536000, immutable"),
                     *self.media_headers], obj["Body"].read()
