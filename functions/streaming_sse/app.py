"""Server-Sent Events streaming (`GET /api/v1/streaming/<stream>`, `/api/v1/streaming/health`),
as Mastodon's streaming server serves them and Mastodon.py reads them by default.

On AWS this ASGI app runs behind a Lambda function URL in RESPONSE_STREAM mode through the AWS
Lambda Web Adapter (`run.sh` starts uvicorn; the adapter streams the response as it is
written). The local stack's gateway serves the same app on the REST port. A request is a
connection like a WebSocket (api/streaming/streaming.py): the stream worker puts its events in the
connection's mailbox and this app sends them on, polling every `SSE_POLL_SECONDS` (2 s: each poll
is 1.5 read units), with a `:thump` heartbeat comment every 15 s. A response ends before
Lambda's 15-minute limit (`SSE_MAX_SECONDS`); clients reconnect (Mastodon.py does, with
`reconnect_async`). Lambda bills the function for as long as a response is open: an
always-connected client costs about $4.6 a month at 128 MB, the WebSocket API about $0.06
(docs/streaming.md, "What streaming costs").
"""

from __future__ import annotations

import asyncio
import os
import time

from fastapi import FastAPI, Request
from starlette.responses import JSONResponse, PlainTextResponse, StreamingResponse
from stratus.api.streaming import streaming

HEARTBEAT_SECONDS = 15

app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)


def _settings() -> tuple[float, float]:
    return (float(os.environ.get("SSE_POLL_SECONDS", "2")),
            float(os.environ.get("SSE_MAX_SECONDS", "870")))


@app.get("/api/v1/streaming/health")
def health() -> PlainTextResponse:
    return PlainTextResponse("OK")


@app.get("/api/v1/streaming/{path:path}")
async def stream(path: str, request: Request):
    headers = dict(request.headers)
    query = dict(request.query_params)
    try:
        connection_id = await asyncio.to_thread(streaming.open_sse, headers, query, path)
    except streaming.StreamError as error:
        return JSONResponse({"error": error.message}, status_code=error.status)
    poll, longest = _settings()

    async def events():
        started = beat = time.monotonic()
        try:
            yield ":)\n"
            while time.monotonic() - started < longest:
                pending = await asyncio.to_thread(streaming.sse_pending, connection_id)
                if pending is None:
                    return  # closed by the server (a revoked token)
                for data in pending:
                    yield streaming.sse_lines(data)
                if time.monotonic() - beat >= HEARTBEAT_SECONDS:
                    beat = time.monotonic()
                    yield ":thump\n"
                await asyncio.sleep(poll)
        finally:
            await asyncio.to_thread(streaming.disconnect, connection_id)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store",
                                      "X-Accel-Buffering": "no"})
