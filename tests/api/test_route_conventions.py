"""Rails' routing conventions clients rely on: PATCH wherever Mastodon routes `update` (Rails
routes it as PUT and PATCH), and the `Deprecation` header on the routes Mastodon deprecates."""

from __future__ import annotations

import pytest

from local.routes import route_table


def test_every_put_route_answers_patch_too(runtime):
    table = {(r.method, r.path) for r in route_table(runtime.stack)}
    puts = {path for method, path in table if method == "PUT"}
    assert len(puts) > 10
    assert {path for path in puts if ("PATCH", path) not in table} == set()


def test_patch_updates_as_put_does(client, people):
    _, headers = people
    made = client.post("/api/v1/lists", headers=headers["alice"], data={"title": "one"}).json()
    response = client.patch(f"/api/v1/lists/{made['id']}", headers=headers["alice"],
                            json={"title": "two"})
    assert response.status_code == 200, response.text
    assert response.json()["title"] == "two"
    assert client.get(f"/api/v1/lists/{made['id']}", headers=headers["alice"]).json()["title"] \
        == "two"
    # the same authorisation as PUT: another user's list is not found
    other = client.patch(f"/api/v1/lists/{made['id']}", headers=headers["bob"],
                         json={"title": "mine"})
    assert other.status_code == 404


def test_patch_of_a_status_edits_it(client, people):
    _, headers = people
    posted = client.post("/api/v1/statuses", headers=headers["alice"],
                         json={"status": "first"}).json()
    edited = client.patch(f"/api/v1/statuses/{posted['id']}", headers=headers["alice"],
                          json={"status": "second"})
    assert edited.status_code == 200, edited.text
    assert edited.json()["content"] == "<p>second</p>"


# Mastodon's deprecate_api dates (DeprecationConcern: `@` + the date's Unix time).
DEPRECATED = [
    ("GET", "/api/v1/instance", None, "@1668384000"),
    ("GET", "/api/v1/instance/", None, "@1668384000"),
    ("GET", "/api/v1/filters", "alice", "@1668384000"),
    ("GET", "/api/v1/suggestions", "alice", "@1621123200"),
    ("GET", "/api/v1/trends", None, "@1648598400"),
    ("GET", "/api/v1/accounts/{alice}/identity_proofs", "alice", "@1648598400"),
]


@pytest.mark.parametrize("method, path, user, header", DEPRECATED)
def test_deprecated_routes_say_so(client, people, method, path, user, header):
    ids_, headers = people
    response = client.request(method, path.format(**ids_),
                              headers=headers[user] if user else {})
    assert response.status_code == 200, response.text
    assert response.headers["deprecation"] == header


def test_the_header_comes_with_an_error_too(client, people):
    _, headers = people
    response = client.get("/api/v1/filters/999", headers=headers["alice"])
    assert response.status_code == 404
    assert response.headers["deprecation"] == "@1668384000"


@pytest.mark.parametrize("path", ["/api/v2/instance", "/api/v1/trends/tags",
                                  "/api/v2/suggestions", "/api/v2/filters"])
def test_current_routes_have_no_deprecation(client, people, path):
    _, headers = people
    response = client.get(path, headers=headers["alice"])
    assert response.status_code == 200
    assert "deprecation" not in response.headers
