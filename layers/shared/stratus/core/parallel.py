"""Independent reads at once: several DynamoDB calls that depend on nothing but what a request
already has take one round trip of wall time instead of one each (boto3 clients are
thread-safe; repo/client.py sizes the connection pool to match `WORKERS`).

One pool per process. Nothing waits long on work that has not started: whoever needs a result
whose task is still queued after `TAKE_BACK_SECONDS` takes the task back and runs it itself
(`Later.result`). So parts
may gather parts of their own (a page's loaders, each a BatchGetItem of several chunks)
without ever starving the pool, however many requests share it (the local stack serves many
at once in one process). Every task runs in a copy of the caller's `contextvars` context: the
invocation's identity goes along (the local stack checks IAM per function through it; the cost
bench charges the calls to the right invocation).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, TimeoutError
from typing import Any, Generic, TypeVar

T = TypeVar("T")
WORKERS = 32  # calls in flight at once per process
# How long a result is awaited before a task that no worker has started yet is taken back and
# run by whoever waits for it (a worker starts a task within milliseconds unless all are busy).
TAKE_BACK_SECONDS = 0.05

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="stratus-io")
    return _pool


class Later(Generic[T]):
    """A call started on the pool; `result()` waits for it, or runs it here if it has not
    started yet."""

    def __init__(self, call: Callable[[], T]) -> None:
        self._call = call
        self._future: Future[T] = _executor().submit(contextvars.copy_context().run, call)

    def result(self) -> T:
        while True:
            try:
                return self._future.result(timeout=TAKE_BACK_SECONDS)
            except TimeoutError:
                if self._future.cancel():  # still queued: every worker is busy waiting
                    return self._call()


def start(call: Callable[[], T]) -> Later[T]:
    """`call()` started now; `.result()` when it is needed."""
    return Later(call)


def gather(*calls: Callable[[], Any]) -> list[Any]:
    """The results of `calls`, run at once, in order (an error of one is raised). The caller's
    own thread runs the first."""
    if len(calls) <= 1:
        return [call() for call in calls]
    started = [Later(call) for call in calls[1:]]
    first = calls[0]()
    return [first, *(later.result() for later in started)]


_detached: contextvars.ContextVar[bool] = contextvars.ContextVar("stratus_detached",
                                                                 default=False)


def detached(call: Callable[[], Any]) -> None:
    """`call()` started now, and nobody waits for it (a cache renewed ahead of expiry); it runs
    in a copy of the caller's context marked as such (`is_detached`)."""
    def run() -> Any:
        _detached.set(True)
        return call()

    Later(run)


def is_detached() -> bool:
    """Whether the current task is one nobody waits for (the read bench leaves their calls out
    of the request that started them)."""
    return _detached.get()
