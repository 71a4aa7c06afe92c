"""Values kept for the life of a warm Lambda, for a short while.

For small sets read on every request that change rarely (role definitions, IP blocks): one
read per `ttl` seconds per warm execution environment instead of one per request. A write in
the same process forgets the value at once (`forget()`); other warm environments see a change
when their copy expires. `forget_all()` resets every cache (tests start each case empty).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
_ALL: list[Warm] = []


class Warm(Generic[T]):
    def __init__(self, load: Callable[[], T], ttl: float) -> None:
        self._load = load
        self._ttl = ttl
        self._lock = threading.Lock()
        self._value: T | None = None
        self._until = 0.0
        _ALL.append(self)

    def get(self) -> T:
        with self._lock:
            if self._value is None or time.monotonic() >= self._until:
                self._value = self._load()
                self._until = time.monotonic() + self._ttl
            return self._value

    def forget(self) -> None:
        with self._lock:
            self._value = None


def forget_all() -> None:
    for cache in _ALL:
        cache.forget()
