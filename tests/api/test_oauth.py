"""OAuth 2.0: every grant, revocation, discovery, and the authorization-code pages with PKCE."""

from __future__ import annotations

import base64
import html
import re
import time
from urllib.parse import parse_qs, urlencode, urlsplit

from stratus.auth.tokens import digest
from stratus.repo import base, keys

from tests.rig import app_token, auth, make_app, make_user, pkce_pair

PASSWORD = "correct horse battery"


def token(client, **data):
    return client.post("/oauth/token", data=data)


def test_client_credentials(client, entity):
    app = make_app(client, scopes="read write")
    response = token(client, grant_type="client_credentials", client_id=app.client_id,
                     client_secret=app.client_secret)
    assert response.status_code == 200, response.text
    body = response.json()
    entity("Token", body)
    assert body["token_type"] == "Bearer" and body["scope"] == "read"
    assert "expires_in" not in body and "refresh_token" not in body
    assert isinstance(body["created_at"], int)
    assert response.headers["cache-control"] == "private, no-store"
    # Tokens and secrets are stored only as hashes.
    assert base.get(keys.token(digest(body["access_token"]))).get("account_id") is None
    assert "client_secret" not in app.item and app.item["secret_hash"] == digest(app.client_secret)


def test_client_authentication(client):
    app = make_app(client)
    bad = token(client, grant_type="client_credentials", client_id=app.client_id,
                client_secret="wrong")
    assert bad.status_code == 401 and bad.json()["error"] == "invalid_client"
    assert "error_description" in bad.json()
    basic = base64.b64encode(f"{app.client_id}:{app.client_secret}".encode()).decode()
    ok = client.post("/oauth/token", data={"grant_type": "client_credentials"},
                     headers={"Authorization": f"Basic {basic}"})
    assert ok.status_code == 200
    as_json = client.post("/oauth/token", json={"grant_type": "client_credentials",
                                                "client_id": app.client_id,
                                                "client_secret": app.client_secret})
    assert as_json.status_code == 200


def test_scope_must_be_within_the_apps(client):
    app = make_app(client, scopes="read")
    response = token(client, grant_type="client_credentials", client_id=app.client_id,
                     client_secret=app.client_secret, scope="write")
    assert response.status_code == 400 and response.json()["error"] == "invalid_scope"
    granular = token(client, grant_type="client_credentials", client_id=app.client_id,
                     client_secret=app.client_secret, scope="read:accounts")
    assert granular.status_code == 200 and granular.json()["scope"] == "read:accounts"


def test_password_grant_uses_the_email(client):
    app = make_app(client)
    make_user("alice", "Alice@Example.org")
    ok = token(client, grant_type="password", client_id=app.client_id,
               client_secret=app.client_secret, username="alice@example.org",
               password=PASSWORD, scope="read write")
    assert ok.status_code == 200, ok.text
    assert ok.json()["scope"] == "read write" and ok.json()["refresh_token"]
    me = client.get("/api/v1/accounts/verify_credentials", headers=auth(ok.json()["access_token"]))
    assert me.json()["username"] == "alice"
    wrong = token(client, grant_type="password", client_id=app.client_id,
                  client_secret=app.client_secret, username="alice@example.org", password="x")
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    make_user("bob", confirmed=False)
    unconfirmed = token(client, grant_type="password", client_id=app.client_id,
                        client_secret=app.client_secret, username="bob@example.org",
                        password=PASSWORD)
    assert unconfirmed.status_code == 400 and unconfirmed.json()["error"] == "invalid_grant"


def test_refresh_token_rotates(client):
    app = make_app(client)
    make_user()
    first = token(client, grant_type="password", client_id=app.client_id,
                  client_secret=app.client_secret, username="alice@example.org",
                  password=PASSWORD).json()
    second = token(client, grant_type="refresh_token", client_id=app.client_id,
                   client_secret=app.client_secret, refresh_token=first["refresh_token"])
    assert second.status_code == 200, second.text
    new = second.json()
    assert new["access_token"] != first["access_token"] and new["scope"] == first["scope"]
    old_use = client.get("/api/v1/accounts/verify_credentials", headers=auth(first["access_token"]))
    assert old_use.status_code == 401
    assert client.get("/api/v1/accounts/verify_credentials",
                      headers=auth(new["access_token"])).status_code == 200
    again = token(client, grant_type="refresh_token", client_id=app.client_id,
                  client_secret=app.client_secret, refresh_token=first["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_unknown_grant(client):
    app = make_app(client)
    response = token(client, grant_type="magic", client_id=app.client_id,
                     client_secret=app.client_secret)
    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"


def test_revoke(client):
    app, other = make_app(client), make_app(client)
    raw = app_token(client, app)
    foreign = client.post("/oauth/revoke", data={"client_id": other.client_id,
                                                 "client_secret": other.client_secret,
                                                 "token": raw})
    assert foreign.status_code == 403 and foreign.json()["error"] == "unauthorized_client"
    response = client.post("/oauth/revoke", data={"client_id": app.client_id,
                                                  "client_secret": app.client_secret,
                                                  "token": raw})
    assert response.status_code == 200 and response.json() == {}
    assert client.get("/api/v1/apps/verify_credentials", headers=auth(raw)).status_code == 401
    again = client.post("/oauth/revoke", data={"client_id": app.client_id,
                                               "client_secret": app.client_secret, "token": raw})
    assert again.status_code == 200
    unauthenticated = client.post("/oauth/revoke", data={"client_id": app.client_id,
                                                         "client_secret": "no", "token": raw})
    assert unauthenticated.status_code == 401


def test_discovery_document(client):
    body = client.get("/.well-known/oauth-authorization-server").json()
    assert body["issuer"] == "http://localhost:8000/"
    assert body["token_endpoint"] == "http://localhost:8000/oauth/token"
    assert set(body["grant_types_supported"]) == {"authorization_code", "client_credentials",
                                                  "password", "refresh_token"}
    assert "S256" in body["code_challenge_methods_supported"]
    assert "read:statuses" in body["scopes_supported"]
    assert body["app_registration_endpoint"] == "http://localhost:8000/api/v1/apps"


# --- the authorization code flow through the HTML pages --------------------------------------
def _csrf(html: str) -> str:
    return re.search(r'name="authenticity_token" value="([^"]+)"', html).group(1)


def _hidden(page: str) -> dict[str, str]:
    """The hidden fields a browser would submit (attribute values unescaped)."""
    return {name: html.unescape(value) for name, value in
            re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}


def authorize(client, app, *, redirect_uri, pkce=None, state="xyz", scope="read write",
              decision="approve", force_login=False):
    params = {"response_type": "code", "client_id": app.client_id, "redirect_uri": redirect_uri,
              "scope": scope, "state": state}
    if pkce:
        params.update(code_challenge=pkce, code_challenge_method="S256")
    if force_login:
        params["force_login"] = "true"
    page = client.get("/oauth/authorize?" + urlencode(params))
    assert page.status_code == 200, page.text
    if 'action="/auth/sign_in"' in page.text:
        hidden = _hidden(page.text)
        signed = client.post("/auth/sign_in", data={**hidden, "email": "alice@example.org",
                                                    "password": PASSWORD},
                             follow_redirects=False)
        assert signed.status_code == 303, signed.text
        page = client.get(signed.headers["location"])
    assert "Authorize Test client?" in page.text
    form = _hidden(page.text)
    return client.post("/oauth/authorize", data={**form, "decision": decision},
                       follow_redirects=False)


def test_authorization_code_with_pkce(client):
    app = make_app(client, redirect_uris="https://app.example/callback")
    make_user()
    verifier, challenge = pkce_pair()
    page = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id, "scope": "read",
        "redirect_uri": "https://app.example/callback"}))
    assert 'type="password"' in page.text and "<label" in page.text
    cookie = page.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    redirect = authorize(client, app, redirect_uri="https://app.example/callback", pkce=challenge)
    assert redirect.status_code == 302
    location = urlsplit(redirect.headers["location"])
    assert location.netloc == "app.example" and location.path == "/callback"
    query = parse_qs(location.query)
    assert query["state"] == ["xyz"]
    code = query["code"][0]
    exchange = dict(grant_type="authorization_code", code=code, client_id=app.client_id,
                    client_secret=app.client_secret, redirect_uri="https://app.example/callback")
    wrong = token(client, **exchange, code_verifier="not-the-verifier-" + "x" * 30)
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    ok = token(client, **exchange, code_verifier=verifier)
    assert ok.status_code == 200, ok.text
    assert ok.json()["scope"] == "read write"
    me = client.get("/api/v1/accounts/verify_credentials", headers=auth(ok.json()["access_token"]))
    assert me.status_code == 200 and me.json()["username"] == "alice"
    reused = token(client, **exchange, code_verifier=verifier)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"


def test_plain_pkce(client):
    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    params = {"response_type": "code", "client_id": app.client_id, "scope": "read",
              "redirect_uri": "https://app.example/cb", "code_challenge": "v" * 50,
              "code_challenge_method": "plain"}
    page = client.get("/oauth/authorize?" + urlencode(params))
    signed = client.post("/auth/sign_in", data={**_hidden(page.text), "email": "alice@example.org",
                                                "password": PASSWORD}, follow_redirects=False)
    consent = client.get(signed.headers["location"])
    redirect = client.post("/oauth/authorize", data={**_hidden(consent.text), "decision": "approve"},
                           follow_redirects=False)
    code = parse_qs(urlsplit(redirect.headers["location"]).query)["code"][0]
    exchange = dict(grant_type="authorization_code", code=code, client_id=app.client_id,
                    client_secret=app.client_secret, redirect_uri="https://app.example/cb")
    assert token(client, **exchange, code_verifier="x" * 50).status_code == 400
    assert token(client, **exchange, code_verifier="v" * 50).status_code == 200


def test_disabled_users_cannot_sign_in(client):
    from stratus.api.accounts import operator

    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    operator.operator_modify("alice", disable=True)
    page = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id,
        "redirect_uri": "https://app.example/cb"}))
    refused = client.post("/auth/sign_in", data={**_hidden(page.text),
                                                 "email": "alice@example.org",
                                                 "password": PASSWORD})
    assert refused.status_code == 422 and "Your account is disabled." in refused.text
    password = token(client, grant_type="password", client_id=app.client_id,
                     client_secret=app.client_secret, username="alice@example.org",
                     password=PASSWORD)
    assert password.status_code == 400 and password.json()["error"] == "invalid_grant"


def test_expired_code_is_refused(client):
    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    redirect = authorize(client, app, redirect_uri="https://app.example/cb")
    code = parse_qs(urlsplit(redirect.headers["location"]).query)["code"][0]
    base.update(keys.authorization_code(digest(code)), "SET #t = :past",
                names={"#t": "ttl"}, vals={":past": int(time.time()) - 1})
    response = token(client, grant_type="authorization_code", code=code,
                     client_id=app.client_id, client_secret=app.client_secret,
                     redirect_uri="https://app.example/cb")
    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"


def test_out_of_band_shows_the_code(client):
    app = make_app(client)
    make_user()
    page = authorize(client, app, redirect_uri="urn:ietf:wg:oauth:2.0:oob")
    assert page.status_code == 200
    code = re.search(r'<code class="oob" id="code">([^<]+)</code>', page.text).group(1)
    response = token(client, grant_type="authorization_code", code=code, client_id=app.client_id,
                     client_secret=app.client_secret, redirect_uri="urn:ietf:wg:oauth:2.0:oob")
    assert response.status_code == 200


def test_deny_redirects_with_access_denied(client):
    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    response = authorize(client, app, redirect_uri="https://app.example/cb", decision="deny")
    assert response.status_code == 302
    query = parse_qs(urlsplit(response.headers["location"]).query)
    assert query["error"] == ["access_denied"] and query["state"] == ["xyz"]


def test_bad_requests_and_csrf(client):
    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    unknown = client.get("/oauth/authorize?response_type=code&client_id=nope&redirect_uri=x")
    assert unknown.status_code == 400 and "Authorization failed" in unknown.text
    mismatch = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id,
        "redirect_uri": "https://evil.example/cb"}))
    assert mismatch.status_code == 400
    bad_scope = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id,
        "redirect_uri": "https://app.example/cb", "scope": "admin:write", "state": "s"}),
        follow_redirects=False)
    assert bad_scope.status_code == 302
    assert parse_qs(urlsplit(bad_scope.headers["location"]).query)["error"] == ["invalid_scope"]
    forged = client.post("/auth/sign_in", data={"email": "alice@example.org",
                                                "password": PASSWORD,
                                                "authenticity_token": "forged"})
    assert forged.status_code == 422
    page = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id,
        "redirect_uri": "https://app.example/cb"}))
    wrong = client.post("/auth/sign_in", data={**_hidden(page.text), "email": "alice@example.org",
                                               "password": "wrong password"})
    assert wrong.status_code == 422 and "Invalid e-mail address or password." in wrong.text


def test_force_login_asks_again(client):
    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    authorize(client, app, redirect_uri="https://app.example/cb")
    again = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id,
        "redirect_uri": "https://app.example/cb"}))
    assert "Authorize Test client?" in again.text  # still signed in
    forced = client.get("/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": app.client_id,
        "redirect_uri": "https://app.example/cb", "force_login": "true"}))
    assert 'action="/auth/sign_in"' in forced.text


def test_a_stored_script_redirect_uri_is_never_followed(client):
    """Defence in depth: an app stored before redirect URIs were checked (or written around the
    API) cannot send a browser to `javascript:` — not on consent, denial or an error."""
    app = make_app(client, redirect_uris="https://app.example/cb")
    make_user()
    evil = "javascript:alert(document.cookie)//"
    base.update(keys.app(app.client_id), "SET redirect_uris = :u",
                vals={":u": ["https://app.example/cb", evil]})
    params = {"response_type": "code", "client_id": app.client_id, "redirect_uri": evil,
              "scope": "read", "state": "s"}
    page = client.get("/oauth/authorize?" + urlencode(params), follow_redirects=False)
    assert page.status_code == 400 and "location" not in page.headers
    bad_scope = client.get("/oauth/authorize?" + urlencode({**params, "scope": "admin:write"}),
                           follow_redirects=False)
    assert bad_scope.status_code == 400 and "location" not in bad_scope.headers
    # A consent form posted with that URI (as a forged or replayed form would) is refused too.
    signed_in = authorize(client, app, redirect_uri="https://app.example/cb", decision="deny")
    assert signed_in.headers["location"].startswith("https://app.example/cb?")
    consent = client.get("/oauth/authorize?" + urlencode({**params,
                                                          "redirect_uri": "https://app.example/cb"}))
    for decision in ("deny", "approve"):
        form = {**_hidden(consent.text), "redirect_uri": evil, "decision": decision}
        response = client.post("/oauth/authorize", data=form, follow_redirects=False)
        assert response.status_code == 400 and "location" not in response.headers


def test_confirmation_never_redirects_to_a_script_uri(client):
    from stratus.api.accounts import accounts
    from stratus.auth import confirmation

    app = make_app(client, redirect_uris="https://app.example/welcome")
    base.update(keys.app(app.client_id), "SET redirect_uris = :u",
                vals={":u": ["javascript:alert(1)"]})
    account_id = make_user("erin", confirmed=False)
    user = accounts.repo.get_user(account_id)
    base.update(keys.account_user(account_id), "SET created_by_client_id = :c",
                vals={":c": app.client_id})
    token = confirmation.confirmation_token(account_id, user["confirmation_nonce"])
    response = client.get(f"/auth/confirmation?confirmation_token={token}",
                          follow_redirects=False)
    assert response.status_code == 200 and "location" not in response.headers
