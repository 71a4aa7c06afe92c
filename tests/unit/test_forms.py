"""The one request parser: Rails-style nesting, booleans, all three body formats."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, Depends
from starlette.testclient import TestClient

from stratus.http.app import create_app
from stratus.http.forms import Bool, OptionalBool, Params, form, nest, truthy


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


class Sample(Params):
    name: str
    flag: Bool = False
    maybe: OptionalBool = None
    ids: list[str] = []
    nested: dict = {}


@pytest.fixture
def app_client():
    router = APIRouter()

    @router.post("/echo")
    def echo(body: Sample = Depends(form(Sample))):
        return body.model_dump()

    return TestClient(create_app([router]))


def test_json_form_and_multipart_parse_the_same(app_client):
    expected = {"name": "x", "flag": True, "maybe": False, "ids": ["1", "2"],
                "nested": {"a": {"b": "c"}}}
    as_json = app_client.post("/echo", json={"name": "x", "flag": "1", "maybe": "false",
                                             "ids": ["1", "2"], "nested": {"a": {"b": "c"}},
                                             "unknown": 5})
    as_form = app_client.post("/echo", data={"name": "x", "flag": "true", "maybe": "0",
                                             "ids[]": ["1", "2"], "nested[a][b]": "c",
                                             "unknown": "5"})
    as_multipart = app_client.post("/echo", data={"name": "x", "flag": "1", "maybe": "f",
                                                  "ids[]": ["1", "2"], "nested[a][b]": "c"},
                                   files={"file": ("a.txt", b"hello", "text/plain")})
    for response in (as_json, as_form, as_multipart):
        assert response.status_code == 200, response.text
        assert response.json() == expected


def test_query_string_counts_and_body_wins(app_client):
    response = app_client.post("/echo?name=fromquery&ids[]=9", data={"name": "frombody"})
    assert response.json()["name"] == "frombody"
    assert response.json()["ids"] == ["9"]


def test_validation_failure_is_422_not_500(app_client):
    response = app_client.post("/echo", json={"flag": "yes"})
    assert response.status_code == 422
    assert response.json() == {"error": "Validation failed: name can't be blank"}
    response = app_client.post("/echo", json={"name": {"not": "a string"}})
    assert response.status_code == 422
    assert response.json()["error"].startswith("Validation failed: name")


def test_malformed_json_is_400(app_client):
    response = app_client.post("/echo", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json() == {"error": "Error occurred while parsing request parameters"}
