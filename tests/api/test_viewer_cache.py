"""The viewer kept for reads (auth/identity.py, docs/security.md): a warm process serves GETs
on a token it resolved less than VIEWER_TTL seconds ago without reading it again. Writes
resolve their token afresh and make the process forget every viewer it kept; what shows the
viewer's own account reads it afresh; a revocation by another process shows within the TTL."""

from __future__ import annotations

import time as real_time
from types import SimpleNamespace

from stratus.core import warm
from stratus.repo import accounts as accounts_repo
from stratus.repo import oauth as oauth_repo
from stratus.repo import transaction

from tests.rig import auth, make_app, make_user, post, user_token


def _token_item(account_id: str) -> dict:
    tokens = oauth_repo.account_tokens(account_id)
    assert len(tokens) == 1
    return tokens[0]


def _later(monkeypatch, seconds: float) -> None:
    """The kept viewers' clock, `seconds` on."""
    monkeypatch.setattr(warm, "time", SimpleNamespace(
        monotonic=lambda: real_time.monotonic() + seconds))


def test_a_read_is_served_from_the_kept_viewer_until_it_expires(client, people, monkeypatch):
    ids_, tokens = people
    assert client.get("/api/v1/timelines/home", headers=tokens["alice"]).status_code in (200, 206)
    oauth_repo.delete_token(_token_item(ids_["alice"]))  # revoked by another process
    # Within the TTL this process still serves reads on it (the documented lag) …
    assert client.get("/api/v1/timelines/home", headers=tokens["alice"]).status_code in (200, 206)
    # … never writes: a write reads its token afresh.
    refused = client.post("/api/v1/statuses", headers=tokens["alice"], data={"status": "hi"})
    assert refused.status_code == 401
    assert refused.json() == {"error": "The access token is invalid"}
    # And the refused write made the process forget what it kept: reads are refused too.
    assert client.get("/api/v1/timelines/home", headers=tokens["alice"]).status_code == 401


def test_a_kept_viewer_expires(client, people, monkeypatch):
    ids_, tokens = people
    assert client.get("/api/v1/timelines/home", headers=tokens["bob"]).status_code in (200, 206)
    transaction.write([accounts_repo.user_update_op(ids_["bob"], {"disabled": True})])
    assert client.get("/api/v1/timelines/home", headers=tokens["bob"]).status_code in (200, 206)
    _later(monkeypatch, 60)
    disabled = client.get("/api/v1/timelines/home", headers=tokens["bob"])
    assert disabled.status_code == 403
    assert disabled.json() == {"error": "Your login is currently disabled"}


def test_a_revocation_through_this_process_shows_at_once(client):
    app = make_app(client)
    raw = user_token(app, make_user("erin"))
    headers = auth(raw)
    assert client.get("/api/v1/accounts/verify_credentials", headers=headers).status_code == 200
    revoked = client.post("/oauth/revoke", data={"token": raw, "client_id": app.client_id,
                                                 "client_secret": app.client_secret})
    assert revoked.status_code == 200, revoked.text
    assert client.get("/api/v1/accounts/verify_credentials", headers=headers).status_code == 401


def test_what_shows_the_viewers_own_account_reads_it_afresh(client, people):
    ids_, tokens = people
    before = client.get("/api/v1/accounts/verify_credentials", headers=tokens["dave"]).json()
    assert client.get("/api/v1/preferences", headers=tokens["dave"]).json()[
        "posting:default:visibility"] == "public"
    # Written by another process: this one keeps dave's viewer from the reads above.
    transaction.write([accounts_repo.profile_update_op(ids_["dave"],
                                                       {"display_name": "Dave Again"}),
                       accounts_repo.user_update_op(ids_["dave"], {"settings": {
                           "default_privacy": "unlisted"}})])
    after = client.get("/api/v1/accounts/verify_credentials", headers=tokens["dave"]).json()
    assert before["display_name"] != "Dave Again" and after["display_name"] == "Dave Again"
    assert client.get("/api/v1/preferences", headers=tokens["dave"]).json()[
        "posting:default:visibility"] == "unlisted"


def test_a_post_counts_on_the_next_verify_credentials(client, people):
    _, tokens = people
    before = client.get("/api/v1/accounts/verify_credentials", headers=tokens["alice"]).json()
    post(client, tokens["alice"], status="one more")
    after = client.get("/api/v1/accounts/verify_credentials", headers=tokens["alice"]).json()
    assert after["statuses_count"] == before["statuses_count"] + 1
