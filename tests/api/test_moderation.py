"""Account moderation: each action and its undo, with the effects checked
from another user's view; permissions and staff-on-staff rules; 422s; the moderation log."""

from __future__ import annotations

from email import message_from_bytes
from email.policy import default

import pytest
from stratus.repo import audit

from tests.rig import auth, follow_edge, make_app, make_user, user_token

ADMIN_SCOPES = ("read", "write", "follow", "admin:read", "admin:write")


@pytest.fixture
def app(client):
    return make_app(client, scopes="read write follow admin:read admin:write")


@pytest.fixture
def staff(app):
    """An admin and a moderator: (ids, headers)."""
    ids_ = {"admin": make_user("boss", role="Admin"), "mod": make_user("moddy", role="Moderator")}
    return ids_, {n: auth(user_token(app, a, scopes=ADMIN_SCOPES)) for n, a in ids_.items()}


@pytest.fixture
def cast(app, staff):
    """target (who gets moderated), fan (follows target), other (does not)."""
    ids_ = {n: make_user(n) for n in ("target", "fan", "other")}
    headers = {n: auth(user_token(app, a)) for n, a in ids_.items()}
    follow_edge(ids_["fan"], ids_["target"])
    return ids_, headers


def act(client, headers, account_id, **data):
    return client.post(f"/api/v1/admin/accounts/{account_id}/action", headers=headers,
                       data=data)


def post(client, headers, text, **extra):
    response = client.post("/api/v1/statuses", headers=headers, data={"status": text, **extra})
    assert response.status_code == 200, response.text
    return response.json()["id"]


def test_suspend_hides_everything_and_unsuspend_restores_it(client, drain, staff, cast, entity):
    (ids_, h), (_, sh) = cast, staff
    status = post(client, h["target"], "hello world")
    reply = post(client, h["other"], "a reply", in_reply_to_id=status)
    client.post(f"/api/v1/statuses/{reply}/favourite", headers=h["target"])
    drain()
    assert act(client, sh["admin"], ids_["target"], type="suspend").status_code == 200
    drain()
    # The account renders with `suspended: true` and nothing else of it.
    shown = client.get(f"/api/v1/accounts/{ids_['target']}", headers=h["other"]).json()
    assert shown["suspended"] is True and shown["display_name"] == "" and shown["note"] == ""
    entity("Account", shown)
    # Its statuses are gone: direct read, its list, timelines, threads.
    assert client.get(f"/api/v1/statuses/{status}", headers=h["other"]).status_code == 404
    assert client.get(f"/api/v1/accounts/{ids_['target']}/statuses",
                      headers=h["other"]).json() == []
    assert status not in [s["id"] for s in client.get("/api/v1/timelines/public").json()]
    assert status not in [s["id"] for s in client.get("/api/v1/timelines/home",
                                                      headers=h["fan"]).json()]
    context = client.get(f"/api/v1/statuses/{reply}/context", headers=h["other"]).json()
    assert context["ancestors"] == []
    # Its follows are gone from others' lists; its notifications to others are hidden.
    assert client.get(f"/api/v1/accounts/{ids_['fan']}/following",
                      headers=h["other"]).json() == []
    assert client.get(f"/api/v1/accounts/{ids_['target']}/followers",
                      headers=h["other"]).json() == []
    assert [n for n in client.get("/api/v1/notifications", headers=h["other"]).json()
            if n["account"]["id"] == ids_["target"]] == []
    # Its tokens are refused.
    refused = client.get("/api/v1/accounts/verify_credentials", headers=h["target"])
    assert refused.status_code == 403
    assert refused.json() == {"error": "Your login is currently disabled"}
    admin_view = client.get(f"/api/v1/admin/accounts/{ids_['target']}",
                            headers=sh["admin"]).json()
    assert admin_view["suspended"] is True
    entity("AdminAccount", admin_view)

    restored = client.post(f"/api/v1/admin/accounts/{ids_['target']}/unsuspend",
                           headers=sh["admin"])
    assert restored.status_code == 200 and restored.json()["suspended"] is False
    drain()
    assert client.get(f"/api/v1/statuses/{status}", headers=h["other"]).status_code == 200
    assert client.get(f"/api/v1/accounts/{ids_['target']}",
                      headers=h["other"]).json().get("suspended") is None
    assert [s["id"] for s in client.get(f"/api/v1/accounts/{ids_['target']}/statuses",
                                        headers=h["other"]).json()] == [status]
    assert [a["id"] for a in client.get(f"/api/v1/accounts/{ids_['fan']}/following",
                                        headers=h["other"]).json()] == [ids_["target"]]
    assert client.get("/api/v1/accounts/verify_credentials",
                      headers=h["target"]).status_code == 200
    assert any(n["account"]["id"] == ids_["target"]
               for n in client.get("/api/v1/notifications", headers=h["other"]).json())
    actions = [e["action"] for e in audit.by_target("Account", ids_["target"])]
    assert sorted(actions) == ["suspend", "unsuspend"]


def test_silence_limits_the_account_to_its_followers(client, drain, staff, cast):
    (ids_, h), (_, sh) = cast, staff
    status = post(client, h["target"], "quietly #topic")
    root = post(client, h["other"], "a thread")
    reply = post(client, h["target"], "in a thread", in_reply_to_id=root)
    drain()
    assert act(client, sh["mod"], ids_["target"], type="silence").status_code == 200
    drain()
    account = client.get(f"/api/v1/accounts/{ids_['target']}", headers=h["other"]).json()
    assert account["limited"] is True
    # Out of the public and hashtag timelines, for everyone.
    for headers in (h["other"], h["fan"], {}):
        assert status not in [s["id"] for s in client.get("/api/v1/timelines/public",
                                                          headers=headers).json()]
        assert status not in [s["id"] for s in client.get("/api/v1/timelines/tag/topic",
                                                          headers=headers).json()]
    # In a thread, only followers (and the author) see it.
    def descendants(headers):
        return [s["id"] for s in client.get(f"/api/v1/statuses/{root}/context",
                                            headers=headers).json()["descendants"]]
    assert descendants(h["other"]) == []
    assert descendants(h["fan"]) == [reply]
    assert descendants(h["target"]) == [reply]
    # Its mentions of non-followers are filtered (the notification policy's limited accounts).
    post(client, h["target"], "@other hi")
    post(client, h["target"], "@fan hi")
    drain()
    assert [n["type"] for n in client.get("/api/v1/notifications",
                                          headers=h["other"]).json()] == []
    assert [n["type"] for n in client.get("/api/v1/notifications",
                                          headers=h["fan"]).json()] == ["mention"]
    # Undone: back in public.
    undone = client.post(f"/api/v1/admin/accounts/{ids_['target']}/unsilence",
                         headers=sh["mod"])
    assert undone.status_code == 200 and undone.json()["silenced"] is False
    assert "limited" not in client.get(f"/api/v1/accounts/{ids_['target']}",
                                       headers=h["other"]).json()
    assert status in [s["id"] for s in client.get("/api/v1/timelines/public").json()]
    assert [e["action"] for e in audit.by_target("Account", ids_["target"])] == \
        ["silence", "unsilence"]


def test_sensitive_marks_its_statuses_for_others(client, drain, staff, cast):
    (ids_, h), (_, sh) = cast, staff
    status = post(client, h["target"], "a picture, say")
    assert act(client, sh["admin"], ids_["target"], type="sensitive").status_code == 200
    assert client.get(f"/api/v1/statuses/{status}", headers=h["other"]).json()["sensitive"] is True
    assert client.get(f"/api/v1/statuses/{status}").json()["sensitive"] is True
    # Its author sees what it posted (Mastodon's StatusSerializer).
    assert client.get(f"/api/v1/statuses/{status}", headers=h["target"]).json()["sensitive"] \
        is False
    admin_view = client.get(f"/api/v1/admin/accounts/{ids_['target']}", headers=sh["admin"])
    assert admin_view.json()["sensitized"] is True
    undone = client.post(f"/api/v1/admin/accounts/{ids_['target']}/unsensitive",
                         headers=sh["admin"])
    assert undone.status_code == 200 and undone.json()["sensitized"] is False
    assert client.get(f"/api/v1/statuses/{status}", headers=h["other"]).json()["sensitive"] \
        is False


def test_disable_refuses_sign_in_and_tokens_until_enabled(client, staff, cast):
    (ids_, h), (_, sh) = cast, staff
    from stratus.api.accounts import sign_in

    assert act(client, sh["admin"], ids_["target"], type="disable").status_code == 200
    refused = client.get("/api/v1/accounts/verify_credentials", headers=h["target"])
    assert refused.status_code == 403
    assert refused.json() == {"error": "Your login is currently disabled"}
    assert sign_in.authenticate("target@example.org", "correct horse battery") is None
    view = client.get(f"/api/v1/admin/accounts/{ids_['target']}", headers=sh["admin"]).json()
    assert view["disabled"] is True
    # Others still see the account (disabling is about signing in).
    assert client.get(f"/api/v1/accounts/{ids_['target']}",
                      headers=h["other"]).json().get("suspended") is None
    enabled = client.post(f"/api/v1/admin/accounts/{ids_['target']}/enable",
                          headers=sh["admin"])
    assert enabled.status_code == 200 and enabled.json()["disabled"] is False
    assert client.get("/api/v1/accounts/verify_credentials",
                      headers=h["target"]).status_code == 200
    assert sign_in.authenticate("target@example.org", "correct horse battery") == ids_["target"]
    assert [e["action"] for e in audit.by_target("User", ids_["target"])] == ["disable", "enable"]


@pytest.mark.parametrize("data", [{}, {"type": "ban"}, {"type": ""}])
def test_unknown_or_missing_type_is_422(client, staff, cast, data):
    (ids_, _), (_, sh) = cast, staff
    response = act(client, sh["admin"], ids_["target"], **data)
    assert response.status_code == 422
    assert response.json() == {"error": "Validation failed: Type is not included in the list"}


def test_unknown_account_preset_or_report_is_404(client, staff, cast):
    (ids_, _), (_, sh) = cast, staff
    assert act(client, sh["admin"], "12345", type="none").status_code == 404
    assert act(client, sh["admin"], "nope", type="none").status_code == 404
    assert act(client, sh["admin"], ids_["target"], type="silence",
               warning_preset_id="7").status_code == 404
    assert act(client, sh["admin"], ids_["target"], type="silence",
               report_id="x").status_code == 404


def test_staff_on_staff_rules(client, app, staff, cast):
    (ids_, h), (sids, sh) = cast, staff
    # A moderator cannot act on an admin, nor anyone on themselves or their peers.
    for kind in ("suspend", "silence", "sensitive", "disable"):
        assert act(client, sh["mod"], sids["admin"], type=kind).status_code == 403
        assert act(client, sh["admin"], sids["admin"], type=kind).status_code == 403
    other_mod = make_user("moddy2", role="Moderator")
    assert act(client, sh["mod"], other_mod, type="suspend").status_code == 403
    # An admin can act on a moderator.
    assert act(client, sh["admin"], sids["mod"], type="silence").status_code == 200
    # Without Manage Users, or without the admin:write scope: 403.
    plain = auth(user_token(app, ids_["other"], scopes=ADMIN_SCOPES))
    assert act(client, plain, ids_["target"], type="suspend").status_code == 403
    read_only = auth(user_token(app, sids["admin"], scopes=("admin:read",)))
    denied = act(client, read_only, ids_["target"], type="suspend")
    assert denied.status_code == 403
    assert denied.json() == {"error": "This action is outside the authorized scopes"}
    assert client.post(f"/api/v1/admin/accounts/{ids_['target']}/unsuspend",
                       headers=h["other"]).status_code == 403
    # A moderator cannot purge (Delete User Data).
    act(client, sh["admin"], ids_["target"], type="suspend")
    assert client.delete(f"/api/v1/admin/accounts/{ids_['target']}",
                         headers=sh["mod"]).status_code == 403


def test_actions_are_idempotent_and_logged(client, staff, cast):
    (ids_, _), (sids, sh) = cast, staff
    assert act(client, sh["admin"], ids_["target"], type="silence").status_code == 200
    assert act(client, sh["admin"], ids_["target"], type="silence").status_code == 200
    # Undoing what is not there changes and logs nothing (unsuspend always logs, as Mastodon).
    client.post(f"/api/v1/admin/accounts/{ids_['target']}/unsensitive", headers=sh["admin"])
    client.post(f"/api/v1/admin/accounts/{ids_['target']}/enable", headers=sh["admin"])
    assert act(client, sh["admin"], ids_["target"], type="none", text="be nice").status_code \
        == 200
    assert [e["action"] for e in audit.by_target("Account", ids_["target"])] == \
        ["silence", "silence"]
    logs = client.get("/api/v1/admin/action_logs", headers=sh["admin"])
    assert logs.status_code == 200
    body = logs.json()
    assert [e["action"] for e in body] == ["create", "silence", "silence"]  # newest first
    assert body[0]["target_type"] == "AccountWarning"
    first = body[1]
    assert first["target_type"] == "Account" and first["target_id"] == ids_["target"]
    assert first["human_identifier"] == "target" and first["account"]["id"] == sids["admin"]
    assert first["created_at"].endswith("Z")


def test_action_log_filters_and_pages(client, staff, cast):
    (ids_, _), (sids, sh) = cast, staff
    act(client, sh["mod"], ids_["target"], type="silence")
    act(client, sh["admin"], ids_["other"], type="sensitive")
    act(client, sh["admin"], ids_["target"], type="disable")
    act(client, sh["admin"], ids_["target"], type="sensitive")

    def actions(query):
        response = client.get(f"/api/v1/admin/action_logs?{query}", headers=sh["admin"])
        assert response.status_code == 200, response.text
        return [(e["action"], e["target_id"]) for e in response.json()]

    assert actions(f"account_id={sids['mod']}") == [("silence", ids_["target"])]
    assert actions(f"target_account_id={ids_['target']}") == [
        ("sensitive", ids_["target"]), ("disable", ids_["target"]), ("silence", ids_["target"])]
    assert actions(f"account_id={sids['admin']}&target_account_id={ids_['target']}") == [
        ("sensitive", ids_["target"]), ("disable", ids_["target"])]
    first = client.get("/api/v1/admin/action_logs?limit=2", headers=sh["admin"])
    assert len(first.json()) == 2
    next_url = first.headers["link"].split(";")[0].strip("<>").removeprefix(
        "http://localhost:8000")
    rest = client.get(next_url, headers=sh["admin"]).json()
    assert [e["action"] for e in first.json() + rest] == \
        ["sensitive", "disable", "sensitive", "silence"]
    # View Audit Log is needed: a role without it is refused.
    assert client.get("/api/v1/admin/action_logs",
                      headers=cast[1]["other"]).status_code == 403


def test_listings_follow_the_moderation_state(client, staff, cast):
    (ids_, _), (_, sh) = cast, staff
    act(client, sh["admin"], ids_["target"], type="silence")
    act(client, sh["admin"], ids_["target"], type="sensitive")
    act(client, sh["admin"], ids_["fan"], type="suspend")
    act(client, sh["admin"], ids_["other"], type="disable")

    def names(query, version="v2"):
        response = client.get(f"/api/{version}/admin/accounts?{query}", headers=sh["admin"])
        assert response.status_code == 200, response.text
        return {a["username"] for a in response.json()}

    assert names("status=silenced") == {"target"}
    assert names("silenced=true", "v1") == {"target"}
    assert names("sensitized=true", "v1") == {"target"}
    assert names("status=suspended") == {"fan"}
    assert names("suspended=1", "v1") == {"fan"}
    assert names("status=disabled&origin=local") == {"other"}
    # A silenced account is still active (Mastodon: not suspended); a suspended one is not.
    assert names("", "v1") == {"target", "boss", "moddy"}
    client.post(f"/api/v1/admin/accounts/{ids_['target']}/unsilence", headers=sh["admin"])
    client.post(f"/api/v1/admin/accounts/{ids_['fan']}/unsuspend", headers=sh["admin"])
    assert names("status=silenced") == set()
    assert names("status=suspended") == set()
    assert names("sensitized=true", "v1") == {"target"}
    assert names("", "v1") == {"target", "fan", "boss", "moddy"}


def test_warning_mail_is_sent_once(client, drain, runtime, staff, cast):
    (ids_, _), (_, sh) = cast, staff
    runtime.mailbox.collect()
    assert act(client, sh["admin"], ids_["target"], type="silence", text="Please stop.",
               send_email_notification="true").status_code == 200
    assert act(client, sh["admin"], ids_["other"], type="silence").status_code == 200
    drain()
    drain()
    mails = runtime.mailbox.collect()
    assert len(mails) == 1
    message = message_from_bytes(mails[0].read_bytes(), policy=default)
    assert message["To"] == "target@example.org"
    assert message["Subject"] == "Your account @target@localhost:8000 has been limited"
    assert "Please stop." in message.get_body().get_content()
