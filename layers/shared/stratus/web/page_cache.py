"""One render per URL per minute: a warm process keeps each public page it rendered for `TTL`
seconds (core/warm.py), so a viral link costs a render a minute per warm environment, not one
per reader, whatever caches stand between the reader and us. Pages never depend on who reads
them (they are rendered for an anonymous reader), so one copy serves everyone. Only pages that
rendered (200) are kept: a 404 or 410 is cheap and must not outlive the fix of its cause."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from stratus.core import warm

TTL = 60
LIMIT = 500  # pages a warm process keeps at most (then it starts afresh)

T = TypeVar("T")
_pages: warm.Keyed[tuple[Any, ...], Any] = warm.Keyed(TTL, limit=LIMIT)


def cached(key: tuple[Any, ...], render: Callable[[], T], keep: Callable[[T], bool]) -> T:
    """What `render()` gave for `key` within the last minute, else a fresh render (kept when
    `keep` accepts it)."""
    found = _pages.get(key)
    if found is not None:
        return found
    generation = _pages.generation
    page = render()
    if keep(page):
        _pages.put(key, page, generation)
    return page
