"""Values kept for the life of a warm Lambda, for a short while.

For small sets read on every request that change rarely (`Warm`: role definitions, IP blocks,
custom emoji; `Keyed`: the viewer behind a token): one read per `ttl` seconds per warm execution
environment instead of one per request, and while a value is used, not on the request path
(renewed in the background past half its time: `Keyed.get`'s `ahead`). A write in the same
process forgets the value at once (`forget()`); other warm environments see a change when their
copy expires. `forget_all()` resets every cache (tests start each case empty).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from stratus.core import parallel

T = TypeVar("T")
K = TypeVar("K")
_ALL: list[Keyed] = []


class Keyed(Generic[K, T]):
    """Values by key, each kept `ttl` seconds (at most `limit` keys, then it starts afresh).

    A value still in use is renewed ahead of its expiry: `get(key, ahead=load)` past half the
    value's time starts `load()` once, in the background (`parallel.detached`), and keeps what
    it returns (None drops the key). A `forget()` wins over any load begun before it."""

    def __init__(self, ttl: float, limit: int = 10_000) -> None:
        self._ttl = ttl
        self._limit = limit
        self._lock = threading.Lock()
        self._values: dict[K, tuple[float, T]] = {}
        self._renewing: set[K] = set()
        self.generation = 0  # how many times it was forgotten
        _ALL.append(self)

    def get(self, key: K, ahead: Callable[[], T | None] | None = None) -> T | None:
        """The value kept for `key`, or None when there is none or it has expired."""
        with self._lock:
            found = self._values.get(key)
            if found is None:
                return None
            until, value = found
            now = time.monotonic()
            if now >= until:
                del self._values[key]
                return None
            if ahead is not None and now >= until - self._ttl / 2 and key not in self._renewing:
                self._renewing.add(key)
                generation = self.generation
                parallel.detached(lambda: self._renew(key, ahead, generation))
            return value

    def _renew(self, key: K, load: Callable[[], T | None], generation: int) -> None:
        try:
            value = load()
            if value is None:
                self.drop(key)
            else:
                self.put(key, value, generation)
        finally:
            with self._lock:
                self._renewing.discard(key)

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
            if len(self._values) >= self._limit and key not in self._values:
                self._values.clear()
            self._values[key] = (time.monotonic() + self._ttl, value)


class Warm(Generic[T]):
    """One value, loaded at first use and after it expired (one load at a time), and renewed
    in the background past half its time while it is used (`Keyed`'s renewal)."""

    def __init__(self, load: Callable[[], T], ttl: float) -> None:
        self._load = load
        self._kept: Keyed[None, T] = Keyed(ttl, limit=1)
        self._lock = threading.Lock()

    def get(self) -> T:
        value = self._kept.get(None, ahead=self._load)
        if value is not None:
            return value
        with self._lock:
            value = self._kept.get(None)  # loaded by another thread meanwhile
            if value is None:
                generation = self._kept.generation
                value = self._load()
                self._kept.put(None, value, generation)
            return value

    def forget(self) -> None:
        self._kept.forget()


def forget_all() -> None:
    for cache in _ALL:
        cache.forget()
