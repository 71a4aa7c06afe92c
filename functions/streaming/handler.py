"""The WebSocket API's routes: `$connect` authenticates (token in `Authorization`, in
`Sec-WebSocket-Protocol` — echoed back, as masto needs — or `?access_token=`) and takes
`?stream=`; `$default` takes `{"type":"subscribe"|"unsubscribe","stream":...}` messages and
answers errors through the route response; `$disconnect` forgets the connection."""

from __future__ import annotations

import json
from typing import Any

from stratus.api.streaming import streaming
from stratus.core.observability import JobLimits, job_handler


def _route(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    context = event.get("requestContext") or {}
    route, connection_id = context.get("routeKey"), context.get("connectionId")
    if route == "$connect":
        try:
            protocol = streaming.connect(connection_id, event.get("headers") or {},
                                         event.get("queryStringParameters") or {})
        except streaming.StreamError as error:
            return {"statusCode": error.status, "headers": {"Content-Type": "application/json"},
                    "body": json.dumps({"error": error.message})}
        headers = {"Sec-WebSocket-Protocol": protocol} if protocol else {}
        return {"statusCode": 200, "headers": headers}
    if route == "$disconnect":
        streaming.disconnect(connection_id)
        return {"statusCode": 200}
    answers = streaming.message(connection_id, event.get("body"))
    return {"statusCode": 200, **({"body": answers[0]} if answers else {})}


# A WebSocket route (connect, subscribe, ...), no outbound request: 5 s, and 3 s kept, within
# the 10 s timeout.
handler = job_handler(_route, limits=JobLimits(seconds=5, margin=3))
