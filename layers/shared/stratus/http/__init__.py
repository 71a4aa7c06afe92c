"""The HTTP edge of the API functions: the FastAPI app every one builds, request parsing, content
negotiation, caching headers, pagination links, rate limits, what API Gateway says of the caller.

Importing this package after FastAPI (a function module declaring its routes imports `fastapi`
first) lets FastAPI check routes for pydantic v1 models without importing `pydantic.v1`
(`no_pydantic_v1_import`).
"""

from __future__ import annotations

import sys
from typing import Any


def _v1_model_class(cls: Any) -> bool:
    """FastAPI's `is_pydantic_v1_model_class`, without importing `pydantic.v1`: a class can
    subclass `pydantic.v1.BaseModel` only once that module is loaded."""
    from fastapi._compat.shared import lenient_issubclass

    v1 = sys.modules.get("pydantic.v1")
    return v1 is not None and lenient_issubclass(cls, v1.BaseModel)


def no_pydantic_v1_import() -> None:
    """FastAPI checks the type of every path, query and body parameter of a route against
    `pydantic.v1.BaseModel` when the route is declared (to refuse v1 models), and imports
    `pydantic.v1` to do it: ~40 ms of every HTTP function's INIT, for models nothing of ours
    uses. The same check without the import takes its place, once FastAPI is loaded (a worker
    that imports this package does not load FastAPI for it). tests/local/test_bench_init.py
    notices a FastAPI release that moves the check, or a function that declares routes first."""
    shared = sys.modules.get("fastapi._compat.shared")
    if shared is not None and getattr(shared, "is_pydantic_v1_model_class", None) is not None:
        shared.is_pydantic_v1_model_class = _v1_model_class


no_pydantic_v1_import()
