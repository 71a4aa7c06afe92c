"""Statuses through the client API: posting, favouriting, featured tags."""

from __future__ import annotations


def post(client, headers, **data):
    response = client.post("/api/v1/statuses", headers=headers, data=data)
    assert response.status_code == 200, response.text
    return response.json()


def post_status(client, headers: dict[str, str], text: str, visibility: str = "public") -> dict:
    response = client.post("/api/v1/statuses", headers=headers,
                           data={"status": text, "visibility": visibility})
    assert response.status_code == 200, response.text
    return response.json()


def favourite(client, headers, status_id):
    response = client.post(f"/api/v1/statuses/{status_id}/favourite", headers=headers)
    assert response.status_code == 200, response.text


def feature(client, headers, name):
    return client.post("/api/v1/featured_tags", headers=headers, data={"name": name})
