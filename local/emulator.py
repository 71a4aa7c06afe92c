"""Making the AWS emulator (moto) safe to call from many threads at once.

moto's in-memory backends are not thread-safe (a transaction deep-copies a table while another
thread writes to it). Real AWS applies each request atomically, so serialising requests to the
emulator keeps its semantics and removes the crash. Our code's own concurrency (two requests
interleaving between their calls) is untouched: that is what the race tests exercise.
"""

from __future__ import annotations

import functools
import threading

_lock = threading.RLock()
_patched = False


def serialize_requests() -> None:
    global _patched
    if _patched:
        return
    from moto.core.botocore_stubber import BotocoreStubber
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    for owner, name in ((BotocoreStubber, "process_request"),
                        (DomainDispatcherApplication, "__call__")):
        original = getattr(owner, name)

        @functools.wraps(original)
        def locked(*args, __original=original, **kwargs):
            with _lock:
                return __original(*args, **kwargs)

        setattr(owner, name, locked)
    _patched = True
