"""Routes of Mastodon 4.3–4.6 a client reaches for: the health check, OpenID Connect's UserInfo,
the peer search, the domain block preview and donation campaigns."""

from __future__ import annotations

import pytest
from stratus.read import settings as settings_service

from tests.rig import (
    auth,
    follow_edge,
    make_app,
    make_remote_account,
    make_user,
    staff_headers,
    user_token,
)


def test_health(client):
    response = client.get("/health")
    assert response.status_code == 200
    assert response.text == "OK"
    assert response.headers["content-type"].startswith("text/plain")


def test_userinfo_of_a_profile_token(client):
    app = make_app(client, scopes="read profile")
    alice = make_user("alice")
    client.patch("/api/v1/accounts/update_credentials",
                 headers=auth(user_token(app, alice, scopes=("read", "write"))),
                 data={"display_name": "Alice A."})
    token = auth(user_token(app, alice, scopes=("profile",)))
    for method in ("GET", "POST"):  # OpenID Connect allows both
        response = client.request(method, "/oauth/userinfo", headers=token)
        assert response.status_code == 200, response.text
        assert response.json() == {
            "iss": "http://localhost:8000/", "sub": "http://localhost:8000/users/alice",
            "name": "Alice A.", "preferred_username": "alice",
            "profile": "http://localhost:8000/@alice",
            "picture": "http://localhost:8000/avatars/original/missing.png"}
    metadata = client.get("/.well-known/oauth-authorization-server").json()
    assert metadata["userinfo_endpoint"] == "http://localhost:8000/oauth/userinfo"


def test_userinfo_needs_the_profile_scope_and_a_user(client):
    app = make_app(client, scopes="read profile")
    read_only = auth(user_token(app, make_user("alice"), scopes=("read",)))
    refused = client.get("/oauth/userinfo", headers=read_only)
    assert refused.status_code == 403
    assert refused.json() == {"error": "This action is outside the authorized scopes"}
    assert client.get("/oauth/userinfo").status_code == 401
    app_only = client.post("/oauth/token", data={
        "grant_type": "client_credentials", "client_id": app.client_id,
        "client_secret": app.client_secret, "scope": "profile"}).json()["access_token"]
    no_user = client.get("/oauth/userinfo", headers=auth(app_only))
    assert no_user.status_code == 422
    assert no_user.json() == {"error": "This method requires an authenticated user"}


def test_peer_search(client):
    for domain in ("mastodon.social", "mastodon.online", "masto.host", "pixelfed.social",
                   "mastodon.evil"):
        make_remote_account(domain, "someone")
    staff = staff_headers(client)
    blocked = client.post("/api/v1/admin/domain_blocks", headers=staff,
                          data={"domain": "mastodon.evil", "severity": "noop"})
    assert blocked.status_code == 200, blocked.text
    found = client.get("/api/v1/peers/search", params={"q": "Mastodon"})
    assert found.status_code == 200
    assert found.json() == ["mastodon.online", "mastodon.social"]  # moderated ones left out
    assert client.get("/api/v1/peers/search", params={"q": "masto"}).json() == \
        ["masto.host", "mastodon.online", "mastodon.social"]
    assert client.get("/api/v1/peers/search", params={"q": "nothing"}).json() == []
    assert client.get("/api/v1/peers/search", params={"q": "no such thing!"}).json() == []
    no_q = client.get("/api/v1/peers/search")
    assert no_q.status_code == 200 and no_q.text == "null"  # Mastodon's `render json: nil`
    assert "mastodon.evil" not in client.get("/api/v1/instance/peers").json()


def test_peer_search_follows_the_peers_setting(client):
    make_remote_account("mastodon.social", "someone")
    settings_service.set_value("peers_api_enabled", "false")
    assert client.get("/api/v1/peers/search", params={"q": "mast"}).status_code == 404
    settings_service.set_value("peers_api_enabled", "true")
    settings_service.set_value("limited_federation_mode", "true")
    assert client.get("/api/v1/peers/search", params={"q": "mast"}).status_code == 404


def test_peer_search_takes_at_most_ten(client):
    for n in range(12):
        make_remote_account(f"server{n:02}.example", "someone")
    assert len(client.get("/api/v1/peers/search", params={"q": "server"}).json()) == 10


def test_domain_block_preview(client, people):
    ids_, headers = people
    alice = ids_["alice"]
    far = [make_remote_account("far.example", name) for name in ("one", "two", "three")]
    other = make_remote_account("elsewhere.example", "four")
    follow_edge(alice, far[0])
    follow_edge(alice, far[1])
    follow_edge(alice, other)
    follow_edge(alice, ids_["bob"])
    follow_edge(far[2], alice)
    response = client.get("/api/v1/domain_blocks/preview", headers=headers["alice"],
                          params={"domain": "FAR.example"})
    assert response.status_code == 200, response.text
    assert response.json() == {"following_count": 2, "followers_count": 1}
    assert client.get("/api/v1/domain_blocks/preview", headers=headers["bob"],
                      params={"domain": "far.example"}).json() == \
        {"following_count": 0, "followers_count": 0}


@pytest.mark.parametrize("domain", [None, "", "not a domain"])
def test_domain_block_preview_of_no_domain_is_422(client, people, domain):
    _, headers = people
    response = client.get("/api/v1/domain_blocks/preview", headers=headers["alice"],
                          params={} if domain is None else {"domain": domain})
    assert response.status_code == 422
    assert response.json()["error"].startswith("Validation failed: Domain")


def test_domain_block_preview_needs_a_blocks_scope(client):
    app = make_app(client)
    token = auth(user_token(app, make_user("alice"), scopes=("read",)))
    response = client.get("/api/v1/domain_blocks/preview", headers=token,
                          params={"domain": "far.example"})
    assert response.status_code == 403


def test_donation_campaigns_as_a_server_without_campaigns(client, people):
    _, headers = people
    response = client.get("/api/v1/donation_campaigns", headers=headers["alice"])
    assert response.status_code == 204
    assert response.content == b""
    assert client.get("/api/v1/donation_campaigns").status_code == 401


def _liked(client, headers, drain, times: int) -> list[str]:
    """bob likes `times` of alice's statuses: alice's notification ids, newest first."""
    for n in range(times):
        status = client.post("/api/v1/statuses", headers=headers["alice"],
                             json={"status": f"post {n}"}).json()
        client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=headers["bob"])
    drain()
    return [n["id"] for n in client.get("/api/v1/notifications",
                                        headers=headers["alice"]).json()]


def test_notifications_delete_as_dismiss(client, people, drain):
    _, headers = people
    first, second, third = _liked(client, headers, drain, 3)
    assert client.delete(f"/api/v1/notifications/{first}", headers=headers["bob"]).status_code \
        == 404  # someone else's
    assert client.delete(f"/api/v1/notifications/{first}",
                         headers=headers["alice"]).json() == {}
    gone = client.request("DELETE", "/api/v1/notifications/destroy_multiple",
                          headers=headers["alice"],
                          params=[("ids[]", second), ("ids[]", "999"), ("ids[]", "x")])
    assert gone.status_code == 200 and gone.json() == {}
    assert [n["id"] for n in client.get("/api/v1/notifications",
                                        headers=headers["alice"]).json()] == [third]


def test_grouped_notifications_clear(client, people, drain):
    _, headers = people
    _liked(client, headers, drain, 2)
    response = client.post("/api/v2/notifications/clear", headers=headers["alice"])
    assert response.status_code == 200 and response.json() == {}
    assert client.get("/api/v1/notifications", headers=headers["alice"]).json() == []
    drain()  # the groups' heads follow from the stream
    assert client.get("/api/v2/notifications", headers=headers["alice"]).json()[
        "notification_groups"] == []
