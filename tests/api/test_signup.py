"""Sign-up: registration modes, validation, uniqueness under races, rate limits, confirmation."""

from __future__ import annotations

import contextlib
import re
import threading
from email import message_from_bytes
from email.policy import default

import pytest
from stratus.read import settings as settings_service

from tests.rig import app_token, auth, make_app, make_user, user_token

GOOD = {"username": "carol", "email": "carol@example.org", "password": "a good password",
        "agreement": "true", "locale": "en"}


def sign_up(client, token, **overrides):
    return client.post("/api/v1/accounts", data={**GOOD, **overrides}, headers=auth(token))


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write follow", redirect_uris="https://app.example/welcome")


@pytest.fixture
def token(client, app):
    return app_token(client, app, scope="read write")


def confirmation_link(runtime, drain) -> str:
    drain()
    files = runtime.mailbox.collect()
    assert files, "no confirmation mail was sent"
    message = message_from_bytes(files[-1].read_bytes(), policy=default)
    body = message.get_body(("plain",)).get_content()
    return re.search(r"(http://\S+/auth/confirmation\?confirmation_token=\S+)", body).group(1)


def test_sign_up_confirm_and_use(client, runtime, drain, app, token, entity):
    response = sign_up(client, token)
    assert response.status_code == 200, response.text
    body = response.json()
    entity("Token", body)
    assert body["scope"] == "read write follow"  # the app's scopes
    assert response.headers["x-ratelimit-limit"] == "5"
    user = auth(body["access_token"])
    blocked = client.get("/api/v1/accounts/verify_credentials", headers=user)
    assert blocked.status_code == 403
    assert blocked.json() == {"error": "Your login is missing a confirmed e-mail address"}
    assert client.get("/api/v1/emails/check_confirmation", headers=user).json() is False
    link = confirmation_link(runtime, drain)
    followed = client.get(link.removeprefix("http://localhost:8000"), follow_redirects=False)
    assert followed.status_code == 302
    assert followed.headers["location"] == "https://app.example/welcome"
    me = client.get("/api/v1/accounts/verify_credentials", headers=user)
    assert me.status_code == 200 and me.json()["username"] == "carol"
    assert client.get("/api/v1/emails/check_confirmation", headers=user).json() is True
    again = client.get(link.removeprefix("http://localhost:8000"))
    assert again.status_code == 404 and "invalid" in again.text


def test_resend_confirmation(client, runtime, drain, app, token):
    body = sign_up(client, token).json()
    user = auth(body["access_token"])
    confirmation_link(runtime, drain)
    response = client.post("/api/v1/emails/confirmations", data={"email": "carol@new.example"},
                           headers=user)
    assert response.status_code == 200 and response.json() == {}
    drain()
    files = runtime.mailbox.collect()
    message = message_from_bytes(files[-1].read_bytes(), policy=default)
    assert message["To"] == "carol@new.example"
    link = re.search(r"(/auth/confirmation\?confirmation_token=\S+)",
                     message.get_body(("plain",)).get_content()).group(1)
    assert client.get(link, follow_redirects=False).status_code == 302
    done = client.post("/api/v1/emails/confirmations", headers=user)
    assert done.status_code == 403
    assert done.json()["error"] == "This method is only available while the e-mail is awaiting confirmation"


def test_a_resent_mail_keeps_the_first_link_valid(client, runtime, drain, app, token):
    """Mastodon (Devise) resends the unexpired token: both mails carry a working link."""
    user = auth(sign_up(client, token).json()["access_token"])
    first = confirmation_link(runtime, drain)
    assert client.post("/api/v1/emails/confirmations", headers=user).status_code == 200
    second = confirmation_link(runtime, drain)
    assert second == first
    followed = client.get(first.removeprefix("http://localhost:8000"), follow_redirects=False)
    assert followed.status_code == 302
    assert client.get("/api/v1/emails/check_confirmation", headers=user).json() is True


def test_one_422_lists_every_failing_field(client, token):
    make_user("taken")
    response = sign_up(client, token, username="taken", email="bad", agreement="false")
    assert response.status_code == 422
    body = response.json()
    assert body["details"] == {
        "username": [{"error": "ERR_TAKEN", "description": "is already taken"}],
        "email": [{"error": "ERR_INVALID", "description": "is invalid"}],
        "agreement": [{"error": "ERR_ACCEPTED", "description": "must be accepted"}]}
    assert body["error"] == ("Validation failed: Username is already taken, Email is invalid, "
                             "Agreement must be accepted")


def test_resend_only_from_the_signing_up_app(client, app, token):
    assert sign_up(client, token).status_code == 200
    from stratus.api.accounts import accounts

    carol = accounts.repo.id_by_handle("carol")
    foreign = user_token(make_app(client), carol, scopes=("write",))
    response = client.post("/api/v1/emails/confirmations", headers=auth(foreign))
    assert response.status_code == 403
    assert response.json()["error"].startswith("This method is only available to the application")


def test_approval_mode_keeps_users_pending(client, runtime, drain, app, token):
    settings_service.set_value("registrations_mode", "approved")
    settings_service.set_value("require_invite_text", "true")
    missing_reason = sign_up(client, token)
    assert missing_reason.status_code == 422
    assert missing_reason.json()["details"]["reason"][0]["error"] == "ERR_BLANK"
    body = sign_up(client, token, reason="I like clouds").json()
    link = confirmation_link(runtime, drain)
    client.get(link.removeprefix("http://localhost:8000"))
    pending = client.get("/api/v1/accounts/verify_credentials", headers=auth(body["access_token"]))
    assert pending.status_code == 403
    assert pending.json() == {"error": "Your login is currently pending approval"}


def test_closed_registrations(client, token):
    settings_service.set_value("registrations_mode", "none")
    response = sign_up(client, token)
    assert response.status_code == 403 and response.json() == {"error": "This action is not allowed"}


def test_user_tokens_cannot_sign_up(client, app):
    carol_token = user_token(app, make_user("dave"), scopes=("write",))
    assert sign_up(client, carol_token).status_code == 403
    assert client.post("/api/v1/accounts", data=GOOD).status_code == 401
    read_only = app_token(client, app, scope="read")
    response = sign_up(client, read_only)
    assert response.status_code == 403
    assert response.json() == {"error": "This action is outside the authorized scopes"}


@pytest.mark.parametrize("overrides, field, code", [
    ({"username": ""}, "username", "ERR_BLANK"),
    ({"username": "no spaces"}, "username", "ERR_INVALID"),
    ({"username": "x" * 31}, "username", "ERR_TOO_LONG"),
    ({"username": "admin"}, "username", "ERR_RESERVED"),
    ({"email": "nope"}, "email", "ERR_INVALID"),
    ({"email": ""}, "email", "ERR_BLANK"),
    ({"password": "short"}, "password", "ERR_TOO_SHORT"),
    ({"password": "p" * 73}, "password", "ERR_TOO_LONG"),
    ({"agreement": "false"}, "agreement", "ERR_ACCEPTED"),
    ({"locale": "xx-YY"}, "locale", "ERR_INCLUSION"),
])
def test_validation_errors(client, token, overrides, field, code):
    response = sign_up(client, token, **overrides)
    assert response.status_code == 422
    body = response.json()
    assert body["error"].startswith("Validation failed:")
    assert body["details"][field][0]["error"] == code


def test_username_and_email_are_unique_case_insensitively(client, token):
    make_user("Carol", "someone@example.org")
    taken = sign_up(client, token, username="cArOl")
    assert taken.status_code == 422
    assert taken.json()["details"] == {"username": [{"error": "ERR_TAKEN",
                                                     "description": "is already taken"}]}
    email = sign_up(client, token, username="other", email="SOMEONE@example.org")
    assert email.json()["details"]["email"][0]["error"] == "ERR_TAKEN"


def test_concurrent_sign_ups_for_one_username(client, app):
    tokens = [app_token(client, app) for _ in range(4)]
    results: list[int] = []

    def attempt(index: int) -> None:
        response = client.post("/api/v1/accounts", headers=auth(tokens[index]), data={
            **GOOD, "username": "racer", "email": f"racer{index}@example.org"})
        results.append(response.status_code)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [200, 422, 422, 422]


def test_sixth_sign_up_from_one_address_is_429(client, token):
    for index in range(5):
        response = sign_up(client, token, username=f"user{index}", email=f"u{index}@example.org")
        assert response.status_code == 200
        assert response.headers["x-ratelimit-remaining"] == str(4 - index)
    sixth = sign_up(client, token, username="user6", email="u6@example.org")
    assert sixth.status_code == 429
    assert sixth.json() == {"error": "Too many requests"}
    assert sixth.headers["x-ratelimit-limit"] == "5"
    assert sixth.headers["x-ratelimit-remaining"] == "0"
    assert sixth.headers["x-ratelimit-reset"].endswith("Z")


def test_rate_limit_keys_ipv6_by_64(runtime):
    from stratus.core.errors import TooManyRequests
    from stratus.http import ratelimit

    assert ratelimit.ip_key("2001:db8:1:2:aaaa::1") == ratelimit.ip_key("2001:db8:1:2:bbbb::9")
    assert ratelimit.ip_key("2001:db8:1:3::1") != ratelimit.ip_key("2001:db8:1:2::1")
    assert ratelimit.ip_key("::ffff:192.0.2.1") == "192.0.2.1"
    now = 1_800_000_000.0
    for _ in range(5):
        ratelimit.check(ratelimit.SIGN_UP, ratelimit.ip_key("2001:db8::1"), now=now)
    with pytest.raises(TooManyRequests):
        ratelimit.check(ratelimit.SIGN_UP, ratelimit.ip_key("2001:db8::ffff"), now=now)
    # Fixed windows: the next window starts fresh.
    ratelimit.check(ratelimit.SIGN_UP, ratelimit.ip_key("2001:db8::1"), now=now + 1800)


@pytest.mark.parametrize("encoding", ["json", "multipart"])
def test_sign_up_accepts_every_body_format(client, token, encoding):
    data = {**GOOD, "username": f"fmt_{encoding}", "email": f"{encoding}@example.org"}
    if encoding == "json":
        response = client.post("/api/v1/accounts", json={**data, "agreement": True},
                               headers=auth(token))
    else:
        response = client.post("/api/v1/accounts", data=data, headers=auth(token),
                               files={"unused": ("x.txt", b"x", "text/plain")})
    assert response.status_code == 200, response.text
    assert response.json()["token_type"] == "Bearer"


# --- instant sign-ups (development and test stacks) ---------------------------------------
def test_instant_signups_are_off_by_default(runtime):
    assert settings_service.current()["instant_signups"] is False


def test_instant_signups_give_a_usable_token_at_once_without_the_limit(client, runtime, drain,
                                                                        token):
    settings_service.set_value("instant_signups", "true")
    for index in range(7):  # past the 5 per address a production stack allows
        response = sign_up(client, token, username=f"quick{index}",
                           email=f"quick{index}@example.org")
        assert response.status_code == 200, response.text
        assert "x-ratelimit-limit" not in response.headers
        user = auth(response.json()["access_token"])
        me = client.get("/api/v1/accounts/verify_credentials", headers=user)
        assert me.status_code == 200 and me.json()["username"] == f"quick{index}"
        assert client.get("/api/v1/emails/check_confirmation", headers=user).json() is True
    drain()
    assert runtime.mailbox.collect() == []  # nothing to confirm, so no mail


def test_instant_signups_still_wait_for_approval(client, token):
    settings_service.set_value("instant_signups", "true")
    settings_service.set_value("registrations_mode", "approved")
    body = sign_up(client, token, reason="testing").json()
    pending = client.get("/api/v1/accounts/verify_credentials", headers=auth(body["access_token"]))
    assert pending.status_code == 403
    assert pending.json() == {"error": "Your login is currently pending approval"}


@contextlib.contextmanager
def production_stack():
    """Run as a stack deployed with Environment=production (config is read lazily)."""
    from stratus.core import config

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STRATUS_ENVIRONMENT", "production")
        config.reset()
        try:
            yield
        finally:
            config.reset()
    config.reset()


def test_instant_signups_are_refused_and_ignored_in_production(client, runtime, token):
    from stratus.core.errors import Unprocessable

    settings_service.set_value("instant_signups", "true")  # stored while a test stack
    with production_stack():
        with pytest.raises(Unprocessable, match="only for development and test stacks"):
            settings_service.set_value("instant_signups", "true")
        assert settings_service.current()["instant_signups"] is False
        response = sign_up(client, token)
        assert response.headers["x-ratelimit-limit"] == "5"
        user = auth(response.json()["access_token"])
        blocked = client.get("/api/v1/accounts/verify_credentials", headers=user)
        assert blocked.status_code == 403
        assert blocked.json() == {"error": "Your login is missing a confirmed e-mail address"}
        assert settings_service.set_value("instant_signups", "false") is False  # turning off is fine


@pytest.mark.parametrize("value", ["", "staging", "Production"])
def test_an_unknown_environment_counts_as_production(runtime, monkeypatch, value):
    from stratus.core import config
    from stratus.core.errors import Unprocessable

    monkeypatch.setenv("STRATUS_ENVIRONMENT", value)
    config.reset()
    with pytest.raises(Unprocessable):
        settings_service.set_value("instant_signups", "on")
    monkeypatch.delenv("STRATUS_ENVIRONMENT")
    config.reset()
    with pytest.raises(Unprocessable):  # and so does none at all
        settings_service.set_value("instant_signups", "on")


def test_stratusctl_refuses_instant_signups_on_a_production_stack(runtime, monkeypatch, capsys):
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    with production_stack():
        assert cli.main(["settings", "set", "instant_signups", "true"]) == 1
        assert "instant_signups is only for development and test stacks" in capsys.readouterr().err
    assert cli.main(["settings", "set", "instant_signups", "true"]) == 0
    assert capsys.readouterr().out.strip() == "true"


def test_a_malformed_sign_up_details_every_field_as_mastodon(client, token):
    """masto.js's own test of a malformed registration, as JSON: each field's one error."""
    response = client.post("/api/v1/accounts", headers=auth(token), json={
        "username": "", "email": "", "password": "", "agreement": False, "locale": "hello"})
    assert response.status_code == 422
    assert response.json()["details"] == {
        "agreement": [{"description": "must be accepted", "error": "ERR_ACCEPTED"}],
        "email": [{"description": "can't be blank", "error": "ERR_BLANK"}],
        "locale": [{"description": "is not included in the list", "error": "ERR_INCLUSION"}],
        "password": [{"description": "can't be blank", "error": "ERR_BLANK"}],
        "username": [{"description": "can't be blank", "error": "ERR_BLANK"}]}


def test_stratusctl_creates_mastodons_development_account(runtime, monkeypatch, capsys):
    """`admin@localhost` is Mastodon's own development account: Devise's address format
    (something @ something) is what the operator's command checks; only sign-ups through the
    API ask for a domain that could receive mail (our stand-in for Mastodon's MX check)."""
    from stratus.repo import accounts as accounts_repo
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    assert cli.main(["accounts", "create", "admin", "--email", "admin@localhost",
                     "--role", "Owner", "--confirmed"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("created @admin")
    admin = accounts_repo.get_user(accounts_repo.id_by_handle("admin"))
    assert admin["email"] == "admin@localhost" and admin["confirmed_at"]
    assert cli.main(["accounts", "create", "other", "--email", "not an address"]) == 1
    assert "Email is invalid" in capsys.readouterr().err


def test_api_sign_ups_still_need_a_domain_that_takes_mail(client, token):
    response = sign_up(client, token, email="carol@localhost")
    assert response.status_code == 422
    assert response.json()["details"]["email"] == [{"error": "ERR_INVALID",
                                                   "description": "is invalid"}]
