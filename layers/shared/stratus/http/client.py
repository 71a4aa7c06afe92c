"""Facts about the caller that API Gateway vouches for."""

from __future__ import annotations

from typing import Any


def client_ip(request: Any) -> str:
    """The connection's address as API Gateway saw it (never X-Forwarded-For, which clients set)."""
    event = request.scope.get("aws.event") or {}
    source = event.get("requestContext", {}).get("http", {}).get("sourceIp")
    if source:
        return source
    client = request.scope.get("client")
    return client[0] if client else "0.0.0.0"
