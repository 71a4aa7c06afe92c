"""stratus/core/jsondoc.py: JSON from other servers, with bounded nesting."""

from __future__ import annotations

import pytest


def test_jsondoc_refuses_deep_nesting_without_recursion_error():
    from stratus.core import jsondoc

    assert jsondoc.loads(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 40 + b"1" + b"}" * 40):
        with pytest.raises(jsondoc.TooDeep):
            jsondoc.loads(body)
    with pytest.raises(ValueError):
        jsondoc.loads(b"\xff not json")
    assert jsondoc.depth({"a": {"b": [[]]}}) == 4


def test_jsondoc_refuses_lone_surrogates_in_keys_and_values():
    """`\\ud800` is valid JSON but no text: it cannot be logged, hashed or stored, so a
    document carrying one is refused where it is read (the inbox: a 400)."""
    from stratus.core import jsondoc

    for body in (b'{"id": "\\ud800"}', b'{"\\udfff": 1}', b'{"a": [{"b": ["x\\ud83d"]}]}'):
        with pytest.raises(ValueError, match="UTF-8"):
            jsondoc.loads(body)
    assert jsondoc.loads(b'{"e": "\\ud83d\\ude00"}') == {"e": "\U0001F600"}
