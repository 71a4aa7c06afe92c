"""boto3 clients, created once per process and only when first used.

This is the only module that imports boto3 (repo/ modules and stratus.mail/jobs use these
factories). `reset()` drops them (tests start a fresh emulator per test).
"""

from __future__ import annotations

import threading
from typing import Any

_clients: dict[str, Any] = {}
_session: Any = None
_lock = threading.Lock()


def client(service: str) -> Any:
    found = _clients.get(service)
    if found is not None:
        return found
    global _session
    with _lock:
        if service not in _clients:
            import boto3  # lazy: ~250 ms of init that only paths touching AWS pay
            from botocore.config import Config

            if _session is None:
                _session = boto3.session.Session()  # one session: its loader caches models
            _clients[service] = _session.client(
                service, config=Config(retries={"mode": "standard", "max_attempts": 5})
            )
        return _clients[service]


def dynamodb() -> Any:
    return client("dynamodb")


def reset() -> None:
    global _session
    with _lock:
        _clients.clear()
        _session = None
