"""Who may see a status, and where it is left out. One policy for every read, pure: it reads the
viewer's relationships with the authors (`Relationships`, batch-loaded once per request by the
caller), never the database.

- `can_see` is Mastodon's StatusPolicy#show?: public and unlisted statuses to everyone but the
  accounts their author blocks; private ones to the author, followers and mentioned accounts;
  direct (and limited) ones to the author and mentioned accounts. Invisible statuses are
  reported as missing (404), never as forbidden.
- `hidden` is Mastodon's StatusFilter#filtered?: what lists and threads leave out — what the
  viewer may not see, and statuses of accounts the viewer blocks or mutes, or whose domain the
  viewer blocks. A direct read (GET /api/v1/statuses/:id) does not apply it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.model.relationships import Relationships

PUBLIC_LIKE = ("public", "unlisted")


def can_see(status: dict[str, Any], relations: Relationships) -> bool:
    viewer_id = relations.viewer_id
    visibility = status.get("visibility", "public")
    author = status["account_id"]
    if visibility in PUBLIC_LIKE:
        return viewer_id is None or author == viewer_id or author not in relations.blocked_by
    if viewer_id is None:
        return False
    if author == viewer_id or viewer_id in status.get("mention_ids", []):
        return True
    return visibility == "private" and author in relations.following


def hidden(status: dict[str, Any], relations: Relationships) -> bool:
    viewer_id = relations.viewer_id
    author = status["account_id"]
    if viewer_id is not None and author == viewer_id:
        return False
    if not can_see(status, relations):
        return True
    return viewer_id is not None and (
        author in relations.blocking or author in relations.muting
        or relations.blocks_domain(status.get("account_domain")))


def filter_visible(statuses: Iterable[dict[str, Any]], relations: Relationships
                   ) -> list[dict[str, Any]]:
    """The statuses the viewer may see."""
    return [s for s in statuses if can_see(s, relations)]


def without_hidden(statuses: Iterable[dict[str, Any]], relations: Relationships
                   ) -> list[dict[str, Any]]:
    """The statuses a list or thread shows the viewer."""
    return [s for s in statuses if not hidden(s, relations)]


def boosts_excluded(status: dict[str, Any], relations: Relationships) -> bool:
    """A boost of an account the viewer blocks, is blocked by or mutes (left out of an account's
    statuses, as Mastodon's AccountStatusesFilter does)."""
    original_author = status.get("reblog_of_account_id")
    return bool(original_author) and original_author != relations.viewer_id and \
        relations.excludes(original_author)


def can_reblog(status: dict[str, Any], relations: Relationships) -> bool:
    """StatusPolicy#reblog?: public and unlisted statuses (the author may also boost their own
    private ones) that the viewer may see, unless the viewer blocks their author."""
    visibility = status.get("visibility", "public")
    own = status["account_id"] == relations.viewer_id
    return (visibility in PUBLIC_LIKE or (visibility == "private" and own)) and \
        can_see(status, relations) and status["account_id"] not in relations.blocking


def can_favourite(status: dict[str, Any], relations: Relationships) -> bool:
    """StatusPolicy#favourite?: visible, and not by an account the viewer blocks."""
    return can_see(status, relations) and status["account_id"] not in relations.blocking


def limited_hidden(author_id: str, author_limited: bool, relations: Relationships) -> bool:
    """StatusFilter#silenced_account?: a limited (silenced) account's statuses are left out of
    threads and lists for those who do not follow it (its own author always sees them)."""
    viewer_id = relations.viewer_id
    return author_limited and author_id != viewer_id and author_id not in relations.following
