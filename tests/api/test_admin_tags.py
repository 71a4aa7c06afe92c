"""Staff's hashtags (GET/PUT /api/v1/admin/tags(/:id), Manage Taxonomies): every tag ever used,
and what staff decide about one — its display name, whether it may be used, listed, trend."""

from __future__ import annotations

import pytest

from tests.rig import auth, make_app, make_user, post, staff_headers, user_token


@pytest.fixture
def staff(client):
    return staff_headers(client)


def _tags(client, staff, **params):
    response = client.get("/api/v1/admin/tags", headers=staff, params=params)
    assert response.status_code == 200, response.text
    return response


def test_every_used_tag_is_listed_newest_id_first(client, people, staff, entity):
    _, headers = people
    post(client, headers["alice"], status="#Cats and #dogs")
    post(client, headers["bob"], status="more #cats, and #Birds")
    listed = _tags(client, staff).json()
    assert sorted(t["name"] for t in listed) == ["birds", "cats", "dogs"]
    assert [t["id"] for t in listed] == sorted((t["id"] for t in listed), key=int, reverse=True)
    for tag in listed:
        entity("AdminTag", tag)
        assert (tag["trendable"], tag["usable"], tag["listable"], tag["requires_review"]) == \
            (False, True, True, True)
        assert tag["url"] == f"http://localhost:8000/tags/{tag['name']}"
        assert tag["following"] is False and tag["featuring"] is False
    first = _tags(client, staff, limit=1)
    assert [t["id"] for t in first.json()] == [listed[0]["id"]]
    assert f"max_id={listed[0]['id']}" in first.headers["link"]
    rest = _tags(client, staff, max_id=listed[0]["id"]).json()
    assert [t["id"] for t in rest] == [t["id"] for t in listed[1:]]
    newer = _tags(client, staff, min_id=listed[-1]["id"]).json()
    assert [t["id"] for t in newer] == [t["id"] for t in listed[:-1]]


def test_one_tag_by_id(client, people, staff):
    _, headers = people
    post(client, headers["alice"], status="#cats")
    (tag,) = _tags(client, staff).json()
    shown = client.get(f"/api/v1/admin/tags/{tag['id']}", headers=staff)
    assert shown.status_code == 200 and shown.json() == tag
    for unknown in ("1", "cats", "99999999999999999999999"):
        missing = client.get(f"/api/v1/admin/tags/{unknown}", headers=staff)
        assert missing.status_code == 404
        assert missing.json() == {"error": "Record not found"}


def test_display_name_is_another_spelling_of_the_same_name(client, people, staff):
    _, headers = people
    post(client, headers["alice"], status="#cats")
    (tag,) = _tags(client, staff).json()
    path = f"/api/v1/admin/tags/{tag['id']}"
    changed = client.put(path, headers=staff, json={"display_name": "CaTs"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["name"] == "CaTs" and changed.json()["requires_review"] is False
    refused = client.put(path, headers=staff, json={"display_name": "dogs"})
    assert refused.status_code == 422
    assert refused.json()["details"] == {"display_name": [
        {"error": "ERR_DOES_NOT_MATCH_PREVIOUS_NAME",
         "description": "does not match the previous name"}]}
    assert client.patch(path, headers=staff, json={"display_name": ""}).json()["name"] == "cats"


def test_an_unusable_tag_cannot_be_posted_scheduled_or_edited_in(client, people, staff):
    _, headers = people
    kept = post(client, headers["alice"], status="#cats are fine")
    (tag,) = _tags(client, staff).json()
    assert client.put(f"/api/v1/admin/tags/{tag['id']}", headers=staff,
                      data={"usable": "false"}).json()["usable"] is False
    for body in ({"status": "#Cats again"},
                 {"status": "#cats later", "scheduled_at": "2100-01-01T00:00:00Z"}):
        refused = client.post("/api/v1/statuses", headers=headers["bob"], json=body)
        assert refused.status_code == 422
        assert refused.json()["error"] == \
            "Validation failed: Text contained a disallowed hashtag: cats"
    edited = client.put(f"/api/v1/statuses/{kept['id']}", headers=headers["alice"],
                        json={"status": "#cats, edited"})
    assert edited.status_code == 422
    post(client, headers["bob"], status="#dogs are fine")  # other tags are
    client.put(f"/api/v1/admin/tags/{tag['id']}", headers=staff, data={"usable": "true"})
    post(client, headers["bob"], status="#cats again")


def test_an_unlisted_tag_is_left_out_of_search(client, people, staff):
    _, headers = people
    post(client, headers["alice"], status="#catnip and #catapults")
    found = client.get("/api/v2/search", headers=headers["bob"],
                              params={"q": "#cat", "type": "hashtags"}).json()["hashtags"]
    assert sorted(t["name"] for t in found) == ["catapults", "catnip"]
    catnip = next(t for t in _tags(client, staff).json() if t["name"] == "catnip")
    assert client.put(f"/api/v1/admin/tags/{catnip['id']}", headers=staff,
                      json={"listable": False}).json()["listable"] is False
    found = client.get("/api/v2/search", headers=headers["bob"],
                       params={"q": "#cat", "type": "hashtags"}).json()["hashtags"]
    assert [t["name"] for t in found] == ["catapults"]


def test_trendable_is_the_trends_decision(client, people, staff):
    _, headers = people
    post(client, headers["alice"], status="#rising")
    (tag,) = _tags(client, staff).json()
    allowed = client.put(f"/api/v1/admin/tags/{tag['id']}", headers=staff,
                         json={"trendable": True})
    assert allowed.json()["trendable"] is True
    from stratus.read import trends
    from stratus.repo import trends as trends_repo

    assert trends.allowed(trends_repo.record("tags", tag["id"])) is True


def test_staff_without_the_permission_are_refused(client, people):
    _, headers = people
    app = make_app(client, scopes="read write admin:read admin:write")
    plain = auth(user_token(app, make_user("pat"), scopes=("admin:read", "admin:write")))
    for method in ("GET", "PUT"):
        path = "/api/v1/admin/tags" if method == "GET" else "/api/v1/admin/tags/1"
        response = client.request(method, path, headers=plain)
        assert response.status_code == 403

