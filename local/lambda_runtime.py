"""What the Lambda runtime gives a handler: a context object, and invocation with a deadline.

Lambda runs one invocation at a time per process; the local stack runs every function in one
process and invokes from several threads at once (the gateway's request threads, the pipeline).
Two things keep each invocation to itself, as on Lambda:

- each invocation runs in a copy of the caller's `contextvars` context (asyncio tasks and the
  thread pool FastAPI runs sync routes in inherit it);
- the Powertools log formatter's keys (`function_name`, `function_request_id`,
  `correlation_id`, anything a handler appends) live in that context: Powertools keeps them in
  one dict on the formatter, shared by every thread, so concurrent invocations logged under each
  other's names. Production code is unchanged; on Lambda one invocation at a time uses the dict.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
import uuid
from typing import Any

from . import cfn, iam


class LambdaContext:
    def __init__(self, fn: cfn.Function, request_id: str | None = None) -> None:
        self.function_name = fn.logical_id
        self.function_version = "$LATEST"
        self.invoked_function_arn = (
            f"arn:aws:lambda:{cfn.REGION}:{cfn.ACCOUNT}:function:{fn.logical_id}")
        self.memory_limit_in_mb = 512
        self.aws_request_id = request_id or str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{fn.logical_id}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + fn.timeout

    def get_remaining_time_in_millis(self) -> int:
        return max(int((self._deadline - time.monotonic()) * 1000), 0)


_thread = threading.local()


def _ensure_event_loop() -> None:
    """Lambda runs handlers on its main thread, which has an event loop (Mangum relies on it);
    the local stack invokes from worker threads, so give each of them one loop of its own."""
    if getattr(_thread, "loop", None) is None:
        _thread.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(_thread.loop)


# The log keys of the invocation running in this context: formatter id -> its keys.
_invocation_log_keys: contextvars.ContextVar[dict[int, dict[str, Any]] | None] = \
    contextvars.ContextVar("stratus_local_log_keys", default=None)
_log_keys_local = False
_setup_lock = threading.Lock()


def _invocation_local_log_keys() -> None:
    """Make `LambdaPowertoolsFormatter.log_format` (the keys every line carries) a value of the
    current invocation. Outside an invocation it is the formatter's own, as before; inside, an
    invocation starts from a copy of that and its changes stay in its context."""
    global _log_keys_local
    with _setup_lock:
        if _log_keys_local:
            return
        from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

        def shared(formatter: Any) -> dict[str, Any]:
            attributes = vars(formatter)
            if "_shared_log_format" not in attributes:  # made before this was installed
                attributes["_shared_log_format"] = attributes.pop("log_format", {})
            return attributes["_shared_log_format"]

        def get(formatter: Any) -> dict[str, Any]:
            keys = _invocation_log_keys.get()
            if keys is None:
                return shared(formatter)
            if id(formatter) not in keys:
                keys[id(formatter)] = dict(shared(formatter))
            return keys[id(formatter)]

        def set_(formatter: Any, value: dict[str, Any]) -> None:
            keys = _invocation_log_keys.get()
            if keys is None:
                shared(formatter)
                vars(formatter)["_shared_log_format"] = value
            else:
                keys[id(formatter)] = value

        LambdaPowertoolsFormatter.log_format = property(get, set_)
        _log_keys_local = True


def _run(stack: Any, logical_id: str, event: dict[str, Any], context: LambdaContext) -> Any:
    """One invocation, in a context of its own (log keys), acting as the function's role."""
    _invocation_log_keys.set({})
    with iam.acting_as(stack, logical_id):
        return stack.handler(logical_id)(event, context)


def isolated(handler: Any) -> Any:
    """A handler called directly (a test driving one function's steps) with its log keys kept
    to each call, as `invoke` keeps them: Powertools' `inject_lambda_context` would otherwise
    leave the function's name on every later line of the process."""
    _invocation_local_log_keys()

    def run(event: Any, context: Any) -> Any:
        def call() -> Any:
            _invocation_log_keys.set({})
            return handler(event, context)
        return contextvars.copy_context().run(call)
    return run


def invoke(stack: Any, logical_id: str, event: dict[str, Any],
           request_id: str | None = None) -> Any:
    """Run the function's handler as Lambda would: with its context, and every AWS call it makes
    (its cold-start imports too) authorised against its execution role (local/iam.py)."""
    _ensure_event_loop()
    _invocation_local_log_keys()
    fn = stack.functions[logical_id]
    return contextvars.copy_context().run(_run, stack, logical_id, event,
                                          LambdaContext(fn, request_id))
