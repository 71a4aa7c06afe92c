"""What the Lambda runtime gives a handler: a context object, and invocation with a deadline."""

from __future__ import annotations

import asyncio
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


def invoke(stack: Any, logical_id: str, event: dict[str, Any],
           request_id: str | None = None) -> Any:
    """Run the function's handler as Lambda would: with its context, and every AWS call it makes
    (its cold-start imports too) authorised against its execution role (local/iam.py)."""
    _ensure_event_loop()
    fn = stack.functions[logical_id]
    with iam.acting_as(stack, logical_id):
        return stack.handler(logical_id)(event, LambdaContext(fn, request_id))
