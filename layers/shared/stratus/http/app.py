"""`create_app()`: the FastAPI application every HTTP function builds.

It renders errors as Mastodon does (`{"error": ...}`; OAuth adds `error_description`), answers
unknown routes with a JSON 404, turns validation failures into 422 (never a 500 for bad input),
sets `Cache-Control: private, no-store` unless a route chose a public policy, adds
`Vary: Authorization` and, on the routes Mastodon deprecates, its `Deprecation` header, answers
PATCH wherever it answers PUT (Rails routes `update` both ways), refuses requests from
addresses under a `no_access` IP block, and logs every request with the Lambda request id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse as StarletteJSONResponse

from stratus.core.errors import ApiError
from stratus.core.observability import logger
from stratus.http import client as caller
from stratus.http.cache import PRIVATE
from stratus.http.deprecation import deprecation_header
from stratus.read import access_blocks


class JSONResponse(StarletteJSONResponse):
    media_type = "application/json; charset=utf-8"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _error(status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
    return JSONResponse(body, status_code=status, headers=headers)


def _describe(errors: Any) -> str:
    """A path or query parameter FastAPI could not read, as Mastodon's validation message."""
    parts = []
    for item in errors:
        location = ".".join(str(p) for p in item.get("loc", ())
                            if p not in ("body", "query", "path")) or "params"
        message = "can't be blank" if item.get("type") == "missing" else item.get("msg", "is invalid")
        parts.append(f"{location} {message}")
    return "Validation failed: " + ", ".join(parts)


def _patch_where_put(router: APIRouter) -> None:
    """Rails' `resources ... only: :update` routes PUT and PATCH to the same action; every PUT
    route of ours answers PATCH too (masto.js and others send PATCH). A path that has its own
    PATCH route keeps it; run again on the same router (another app of the same module), it
    adds nothing."""
    patched = {r.path for r in router.routes if isinstance(r, APIRoute) and "PATCH" in r.methods}
    for route in list(router.routes):
        if isinstance(route, APIRoute) and "PUT" in route.methods and route.path not in patched:
            router.add_api_route(route.path, route.endpoint, methods=["PATCH"],
                                 dependencies=route.dependencies, name=f"{route.name}_patch",
                                 include_in_schema=route.include_in_schema,
                                 deprecated=route.deprecated, openapi_extra=route.openapi_extra)
            patched.add(route.path)


def create_app(routers: Iterable[APIRouter], *, name: str = "stratus") -> FastAPI:
    app = FastAPI(title=name, docs_url=None, redoc_url=None, openapi_url=None,
                  default_response_class=JSONResponse)
    for router in routers:
        _patch_where_put(router)
        app.include_router(router)

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError):
        return _error(exc.status, exc.body(), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError):
        return _error(422, {"error": _describe(exc.errors())})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException):
        if exc.status_code in (404, 405):
            return _error(404, {"error": "Not found"})
        return _error(exc.status_code, {"error": str(exc.detail)})

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception):
        logger.exception("unhandled error")
        return _error(500, {"error": "Internal server error"})

    @app.middleware("http")
    async def ip_blocks(request: Request, call_next):
        # Roles area: an address under a `no_access` IP block gets nothing (Mastodon's
        # Rack::Attack blocklist), sign-in included (read/access_blocks.py).
        if access_blocks.denies_access(caller.client_ip(request)):
            return _error(403, {"error": "This action is not allowed"})
        return await call_next(request)

    @app.middleware("http")
    async def headers(request: Request, call_next):
        response = await call_next(request)
        deprecation = deprecation_header(request.scope.get("route"))
        if deprecation:
            response.headers["Deprecation"] = deprecation
        if "cache-control" not in response.headers:
            response.headers["Cache-Control"] = PRIVATE
        vary = response.headers.get("vary")
        if not vary:
            response.headers["Vary"] = "Authorization"
        elif "authorization" not in vary.lower():
            response.headers["Vary"] = vary + ", Authorization"
        logger.info("request", extra={"method": request.method, "path": request.url.path,
                                      "status": response.status_code})
        return response

    return app
