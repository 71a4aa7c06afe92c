"""Notifications, their policy and requests through the client API."""

from __future__ import annotations


def notes(client, headers, query="", status=200):
    response = client.get("/api/v1/notifications" + query, headers=headers)
    assert response.status_code == status, response.text
    return response.json()


def kinds(listed):
    return [n["type"] for n in listed]


def set_policy(client, headers, **values):
    response = client.patch("/api/v2/notifications/policy", headers=headers, data=values)
    assert response.status_code == 200, response.text
    return response.json()


def requests(client, headers, query=""):
    response = client.get("/api/v1/notifications/requests" + query, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()
