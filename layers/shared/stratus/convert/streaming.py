"""The streaming wire format: one message as Mastodon's streaming server frames it,
`{"stream":["hashtag","Foo"],"event":"update","payload":"<the Status as a JSON string>"}`,
written compactly (no spaces, UTF-8 kept), as both the WebSocket routes and the stream worker
send it."""

from __future__ import annotations

import json
from typing import Any


def dumps(value: Any) -> str:
    """JSON as Mastodon's streaming server writes it: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def frame(stream: list[str], event: str, payload: str | None = None) -> str:
    """One message as Mastodon sends it; `filters_changed` has no payload key at all."""
    message: dict[str, Any] = {"stream": stream, "event": event}
    if payload is not None:
        message["payload"] = payload
    return dumps(message)
