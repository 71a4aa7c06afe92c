"""Values kept for the life of a warm Lambda, for a short while.

For small sets read on every request that change rarely (role definitions, IP blocks, custom
emoji; `Keyed`: the viewer behind a token): one read per `ttl` seconds per warm execution
environment instead of one per request, and for `Warm`, not on the request path once loaded
(refreshed in the background past half its time). A write in
the same process forgets the value at once (`forget()`); other warm environments see a change
when their copy expires. `forget_all()` resets every cache (tests start each case empty).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from stratus.core import parallel

T = TypeVar("T")
K = TypeVar("K")
_ALL: list[Warm | Keyed] = []


class Warm(Generic[T]):
    def __init__(self, load: Callable[[], T], ttl: float) -> None:
        self._load = load
        self._ttl = ttl
        self._lock = threading.Lock()
        self._value: T | None = None
        self._until = 0.0
        self._refreshing = False
        self._generation = 0  # a value loaded before a `forget()` is not kept after it
        _ALL.append(self)

    def get(self) -> T:
        """The value: loaded now the first time and after it expired; past half its time, the
        next one is loaded in the background (`_ahead`), so a busy process never waits."""
        with self._lock:
            now = time.monotonic()
            if self._value is None or now >= self._until:
                self._value = self._load()
                self._until = time.monotonic() + self._ttl
            elif now >= self._until - self._ttl / 2 and not self._refreshing:
                self._refreshing = True
                generation = self._generation
                parallel.detached(lambda: self._ahead(generation))
            return self._value

    def _ahead(self, generation: int) -> None:
        try:
            value = self._load()
            with self._lock:
                if generation == self._generation:  # nothing forgot it meanwhile
                    self._value, self._until = value, time.monotonic() + self._ttl
        finally:
            self._refreshing = False

    def forget(self) -> None:
        with self._lock:
            self._value = None
            self._generation += 1


class Keyed(Generic[K, T]):
    """Values by key, each kept `ttl` seconds (at most `limit` keys, then it starts afresh)."""

    def __init__(self, ttl: float, limit: int = 10_000) -> None:
        self._ttl = ttl
        self._limit = limit
        self._lock = threading.Lock()
        self._values: dict[K, tuple[float, T]] = {}
        self.generation = 0  # how many times it was forgotten
        _ALL.append(self)

    def get(self, key: K) -> T | None:
        """The value kept for `key`, or None when there is none or it has expired."""
        with self._lock:
            found = self._values.get(key)
            if found is None:
                return None
            if time.monotonic() >= found[0]:
                del self._values[key]
                return None
            return found[1]

    def drop(self, key: K) -> None:
        with self._lock:
            self._values.pop(key, None)

    def forget(self) -> None:
        with self._lock:
            self._values.clear()
            self.generation += 1

    def put(self, key: K, value: T, generation: int) -> None:
        """Keep `value` for `key`, unless `forget()` was called since `generation` was read
        (a value read before a forget must not outlive it)."""
        with self._lock:
            if generation != self.generation:
                return
            if len(self._values) >= self._limit:
                self._values.clear()
            self._values[key] = (time.monotonic() + self._ttl, value)


def forget_all() -> None:
    for cache in _ALL:
        cache.forget()
