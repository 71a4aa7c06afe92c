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


@pytest.mark.parametrize("body", [b'{"x": NaN}', b'[Infinity]', b'[-Infinity]', b'[1e999]',
                                  b'{"a": {"b": [-1e400]}}', b'[1E309]'])
def test_jsondoc_refuses_nan_infinity_and_numbers_past_a_float(body):
    """Not JSON (RFC 8259 has no NaN or Infinity), though Python's parser takes them, and
    `1e999` would be read as an infinity: DynamoDB stores neither (the job failed on every
    try), so the document is refused where it is read."""
    from stratus.core import jsondoc

    with pytest.raises(ValueError):
        jsondoc.loads(body)


def test_jsondoc_keeps_ordinary_and_large_finite_numbers():
    from stratus.core import jsondoc

    assert jsondoc.loads(b'[0, -1.5, 1e308, 99999999999999999999999999999999999999999]') == \
        [0, -1.5, 1e308, 99999999999999999999999999999999999999999]


def test_bounded_int_takes_whole_numbers_in_range_only():
    from stratus.core.jsondoc import bounded_int

    assert [bounded_int(v, 0, 100) for v in (0, 7, 100, 7.0)] == [0, 7, 100, 7]
    for value in (-1, 101, 10**41, 2.5, 1e300, True, False, "7", None, [7], {"n": 7}):
        assert bounded_int(value, 0, 100) is None, value


def test_bounded_float_clamps_and_rounds_finite_numbers():
    from stratus.core.jsondoc import bounded_float

    assert [bounded_float(v, -1.0, 1.0) for v in (0.5, 5, -1e300, 10**400, 1e-200, -0.0,
                                                  0.123456789)] == \
        [0.5, 1.0, -1.0, 1.0, 0.0, 0.0, 0.123457]
    for value in (float("nan"), float("inf"), True, "0.5", None, [0.5]):
        assert bounded_float(value, -1.0, 1.0) is None, value
