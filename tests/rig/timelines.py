"""Timelines and filters through the client API; the `active` and `discoverable` fixtures."""

from __future__ import annotations

import pytest


def home(client, headers, **params) -> list[str]:
    response = client.get("/api/v1/timelines/home", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return [s["id"] for s in response.json()]


def make_filter(client, headers, **fields) -> dict:
    body = {"title": "cats", "context": ["home", "public"],
            "keywords_attributes": [{"keyword": "cat", "whole_word": False}], **fields}
    response = client.post("/api/v2/filters", headers=headers, json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def active(client, people, drain):
    """Everyone has read their home once (an active feed), the first read answering 206 while
    it is built."""
    ids_, tokens = people
    for name, headers in tokens.items():
        first = client.get("/api/v1/timelines/home", headers=headers)
        assert first.status_code == 206
        assert first.headers["mastodon-async-refresh"] == f'id="home-{ids_[name]}", retry=3'
    drain()
    for headers in tokens.values():
        assert client.get("/api/v1/timelines/home", headers=headers).status_code == 200
    return ids_, tokens


@pytest.fixture
def discoverable(client, people):
    """Everyone opted into discovery (Mastodon's LinkFeed lists only their statuses)."""
    ids_, tokens = people
    for headers in tokens.values():
        response = client.patch("/api/v1/accounts/update_credentials", headers=headers,
                                data={"discoverable": "true"})
        assert response.status_code == 200, response.text
    return ids_, tokens
