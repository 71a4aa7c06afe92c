"""Poll votes."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys


def votes(poll_id: str) -> list[dict[str, Any]]:
    return list(base.query(keys.poll(poll_id)["PK"], sk_prefix=keys.VOTE_PREFIX))
