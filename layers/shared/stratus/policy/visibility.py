"""Who may see a status. One policy for every read: public and unlisted to everyone; private to
the author, followers and mentioned accounts; direct to the author and mentioned accounts.
Invisible statuses are reported as missing (404), never as forbidden. Blocks plug in here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

PUBLIC_LIKE = ("public", "unlisted")


def can_see(status: dict[str, Any], viewer_id: str | None, following: set[str]) -> bool:
    visibility = status.get("visibility", "public")
    if visibility in PUBLIC_LIKE:
        return True
    if viewer_id is None:
        return False
    if status["account_id"] == viewer_id or viewer_id in status.get("mention_ids", []):
        return True
    return visibility == "private" and status["account_id"] in following


def filter_visible(statuses: Iterable[dict[str, Any]], viewer_id: str | None,
                   follows: Callable[[str, list[str]], set[str]]) -> list[dict[str, Any]]:
    """The statuses the viewer may see, asking the follow relation once for the whole page."""
    statuses = list(statuses)
    authors = [s["account_id"] for s in statuses
               if s.get("visibility") == "private" and viewer_id and s["account_id"] != viewer_id]
    following = follows(viewer_id, authors) if viewer_id and authors else set()
    return [s for s in statuses if can_see(s, viewer_id, following)]


def can_reblog(status: dict[str, Any], viewer_id: str) -> bool:
    """Public and unlisted statuses; the author may also boost their own private ones."""
    visibility = status.get("visibility", "public")
    return visibility in PUBLIC_LIKE or (visibility == "private" and
                                         status["account_id"] == viewer_id)
