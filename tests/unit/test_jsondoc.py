"""stratus/jsondoc.py: JSON from other servers, with bounded nesting."""

from __future__ import annotations

import pytest


def test_jsondoc_refuses_deep_nesting_without_recursion_error():
    from stratus import jsondoc

    assert jsondoc.loads(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 40 + b"1" + b"}" * 40):
        with pytest.raises(jsondoc.TooDeep):
            jsondoc.loads(body)
    with pytest.raises(ValueError):
        jsondoc.loads(b"\xff not json")
    assert jsondoc.depth({"a": {"b": [[]]}}) == 4
