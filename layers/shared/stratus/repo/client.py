"""boto3 clients, created once per process and only when first used.

This is the only module that imports boto3 (repo/ modules and stratus.core.mail/jobs use these
factories). `reset()` drops them (tests start a fresh emulator per test). `on_create()` lets the
local stack attach its IAM check to every client (local/iam.py); on Lambda nothing registers one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from stratus.core import parallel

_clients: dict[str, Any] = {}
_session: Any = None
_lock = threading.Lock()
_hooks: list[Callable[[Any], None]] = []


def client(service: str, endpoint_url: str | None = None) -> Any:
    """The process's client for `service` (one per endpoint for services that need one, such
    as apigatewaymanagementapi: a WebSocket API's connections endpoint)."""
    name = f"{service}@{endpoint_url}" if endpoint_url else service
    found = _clients.get(name)
    if found is not None:
        return found
    global _session
    with _lock:
        if name not in _clients:
            import boto3  # lazy: ~250 ms of init that only paths touching AWS pay
            from botocore.config import Config

            if _session is None:
                _session = boto3.session.Session()  # one session: its loader caches models
            made = _session.client(
                service, endpoint_url=endpoint_url,
                config=Config(retries={"mode": "standard", "max_attempts": 5},
                              # one connection per call core/parallel.py may have in flight
                              max_pool_connections=parallel.WORKERS + 2)
            )
            for hook in _hooks:
                hook(made)
            _clients[name] = made
        return _clients[name]


def on_create(hook: Callable[[Any], None]) -> None:
    """Call `hook(client)` for every client already made and every one made from now on."""
    with _lock:
        _hooks.append(hook)
        for made in _clients.values():
            hook(made)


def dynamodb() -> Any:
    return client("dynamodb")


def reset() -> None:
    global _session
    with _lock:
        _clients.clear()
        _session = None
