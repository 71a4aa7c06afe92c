"""GET /api/v1/statuses/:id/card (removed in Mastodon 3.0, kept by clients): the preview card
the cards worker (workers/cards.py) named on a status."""

from __future__ import annotations

from typing import Any

from stratus.convert import cards as convert
from stratus.read import statuses as statuses_read
from stratus.repo import cards as repo


def for_status(viewer_id: str | None, status_id: str) -> dict[str, Any]:
    """GET /api/v1/statuses/:id/card (removed in Mastodon 3.0, kept by clients): the status's
    card, `{}` when it has none; 404 for a status the viewer may not see."""
    item = statuses_read.visible_item(status_id, viewer_id)
    if not item.get("card_url"):
        return {}
    card = repo.get(item["card_url"])
    return convert.preview_card(card) if card else {}
