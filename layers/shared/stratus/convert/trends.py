"""Trends entities beyond the Tag and the Status: Trends::Link."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stratus.convert import cards, tags


def link(card: dict[str, Any], stats: dict[str, Any] | None, now: datetime) -> dict[str, Any]:
    """Trends::Link: the PreviewCard with the link's week of `history` up to `now`."""
    return {**cards.preview_card(card), "history": tags.history(stats, now)}
