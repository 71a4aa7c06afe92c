"""The one request parser: Rails-style nesting and booleans, all three body formats."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, Request
from starlette.testclient import TestClient
from stratus.core.params import flag, to_i, truthy
from stratus.http.app import create_app
from stratus.http.forms import nest, request_params


def test_nesting_arrays_and_hashes():
    assert nest([("media_ids[]", "1"), ("media_ids[]", "2")]) == {"media_ids": ["1", "2"]}
    assert nest([("poll[options][]", "a"), ("poll[options][]", "b"), ("poll[expires_in]", "300")]) \
        == {"poll": {"options": ["a", "b"], "expires_in": "300"}}
    assert nest([("fields_attributes[0][name]", "n0"), ("fields_attributes[0][value]", "v0"),
                 ("fields_attributes[1][name]", "n1")]) == \
        {"fields_attributes": {"0": {"name": "n0", "value": "v0"}, "1": {"name": "n1"}}}
    assert nest([("data[alerts][mention]", "true")]) == {"data": {"alerts": {"mention": "true"}}}
    assert nest([("a[][x]", "1"), ("a[][y]", "2"), ("a[][x]", "3")]) == \
        {"a": [{"x": "1", "y": "2"}, {"x": "3"}]}
    assert nest([("plain", "v"), ("weird]name[", "w")]) == {"plain": "v", "weird]name[": "w"}


@pytest.mark.parametrize("raw, expected", [
    ("true", True), ("1", True), ("on", True), ("anything", True), (1, True), (True, True),
    ("false", False), ("0", False), ("f", False), ("off", False), ("FALSE", False), (0, False),
    ("", None), (None, None),
])
def test_truthy_like_rails(raw, expected):
    assert truthy(raw) is expected


def test_flag_defaults_only_when_absent():
    assert flag(None, True) is True and flag("", True) is True
    assert flag("0", True) is False and flag("1") is True and flag(None) is False


@pytest.fixture
def app_client():
    router = APIRouter()

    @router.post("/echo")
    async def echo(request: Request):
        return await request_params(request)

    return TestClient(create_app([router]))


def test_json_form_and_multipart_parse_the_same(app_client):
    expected = {"name": "x", "ids": ["1", "2"], "nested": {"a": {"b": "c"}}}
    as_json = app_client.post("/echo", json=expected)
    as_form = app_client.post("/echo", data={"name": "x", "ids[]": ["1", "2"],
                                             "nested[a][b]": "c"})
    as_multipart = app_client.post("/echo", data={"name": "x", "ids[]": ["1", "2"],
                                                  "nested[a][b]": "c"},
                                   files={"other": ("a.txt", b"hello", "text/plain")})
    assert as_json.json() == expected and as_form.json() == expected
    body = as_multipart.json()
    assert {k: body[k] for k in expected} == expected
    flat_json = app_client.post("/echo", json={"ids[]": ["1"], "poll[expires_in]": 300})
    assert flat_json.json() == {"ids": ["1"], "poll": {"expires_in": 300}}


def test_query_string_counts_and_body_wins(app_client):
    response = app_client.post("/echo?name=fromquery&ids[]=9", data={"name": "frombody"})
    assert response.json() == {"name": "frombody", "ids": ["9"]}


def test_malformed_bodies_are_400(app_client):
    for content in (b"{nope", b"[1, 2]"):
        response = app_client.post("/echo", content=content,
                                   headers={"content-type": "application/json"})
        assert response.status_code == 400
        assert response.json() == {"error": "Error occurred while parsing request parameters"}


def test_unreadable_path_parameters_are_422():
    router = APIRouter()

    @router.get("/items/{number}")
    def item(number: int):
        return {"number": number}

    response = TestClient(create_app([router])).get("/items/abc")
    assert response.status_code == 422
    assert response.json()["error"].startswith("Validation failed: number ")


@pytest.mark.parametrize("value, expected", [
    ("3600", 3600), (" 42abc", 42), ("-5", -5), ("+7", 7), ("abc", 0), ("", 0), (None, 0),
    (12, 12), (1.9, 1), (float("inf"), 0), (float("nan"), 0), (True, 1), (["1"], 0),
    ("١٢", 0),  # Ruby's to_i reads ASCII digits only
])
def test_to_i_reads_numbers_as_rails_does(value, expected):
    assert to_i(value) == expected
