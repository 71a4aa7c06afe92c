"""The instance's custom emoji as status renders need them: one Query of the INSTANCE partition
per `TTL` seconds per warm process (core/warm.py), not one per page. An import in the same
process is seen at once (`forget`, called by api/instance/emojis.py); other warm processes see
it within `TTL`, as Mastodon's own emoji cache lags."""

from __future__ import annotations

from typing import Any

from stratus.core import warm
from stratus.repo import instance as instance_repo

TTL = 15  # seconds: as long as the public list's own cache (api/instance/emojis.py)

_stored = warm.Warm(instance_repo.list_emojis, TTL)


def stored() -> list[dict[str, Any]]:
    """Every custom emoji item (enabled or not)."""
    return _stored.get()


def forget() -> None:
    _stored.forget()
