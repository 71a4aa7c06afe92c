"""The instance secret (Secrets Manager): signs sessions and seeds the VAPID key pair."""

from __future__ import annotations

import json

from stratus.core.config import settings
from stratus.repo.client import client

_cache: dict[str, dict] = {}


def instance_secret() -> dict:
    arn = settings().instance_secret_arn
    if arn not in _cache:
        raw = client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
        _cache[arn] = json.loads(raw)
    return _cache[arn]


def reset() -> None:
    _cache.clear()
