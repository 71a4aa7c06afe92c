"""Bad input is a 4xx with Mastodon's error body, never a 500.

Each case here was a 500 before: ids with Unicode digits, non-numeric media ids, poll options
that are not a list, lone surrogates in text, deeply nested bodies, and concurrent requests with
one Idempotency-Key."""

from __future__ import annotations

import json
import re
import threading

import httpx
import pytest

from local.routes import route_table
from tests.rig import auth, make_app, make_user, user_token

ODD_IDS = ["²", "¹²³", "١٢٣", "𝟙𝟚", "12a", "-5", "9" * 30, "99999999999999999999", "0x10"]


@pytest.fixture
def alice(client):
    """An owner (so staff routes get past their permission check) with every scope."""
    app = make_app(client, scopes="read write follow push admin:read admin:write")
    account_id = make_user("alice", role="owner")
    return account_id, auth(user_token(app, account_id, scopes=(
        "read", "write", "follow", "push", "admin:read", "admin:write")))


def _concrete(path: str, value: str) -> str:
    return re.sub(r"\{[^}]+\}", value, path)


# Path parameters that are names, not ids (an unknown hashtag is an empty timeline, as in
# Mastodon), or opaque tokens; a terms-of-service date is a date (its web page 404s in HTML).
NOT_IDS = {"username", "hashtag", "refresh_id", "group_key", "effective_date"}
# Pages for browsers (docs/web.md): their 404 is Mastodon's HTML page.
PAGES = {("GET", "/tags/{name}")}


@pytest.mark.parametrize("odd", ["²", "¹²³", "١٢٣"])
def test_every_id_route_answers_404_for_an_id_that_is_not_one(client, runtime, alice, odd):
    _, headers = alice
    failures = []
    for route in route_table(runtime.stack):
        if not route.path_params or set(route.path_params) & NOT_IDS:
            continue
        response = client.request(route.method, _concrete(route.path, odd), headers=headers)
        if (route.method, route.path) in PAGES:
            if response.status_code != 404 or not response.headers["content-type"].startswith(
                    "text/html"):
                failures.append(f"{route.method} {route.path}: {response.status_code}")
            continue
        if response.status_code != 404 or response.json() != {"error": "Record not found"}:
            failures.append(f"{route.method} {route.path}: {response.status_code} "
                            f"{response.text[:80]}")
    assert failures == []


def test_id_lists_skip_what_is_not_an_id(client, alice):
    _, headers = alice
    for odd in ODD_IDS:
        for path in ("/api/v1/statuses", "/api/v1/accounts"):
            response = client.get(path, params={"id[]": [odd]}, headers=headers)
            assert response.status_code == 200 and response.json() == [], (path, odd)


def test_cursors_that_are_not_ids_are_ignored(client, alice):
    account_id, headers = alice
    status = client.post("/api/v1/statuses", headers=headers, data={"status": "hi"}).json()
    for odd in ODD_IDS:
        for cursor in ("max_id", "since_id", "min_id"):
            response = client.get(f"/api/v1/accounts/{account_id}/statuses",
                                  params={cursor: odd}, headers=headers)
            assert response.status_code == 200, (cursor, odd, response.text)
            assert [s["id"] for s in response.json()] == [status["id"]]


def test_indexed_hash_keys_that_are_not_numbers(client, alice):
    _, headers = alice
    response = client.patch("/api/v1/accounts/update_credentials", headers=headers, data={
        "fields_attributes[²][name]": "b", "fields_attributes[²][value]": "2",
        "fields_attributes[1][name]": "a", "fields_attributes[1][value]": "1"})
    assert response.status_code == 200, response.text
    assert [f["name"] for f in response.json()["fields"]] == ["a", "b"]
    poll = client.post("/api/v1/statuses", headers=headers, json={
        "status": "?", "poll": {"options": {"¹": "x", "0": "y"}, "expires_in": 600}})
    assert poll.status_code == 200, poll.text
    assert [o["title"] for o in poll.json()["poll"]["options"]] == ["y", "x"]


@pytest.mark.parametrize("media_ids", [["abc"], ["²"], ["1" * 40], [{"a": 1}], "x"])
def test_media_ids_that_are_not_ids_are_422(client, alice, media_ids):
    _, headers = alice
    response = client.post("/api/v1/statuses", headers=headers,
                           json={"status": "with media", "media_ids": media_ids})
    assert response.status_code == 422, response.text
    assert response.json()["error"].startswith("Validation failed: Media attachments could not")


@pytest.mark.parametrize("options", [5, 1.5, True, "ab", {"0": {"x": 1}, "1": ["y"]},
                                     [["a"], {"b": 1}]])
def test_poll_options_that_are_not_a_list_of_strings_are_422(client, alice, options):
    _, headers = alice
    response = client.post("/api/v1/statuses", headers=headers, json={
        "status": "poll", "poll": {"options": options, "expires_in": 600}})
    assert response.status_code == 422, response.text
    assert response.json() == {"error": "Validation failed: Poll must have at least 2 options"}


def test_non_finite_numbers_are_not_json(client, alice):
    _, headers = alice
    for literal in ("NaN", "Infinity", "-Infinity"):
        response = client.post("/api/v1/statuses", headers={
            **headers, "Content-Type": "application/json"},
            content='{"status": "poll", "poll": {"options": ["a", "b"], "expires_in": %s}}'
                    % literal)
        assert response.status_code == 400, response.text
        assert response.json() == {"error": "Error occurred while parsing request parameters"}


SURROGATE = "\ud800"


def _json(payload: dict) -> bytes:
    return json.dumps(payload).encode()  # ensure_ascii: the surrogate travels as "\ud800"


@pytest.mark.parametrize("method, path, payload", [
    ("POST", "/api/v1/statuses", {"status": f"a{SURROGATE}b"}),
    ("POST", "/api/v1/statuses", {"status": "x", "spoiler_text": SURROGATE}),
    ("POST", "/api/v1/statuses", {"status": "x", "poll": {
        "options": ["a", SURROGATE], "expires_in": 600}}),
    ("PATCH", "/api/v1/accounts/update_credentials", {"note": SURROGATE}),
    ("PATCH", "/api/v1/accounts/update_credentials", {"display_name": "\udfff"}),
    ("PATCH", "/api/v1/accounts/update_credentials", {
        "fields_attributes": {"0": {"name": SURROGATE, "value": "v"}}}),
    ("PATCH", "/api/v1/accounts/update_credentials", {SURROGATE: "key"}),
])
def test_lone_surrogates_in_json_are_400(client, alice, method, path, payload):
    _, headers = alice
    response = client.request(method, path, content=_json(payload),
                              headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json() == {"error": "Invalid request parameters: text is not valid UTF-8"}


def test_lone_surrogates_in_media_descriptions_are_400(client, alice):
    from stratus.api.instance.instance import solid_png

    _, headers = alice
    media = client.post("/api/v1/media", headers=headers,
                        files={"file": ("a.png", solid_png(8, 8, (1, 2, 3)), "image/png")})
    assert media.status_code == 200, media.text
    response = client.put(f"/api/v1/media/{media.json()['id']}",
                          content=_json({"description": SURROGATE}),
                          headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 400, response.text


def test_invalid_utf8_is_refused_alike_in_every_body_format(client, alice):
    """Rails answers 400 for parameters that are not UTF-8; so do all three parsers here."""
    _, headers = alice
    encoded_surrogate = b"\xed\xa0\x80"  # UTF-8 would never encode a surrogate
    as_form = client.post("/api/v1/statuses", content=b"status=a%ED%A0%80b", headers={
        **headers, "Content-Type": "application/x-www-form-urlencoded"})
    raw_json = client.post("/api/v1/statuses", content=b'{"status": "a' + encoded_surrogate
                           + b'"}', headers={**headers, "Content-Type": "application/json"})
    as_multipart = client.post("/api/v1/statuses", headers=headers, files={
        "status": (None, b"a" + encoded_surrogate)})
    in_query = client.post("/api/v1/statuses?status=%ED%A0%80", headers=headers)
    for response in (as_form, raw_json, as_multipart, in_query):
        assert response.status_code == 400, response.text
        assert response.json() == {"error": "Invalid request parameters: text is not valid UTF-8"}


def test_deeply_nested_bodies_are_400(client, alice):
    _, headers = alice
    deep_json = "[" * 10_000 + "]" * 10_000
    response = client.post("/api/v1/statuses", content='{"status": "x", "a": %s}' % deep_json,
                           headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json() == {"error": "Invalid request parameters: nested too deeply"}
    deep_form = "a" + "[b]" * 100 + "=1"
    response = client.post("/api/v1/statuses", content=f"status=x&{deep_form}", headers={
        **headers, "Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 400, response.text
    shallow = client.post("/api/v1/statuses", headers=headers,
                          json={"status": "x", "a": [[[[{"b": [1]}]]]]})
    assert shallow.status_code == 200, shallow.text


def test_oversized_bodies_are_413(client, alice):
    _, headers = alice
    big = client.post("/api/v1/statuses", headers=headers,
                      json={"status": "x", "padding": "a" * (2 * 1024 * 1024)})
    assert big.status_code == 413, big.text
    assert big.json() == {"error": "Request entity too large"}


def test_concurrent_posts_with_one_idempotency_key(live_server):
    """Ten clients retrying at once: one status; each answer is that status, or a 429 that
    says when to retry (never a 500)."""
    base = live_server.base_url
    with httpx.Client(base_url=base) as http:
        app = make_app(http)
    headers = {**auth(user_token(app, make_user("alice"))), "Idempotency-Key": "same-key"}
    answers: list[httpx.Response] = []
    start = threading.Barrier(10)

    def send() -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            start.wait()
            answers.append(http.post("/api/v1/statuses", headers=headers,
                                     data={"status": "only once"}))

    threads = [threading.Thread(target=send) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted({r.status_code for r in answers}) in ([200], [200, 429]), \
        [(r.status_code, r.text[:80]) for r in answers]
    assert len({r.json()["id"] for r in answers if r.status_code == 200}) == 1
    for busy in (r for r in answers if r.status_code == 429):
        assert busy.headers["Retry-After"] and "error" in busy.json()
    live_server.pipeline.drain()  # statuses_count is kept from the stream
    with httpx.Client(base_url=base) as http:
        me = http.get("/api/v1/accounts/verify_credentials", headers=headers).json()
    assert me["statuses_count"] == 1


@pytest.mark.parametrize("value, expected", [
    ("0", True), ("123", True), ("9223372036854775807", True),
    ("9223372036854775808", False), ("99999999999999999999", False), ("²", False),
    ("١٢٣", False), ("12a", False), ("", False), (" 1", False), ("-1", False), (12, False),
])
def test_is_id_reads_ids_like_a_bigint(value, expected):
    from stratus.core.ids import is_id

    assert is_id(value) is expected


def test_indexed_values_orders_numbers_then_the_rest():
    from stratus.core.params import indexed_values

    assert indexed_values({"10": "c", "x": "d", "2": "b", "²": "e", "0": "a"}) == \
        ["a", "b", "c", "d", "e"]
