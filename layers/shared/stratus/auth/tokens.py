"""Opaque secrets (tokens, codes, client secrets): generated with `secrets`, stored as hashes."""

from __future__ import annotations

import hashlib
import secrets


def generate(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()
