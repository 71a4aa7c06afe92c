"""What a process remembers having written, so an idempotent write is not repeated on every
request (the hours that have public statuses, the accounts seen active today).

Only a hint: a write it skips must be one that is already stored. A Lambda environment keeps its
tables for life; a local stack that starts over on new tables (every test) calls `forget_all()`,
or a write skipped on the old tables would be missing from the new ones."""

from __future__ import annotations

from collections.abc import Hashable

_all: list[Done] = []


class Done:
    """Keys whose write this process has done (at most `limit`, then it starts afresh)."""

    def __init__(self, limit: int = 10_000) -> None:
        self._keys: set[Hashable] = set()
        self._limit = limit
        _all.append(self)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._keys

    def add(self, key: Hashable) -> None:
        """Call after the write succeeded."""
        if len(self._keys) >= self._limit:
            self._keys.clear()
        self._keys.add(key)

    def forget(self) -> None:
        self._keys.clear()


def forget_all() -> None:
    for done in _all:
        done.forget()
