"""The instance secret: signs sessions and confirmation links, seals actors' private keys and
seeds the VAPID key pair. An SSM Parameter Store SecureString (a standard parameter: no monthly
price, unlike a Secrets Manager secret's $0.40; encrypted with the account's AWS managed key for
SSM), made by the first function that needs it: CloudFormation cannot create a SecureString.
Two first uses at once make one secret (PutParameter without Overwrite: the second reads the
first's)."""

from __future__ import annotations

import json
import secrets as random

from stratus.core.config import settings
from stratus.repo.client import client

_cache: dict[str, dict] = {}
KEY_LENGTH = 64


def instance_secret() -> dict:
    name = settings().instance_secret_parameter
    if name not in _cache:
        _cache[name] = _read(name) or _create(name)
    return _cache[name]


def _read(name: str) -> dict | None:
    ssm = client("ssm")
    try:
        value = ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    except ssm.exceptions.ParameterNotFound:
        return None
    return json.loads(value)


def _create(name: str) -> dict:
    ssm = client("ssm")
    made = {"session_key": random.token_urlsafe(KEY_LENGTH)[:KEY_LENGTH]}
    try:
        ssm.put_parameter(Name=name, Type="SecureString", Overwrite=False, Tier="Standard",
                          Description="Stratus: sessions, confirmation links, sealed keys, VAPID",
                          Value=json.dumps(made))
    except ssm.exceptions.ParameterAlreadyExists:
        found = _read(name)
        if found is None:
            raise
        return found
    return made


def reset() -> None:
    _cache.clear()
