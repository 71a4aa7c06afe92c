"""create_app() conventions, pagination links, ids and keys."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.testclient import TestClient
from stratus.core import ids
from stratus.core.errors import Forbidden, NotFound, OAuthError, ValidationFailed
from stratus.core.paging import page_params
from stratus.http.app import create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.pagination import link_header
from stratus.repo import keys


def make_client():
    router = APIRouter()

    @router.get("/missing")
    def missing():
        raise NotFound()

    @router.get("/forbidden")
    def forbidden():
        raise Forbidden("This action is outside the authorized scopes")

    @router.post("/oauth")
    def oauth():
        raise OAuthError("invalid_grant", "The provided authorization grant is invalid", 400)

    @router.post("/invalid")
    def invalid():
        raise ValidationFailed({"username": [("ERR_TAKEN", "is already taken")]})

    @router.get("/boom")
    def boom():
        raise RuntimeError("kaput")

    @router.get("/public")
    def public(request: Request, response: Response):
        cache_if_unauthenticated(response, request)
        return {"ok": True}

    return TestClient(create_app([router]), raise_server_exceptions=False)


def test_error_bodies_are_mastodon_shaped():
    client = make_client()
    assert client.get("/missing").json() == {"error": "Record not found"}
    response = client.get("/forbidden")
    assert response.status_code == 403
    assert response.json() == {"error": "This action is outside the authorized scopes"}
    response = client.post("/oauth")
    assert response.json() == {"error": "invalid_grant",
                               "error_description": "The provided authorization grant is invalid"}
    response = client.post("/invalid")
    assert response.status_code == 422
    assert response.json() == {"error": "Validation failed: Username is already taken",
                               "details": {"username": [{"error": "ERR_TAKEN",
                                                         "description": "is already taken"}]}}
    response = client.get("/boom")
    assert response.status_code == 500 and response.json() == {"error": "Internal server error"}


def test_unknown_route_and_method_are_json_404():
    client = make_client()
    assert client.get("/nothing").json() == {"error": "Not found"}
    response = client.delete("/missing")
    assert response.status_code == 404 and response.json() == {"error": "Not found"}


def test_cache_headers():
    client = make_client()
    response = client.get("/missing")
    assert response.headers["cache-control"] == "private, no-store"
    assert response.headers["vary"] == "Authorization"
    assert client.get("/public").headers["cache-control"].startswith("max-age=15, public")
    authed = client.get("/public", headers={"Authorization": "Bearer x"})
    assert authed.headers["cache-control"] == "private, no-store"


def test_link_header_is_absolute_and_keeps_other_params(monkeypatch):
    monkeypatch.setenv("INSTANCE_DOMAIN", "social.example")
    monkeypatch.setenv("INSTANCE_SCHEME", "https")
    from stratus.core import config

    config.reset()
    header = link_header("/api/v1/favourites",
                         [("limit", "2"), ("max_id", "50"), ("only_media", "true")],
                         next_max_id="40", prev_min_id="49")
    assert header == ('<https://social.example/api/v1/favourites?limit=2&only_media=true&max_id=40>; '
                      'rel="next", <https://social.example/api/v1/favourites?limit=2&only_media=true'
                      '&min_id=49>; rel="prev"')
    config.reset()


def test_page_params_clamp_and_ignore_garbage():
    page = page_params({"limit": "500", "max_id": "123", "since_id": "abc"})
    assert page.limit == 40 and page.max_id == "123" and page.since_id is None
    assert page_params({"limit": "-3"}).limit == 1
    assert page_params({"limit": "x"}).limit == 20


def test_snowflake_layout_and_order():
    first = ids.new_id(at_ms=1_700_000_000_000)
    second = ids.new_id(at_ms=1_700_000_000_000)
    later = ids.new_id(at_ms=1_700_000_000_001)
    assert ids.timestamp_ms(first) == 1_700_000_000_000
    assert first != second
    assert int(later) > int(first) and int(later) > int(second)
    assert ids.id_at(1_700_000_000_000) <= first <= ids.id_at(1_700_000_000_000, upper=True)
    assert keys.pad(first) == first.zfill(20) and keys.unpad(keys.pad(first)) == first
    assert keys.pad("9") < keys.pad("10")


def test_local_gateway_answers_cors_like_api_gateway(client):
    preflight = client.options("/api/v1/statuses", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert "authorization" in preflight.headers["access-control-allow-headers"]
    response = client.get("/api/v1/instance", headers={"Origin": "https://app.example"})
    assert response.headers["access-control-allow-origin"] == "*"
    assert "link" in response.headers["access-control-expose-headers"]


def test_fill_page_walks_batches_until_full():
    from stratus.core.paging import Budget, Page, fill_page

    batches = []

    def evens(batch):
        batches.append(len(batch))
        return [n for n in batch if n % 2 == 0]

    def fill(entries, page, budget=None):
        return fill_page(iter(entries), evens, page, budget=budget or Budget(), id_of=str,
                         result_id=str)

    full = fill(range(100, 0, -1), Page(limit=15))
    assert full.items == list(range(100, 70, -2)) and full.link_ids == ["100", "72"]
    assert batches == [20, 20]  # a batch is the page's step; stops once full
    assert fill([1, 2, 3, 4], Page(limit=10)).items == [2, 4]
    # A min_id page is read upwards and handed back newest first.
    upwards = fill([2, 4, 6, 8], Page(limit=2, min_id="1"))
    assert upwards.items == [4, 2] and upwards.link_ids == ["4", "2"]
    assert fill([1, 3], Page(limit=2)).link_ids == []  # nothing found, nothing examined past


def test_a_page_whose_entries_are_all_kept_reads_one_step_of_the_index():
    """The repository reads `page.step` entries per Query and fill_page hydrates `page.step`
    per batch: a default page of 20 where every entry is kept costs one Query, not two."""
    from stratus.core.paging import Budget, Page, fill_page

    for limit in (1, 20, 40):
        page, consumed = Page(limit=limit), []

        def entries(page=page, consumed=consumed):
            for n in range(1000, 0, -1):
                consumed.append(n)
                yield n

        filled = fill_page(entries(), lambda batch: batch, page, budget=Budget(), id_of=str,
                           result_id=str)
        assert len(filled.items) == limit
        assert len(consumed) == page.step  # no entry read past the first step


def test_a_spent_budget_gives_a_short_page_that_continues_where_reading_stopped():
    from stratus.core.paging import Budget, Page, fill_page

    budget = Budget(entries=4)

    def entries():  # what a budgeted repository query does: count, remember, stop
        for n in [9, 7, 6, 5, 3, 2, 1]:
            if budget.spent:
                return
            budget.examined += 1
            budget.last_id = str(n)
            yield n

    short = fill_page(entries(), lambda batch: [n for n in batch if n % 2 == 0],
                      Page(limit=3), budget=budget, id_of=str, result_id=str)
    assert short.items == [6] and short.link_ids == ["6", "5"]
