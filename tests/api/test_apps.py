"""POST /api/v1/apps and GET /api/v1/apps/verify_credentials."""

from __future__ import annotations

import pytest

from tests.rig import app_token, auth, make_app, make_user, user_token


def test_create_app_form_and_json(client, entity):
    form = client.post("/api/v1/apps", data={"client_name": "Form app",
                                             "redirect_uris": "urn:ietf:wg:oauth:2.0:oob",
                                             "scopes": "read write:statuses",
                                             "website": "https://app.example"})
    assert form.status_code == 200, form.text
    body = form.json()
    entity("CredentialApplication", body)
    assert body["name"] == "Form app" and body["website"] == "https://app.example"
    assert body["scopes"] == ["read", "write:statuses"]
    assert body["redirect_uri"] == "urn:ietf:wg:oauth:2.0:oob"
    assert body["redirect_uris"] == ["urn:ietf:wg:oauth:2.0:oob"]
    assert body["client_secret_expires_at"] == 0
    assert body["vapid_key"] == client.get("/api/v2/instance").json()["configuration"]["vapid"]["public_key"]
    as_json = client.post("/api/v1/apps", json={
        "client_name": "Json app", "redirect_uris": ["https://a.example/cb", "myapp://cb"]})
    assert as_json.status_code == 200
    assert as_json.json()["scopes"] == ["read"]  # Mastodon's default
    assert as_json.json()["redirect_uri"] == "https://a.example/cb\nmyapp://cb"


@pytest.mark.parametrize("payload, field, code", [
    ({"redirect_uris": "urn:ietf:wg:oauth:2.0:oob"}, "name", "ERR_BLANK"),
    ({"client_name": "x" * 61, "redirect_uris": "urn:ietf:wg:oauth:2.0:oob"}, "name", "ERR_TOO_LONG"),
    ({"client_name": "x", "redirect_uris": "not a uri"}, "redirect_uri", "ERR_INVALID"),
    ({"client_name": "x", "redirect_uris": "https://a.example/" + "p" * 2000}, "redirect_uri", "ERR_TOO_LONG"),
    ({"client_name": "x"}, "redirect_uri", "ERR_BLANK"),
    ({"client_name": "x", "redirect_uris": "urn:ietf:wg:oauth:2.0:oob", "scopes": "read fly"}, "scopes", "ERR_INVALID"),
    ({"client_name": "x", "redirect_uris": "urn:ietf:wg:oauth:2.0:oob", "website": "ftp:/nope"}, "website", "ERR_INVALID"),
])
def test_invalid_apps_are_422(client, payload, field, code):
    response = client.post("/api/v1/apps", data=payload)
    assert response.status_code == 422
    body = response.json()
    assert body["error"].startswith("Validation failed: ")
    assert body["details"][field][0]["error"] == code


def test_verify_credentials_with_app_and_user_tokens(client, entity):
    app = make_app(client)
    for token in (app_token(client, app), user_token(app, make_user())):
        response = client.get("/api/v1/apps/verify_credentials", headers=auth(token))
        assert response.status_code == 200
        entity("Application", response.json())
        assert response.json()["name"] == "Test client"
        assert "client_secret" not in response.json()
    assert client.get("/api/v1/apps/verify_credentials").status_code == 401
    bad = client.get("/api/v1/apps/verify_credentials", headers=auth("nope"))
    assert bad.status_code == 401 and bad.json() == {"error": "The access token is invalid"}


@pytest.mark.parametrize("uri, message", [
    ("javascript:alert(document.domain)", "is forbidden by the server."),
    ("JavaScript://example.com/%0Aalert(1)", "is forbidden by the server."),
    ("vbscript:msgbox(1)", "is forbidden by the server."),
    ("data:text/html,<script>alert(1)</script>", "is forbidden by the server."),
    ("file:///etc/passwd", "is forbidden by the server."),
    ("\x01javascript:alert(1)", "must be a valid URI."),
    ("https://app.example/cb#token", "cannot contain a fragment."),
    ("com.example.app:callback", "must specify a scheme."),
    ("//app.example/cb", "must be an absolute URI."),
    ("https:///cb", "must be an absolute URI."),
    ("http://[::1/cb", "must be a valid URI."),
])
def test_dangerous_redirect_uris_are_refused(client, uri, message):
    """Doorkeeper's checks with Mastodon's `forbid_redirect_uri` (plus `file:`): a redirect URI
    that a browser would run as script, or that is not a real absolute URI, is never stored."""
    for payload in ({"client_name": "x", "redirect_uris": uri},
                    {"client_name": "x", "redirect_uris": ["https://ok.example/cb", uri]}):
        response = client.post("/api/v1/apps", json=payload)
        assert response.status_code == 422, response.text
        body = response.json()
        assert message in body["error"] and body["error"].startswith("Validation failed: Redirect URI ")
        assert body["details"]["redirect_uri"][0]["error"] == "ERR_INVALID"


def test_native_and_web_redirect_uris_are_accepted(client):
    uris = ["urn:ietf:wg:oauth:2.0:oob", "https://app.example/cb?x=1", "http://localhost:4000/cb",
            "com.example.app:/callback", "toot://callback", "mastodon.app-1+x://oauth"]
    response = client.post("/api/v1/apps", data={"client_name": "Native",
                                                  "redirect_uris": "\n".join(uris[:3]) + "  "
                                                  + " ".join(uris[3:])})
    assert response.status_code == 200, response.text
    assert response.json()["redirect_uris"] == uris  # split on any whitespace, as Mastodon does
