"""The hashtags staff made unusable or unlisted (Admin::Tag's `usable`, `listable`), as posting
and hashtag search check them: one item (repo/tag_admin.py) kept by each warm process for
`TTL` seconds (core/warm.py); the process that changed it forgets its copy at once."""

from __future__ import annotations

from stratus.core import warm
from stratus.repo import tag_admin

TTL = 15  # seconds, as the other staff-set sets (roles, custom emoji)

_policy = warm.Warm(tag_admin.policy, TTL)


def disallowed(names: list[str]) -> list[str]:
    """Which of these (normalised) tags a local status may not carry (DisallowedHashtags)."""
    unusable = _policy.get()[tag_admin.UNUSABLE]
    return [n for n in dict.fromkeys(names) if n in unusable] if unusable else []


def unlisted() -> set[str]:
    """Tags hashtag search leaves out (Tag.search_for's `exclude_unlistable`)."""
    return _policy.get()[tag_admin.UNLISTED]


def forget() -> None:
    _policy.forget()
