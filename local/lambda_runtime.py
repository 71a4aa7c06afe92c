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
from collections.abc import Callable
from typing import Any

from . import cfn, iam


class LambdaContext:
    def __init__(self, fn: cfn.Function, request_id: str | None = None,
                 arn: str | None = None) -> None:
        # The function's physical name and ARN, as Lambda gives them (`<stack>-EffectsFunction`
        # for one the template names): a function that invokes itself again uses the ARN.
        self.invoked_function_arn = arn or (
            f"arn:aws:lambda:{cfn.REGION}:{cfn.ACCOUNT}:function:{fn.logical_id}")
        self.function_name = self.invoked_function_arn.rsplit(":", 1)[-1]
        self.function_version = "$LATEST"
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


def _run(stack: Any, logical_id: str, event: dict[str, Any],
         made: Callable[[], LambdaContext]) -> tuple[Any, LambdaContext]:
    """One invocation, in a context of its own (log keys), acting as the function's role. Its
    Lambda context (and the timeout it counts down) is made once the handler is imported: a
    cold start's INIT is not part of the invocation's time, on Lambda either."""
    _invocation_log_keys.set({})
    with iam.acting_as(stack, logical_id):
        handler = stack.handler(logical_id)
        context = made()
        return handler(event, context), context


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


class FunctionTimedOut(Exception):
    """The invocation ran past its function's Timeout (Lambda would have stopped it)."""


def invoke(stack: Any, logical_id: str, event: dict[str, Any],
           request_id: str | None = None, *, enforce_timeout: bool = False) -> Any:
    """Run the function's handler as Lambda would: with its context, and every AWS call it makes
    (its cold-start imports too) authorised against its execution role (local/iam.py). With
    `enforce_timeout` (the event sources: local/pipeline.py), an invocation that ran past the
    function's Timeout fails, as Lambda fails it; in-process it cannot be stopped halfway, so
    it fails once it returns."""
    _ensure_event_loop()
    _invocation_local_log_keys()
    fn = stack.functions[logical_id]
    arn = stack.resolver.attributes.get((logical_id, "Arn"))
    answer, context = contextvars.copy_context().run(
        _run, stack, logical_id, event, lambda: LambdaContext(fn, request_id, arn))
    if enforce_timeout and context.get_remaining_time_in_millis() <= 0:
        # Lambda stops an invocation at its Timeout: whatever it did by then stays done, and its
        # event source sees a failure (a whole SQS batch back, an event retried).
        raise FunctionTimedOut(f"{logical_id}: Task timed out after {fn.timeout:.2f} seconds")
    return answer
