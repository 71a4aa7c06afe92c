"""Mastodon pagination below the web layer: `max_id`/`since_id`/`min_id`/`limit` as a `Page`,
and `fill_page` for listings whose index entries need reading and filtering.

Filtered listings are bounded: a request examines at most `Budget.entries` index entries
(docs/data-model.md, "Filtered listings"). When the budget runs out before the page is full,
the page is short and its `Link` header continues from the last entry examined, so a client
paging on walks the rest of the partition a budget at a time instead of one request walking
all of it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from stratus.core.ids import is_id
from stratus.core.limits import DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT

CURSORS = ("max_id", "since_id", "min_id")
EXAMINED_PER_PAGE = 400  # index entries one request may examine
MIN_STEP = 20  # index entries read (and hydrated) at once, at the least
E = TypeVar("E")
T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    max_id: str | None = None
    since_id: str | None = None
    min_id: str | None = None
    limit: int = DEFAULT_PAGE_LIMIT
    offset: int = 0

    @property
    def ascending(self) -> bool:
        """`min_id` asks for the page just newer than it: read upwards, then reverse."""
        return self.min_id is not None

    @property
    def step(self) -> int:
        """Index entries to read per call, and to hydrate per batch, for this page: the same
        number for both, so a page whose entries are all kept costs one Query."""
        return max(self.limit, MIN_STEP)

    def id_range(self) -> tuple[int | None, int | None]:
        """Inclusive (lowest, highest) ids the page may contain; None = unbounded."""
        low = int(self.min_id or self.since_id) + 1 if (self.min_id or self.since_id) else None
        high = int(self.max_id) - 1 if self.max_id else None
        return low, high


def page_params(params: dict[str, Any], *, default: int = DEFAULT_PAGE_LIMIT,
                maximum: int = MAX_PAGE_LIMIT) -> Page:
    def cursor(name: str) -> str | None:
        value = params.get(name)
        return str(value) if is_id(str(value) if value is not None else None) else None

    try:
        limit = int(params.get("limit", default))
    except (TypeError, ValueError):
        limit = default
    limit = min(max(limit, 1), maximum)
    try:
        offset = max(int(params.get("offset", 0)), 0)
    except (TypeError, ValueError):
        offset = 0
    return Page(cursor("max_id"), cursor("since_id"), cursor("min_id"), limit, offset)


@dataclass
class Budget:
    """How many index entries a request may examine, and how far it got. The repository
    counts what it reads (entries a DynamoDB filter dropped included) and stops when spent."""

    entries: int = field(default_factory=lambda: EXAMINED_PER_PAGE)
    examined: int = 0
    last_id: str | None = None  # id of the last entry examined, in reading order

    @property
    def spent(self) -> bool:
        return self.examined >= self.entries

    def left(self) -> int:
        return max(self.entries - self.examined, 0)


@dataclass
class Filled:
    """A page of results and the ids its `Link` header continues from (newest first)."""

    items: list[Any]
    link_ids: list[str]


def fill_page(entries: Iterable[E], hydrate: Callable[[list[E]], list[T]], page: Page, *,
              budget: Budget, id_of: Callable[[E], str], result_id: Callable[[T], str],
              ) -> Filled:
    """A page from index entries that need reading and filtering: `hydrate(batch)` reads a
    batch of entries at once and returns the results it keeps. DynamoDB applies Limit before
    filters, so filtered lists walk the index in batches until the page is full or the budget
    is spent. Results come newest first (a `min_id` page is read upwards, then reversed)."""
    found: list[T] = []
    batch: list[E] = []
    first: str | None = None
    size = page.step
    for entry in entries:
        first = first or id_of(entry)
        batch.append(entry)
        if len(batch) >= size:
            found.extend(hydrate(batch))
            batch = []
            if len(found) >= page.limit:
                break
    else:
        if batch:
            found.extend(hydrate(batch))
    full = len(found) >= page.limit
    found = found[:page.limit]
    # Where reading stopped: the last result when the page is full (entries examined after it
    # are the next page's), else the last entry examined when the budget ran out.
    if full:
        reached = result_id(found[-1])
    elif budget.spent and budget.last_id:
        reached = budget.last_id
    else:
        reached = result_id(found[-1]) if found else None
    started = result_id(found[0]) if found else first or reached
    if page.ascending:
        found.reverse()
        link_ids = [reached, started]
    else:
        link_ids = [started, reached]
    return Filled(found, [i for i in link_ids if i] if reached else [])


def begun(entries: Iterator[E]) -> Iterator[E]:
    """`entries` with its first item already read: a lazy index read started now, so that it
    runs beside reads started just before it (core/parallel.py)."""
    first = next(entries, _NOTHING)
    return entries if first is _NOTHING else itertools.chain([first], entries)


_NOTHING: Any = object()
