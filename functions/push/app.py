"""Push function: the calling token's web push subscription (`/api/v1/push/subscription`, also
answered at `/subscriptions`). Delivery is the push worker's (functions/workers/push)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.push import push
from stratus.auth.deps import Viewer, bearer, require
from stratus.core.observability import http_handler
from stratus.http.app import create_app
from stratus.http.forms import request_params

router = APIRouter()
push_scope = require("push")
PATHS = ("/api/v1/push/subscription", "/api/v1/push/subscriptions")


async def subscribe(request: Request, viewer: Viewer = Depends(push_scope)):
    return push.subscribe(viewer, bearer(request), await request_params(request))


def show(viewer: Viewer = Depends(push_scope)):
    return push.show(viewer)


async def update(request: Request, viewer: Viewer = Depends(push_scope)):
    return push.update(viewer, await request_params(request))


def unsubscribe(viewer: Viewer = Depends(push_scope)):
    return push.unsubscribe(viewer)


for path in PATHS:
    router.add_api_route(path, subscribe, methods=["POST"])
    router.add_api_route(path, show, methods=["GET"])
    router.add_api_route(path, update, methods=["PUT"])
    router.add_api_route(path, unsubscribe, methods=["DELETE"])

app = create_app([router], name="push")
handler = http_handler(app)
