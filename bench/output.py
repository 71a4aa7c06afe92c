"""What the bench parts share for `--json`: stdout carries exactly one JSON object, and whatever
the stack, the handlers or the part itself prints goes to stderr meanwhile."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """While active, file descriptor 1 writes to stderr (subprocesses' output included)."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def on_stack(start_stack: Callable[[], tuple[Any, Any]], work: Callable[[Any], Any],
             as_json: bool) -> int:
    """`work(runtime)` on a fresh local stack; with `as_json`, what it returns is the one JSON
    object printed on stdout."""
    with stdout_to_stderr(as_json):
        emulator, runtime = start_stack()
        try:
            result = work(runtime)
        finally:
            emulator.stop()
    if as_json:
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0
