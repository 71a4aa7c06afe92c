"""Inbox function: the ActivityPub inboxes — each user's (`/users/:name/inbox`), the shared
inbox (`/inbox`) and the instance actor's (`/actor/inbox`). A POST is checked (signature,
key owner, domain policy: federation/inbox/ingress.py), queued to the inbox worker and
answered 202 at once (docs/federation.md, "Inbox")."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from stratus.core.observability import http_handler
from stratus.federation.inbox import ingress
from stratus.http.app import create_app

router = APIRouter()


async def _receive(request: Request, username: str | None) -> Response:
    body = await request.body()  # Mangum has base64-decoded it when API Gateway encoded it
    headers = {name.lower(): value for name, value in request.headers.items()}
    await run_in_threadpool(ingress.receive, "POST", request.url.path, request.url.query,
                            headers, body, username=username)
    return Response(status_code=202)


@router.post("/users/{username}/inbox")
async def user_inbox(username: str, request: Request):
    return await _receive(request, username)


@router.post("/inbox")
async def shared_inbox(request: Request):
    return await _receive(request, None)


@router.post("/actor/inbox")
async def instance_actor_inbox(request: Request):
    return await _receive(request, None)


app = create_app([router], name="inbox")
handler = http_handler(app)
