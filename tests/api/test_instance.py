"""Instance metadata endpoints: shapes, caching, settings and counters feeding them."""

from __future__ import annotations

import pytest
from stratus import MASTODON_API_LEVEL
from stratus.core import limits
from stratus.read import settings as settings_service

PUBLIC_5_MIN = "max-age=300, public, stale-while-revalidate=30, stale-if-error=86400"


@pytest.mark.parametrize("path", ["/api/v2/instance", "/api/v2/instance/"])
def test_instance_v2_shape(client, entity, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.headers["cache-control"] == PUBLIC_5_MIN
    assert "Authorization" in response.headers["vary"]
    body = response.json()
    entity("Instance", body)
    assert body["domain"] == "localhost:8000"
    assert body["title"] == "Stratus"
    assert body["version"].startswith("4.") and "(compatible; Stratus " in body["version"]
    assert isinstance(body["api_versions"]["mastodon"], int)
    assert body["api_versions"]["mastodon"] == MASTODON_API_LEVEL
    assert body["configuration"]["urls"]["streaming"] == "ws://localhost:8000"
    assert body["registrations"] == {"enabled": True, "approval_required": False,
                                     "reason_required": False, "message": None,
                                     "min_age": None, "url": None}
    assert body["usage"] == {"users": {"active_month": 0}}
    assert body["rules"] == []
    assert body["contact"] == {"email": "", "account": None}


def test_instance_v2_configuration_is_what_the_code_enforces(client):
    config = client.get("/api/v2/instance").json()["configuration"]
    assert config["statuses"] == {
        "max_characters": limits.MAX_STATUS_CHARACTERS,
        "max_media_attachments": limits.MAX_MEDIA_ATTACHMENTS,
        "characters_reserved_per_url": limits.CHARACTERS_RESERVED_PER_URL,
        "supported_mime_types": ["text/plain", "text/markdown"],
    }
    assert config["polls"] == {"max_options": 4, "max_characters_per_option": 50,
                               "min_expiration": 300, "max_expiration": 2629746}
    assert config["accounts"]["max_note_length"] == limits.MAX_NOTE_LENGTH == 500
    assert config["accounts"]["max_pinned_statuses"] == 5
    assert config["accounts"]["max_profile_fields"] == 4
    assert config["media_attachments"]["description_limit"] == 1500
    assert config["translation"] == {"enabled": False}


@pytest.mark.parametrize("path", ["/api/v1/instance", "/api/v1/instance/"])
def test_instance_v1_shape(client, entity, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"] == PUBLIC_5_MIN
    body = response.json()
    entity("V1Instance", body)
    assert body["uri"] == "localhost:8000"
    assert body["urls"] == {"streaming_api": "ws://localhost:8000"}
    assert body["stats"] == {"user_count": 0, "status_count": 0, "domain_count": 0}
    assert body["registrations"] is True and body["approval_required"] is False
    assert body["thumbnail"] == "http://localhost:8000/packs/media/images/preview.png"


def test_thumbnail_is_a_png(client):
    response = client.get("/packs/media/images/preview.png")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.content.startswith(b"\x89PNG\r\n\x1a\n")


def test_settings_change_what_clients_see(client, runtime):
    settings_service.set_value("site_title", "Cloud Nine")
    settings_service.set_value("site_description", "A small server")
    settings_service.set_value("contact_email", "admin@example.org")
    settings_service.set_value("registrations_mode", "approved")
    settings_service.set_value("require_invite_text", "true")
    settings_service.set_value("closed_registrations_message", "<p>Ask <script>x</script>us</p>")
    v2 = client.get("/api/v2/instance").json()
    assert v2["title"] == "Cloud Nine"
    assert v2["description"] == "A small server"
    assert v2["contact"]["email"] == "admin@example.org"
    assert v2["registrations"]["enabled"] is True
    assert v2["registrations"]["approval_required"] is True
    assert v2["registrations"]["reason_required"] is True
    assert v2["registrations"]["message"] == "<p>Ask us</p>"
    v1 = client.get("/api/v1/instance").json()
    assert v1["title"] == "Cloud Nine" and v1["email"] == "admin@example.org"
    assert v1["approval_required"] is True
    settings_service.set_value("registrations_mode", "none")
    assert client.get("/api/v2/instance").json()["registrations"]["enabled"] is False
    assert client.get("/api/v1/instance").json()["registrations"] is False


def test_rules(client, entity):
    settings_service.set_value("rules", '[{"text": "Be kind", "hint": "Really"}, "No spam"]')
    response = client.get("/api/v1/instance/rules")
    assert response.status_code == 200
    assert response.headers["cache-control"] == PUBLIC_5_MIN
    rules = response.json()
    assert [(r["text"], r["hint"]) for r in rules] == [("Be kind", "Really"), ("No spam", "")]
    for rule in rules:
        entity("Rule", rule)
        assert isinstance(rule["id"], str)
    # Unchanged rules keep their ids when the list is replaced.
    settings_service.set_value("rules", "No spam\nBe excellent")
    again = client.get("/api/v1/instance/rules").json()
    assert [r["text"] for r in again] == ["No spam", "Be excellent"]
    assert again[0]["id"] == rules[1]["id"]
    assert [r["text"] for r in client.get("/api/v2/instance").json()["rules"]] == \
        ["No spam", "Be excellent"]


def test_bad_setting_values_are_refused(runtime):
    from stratus.core.errors import Unprocessable

    with pytest.raises(Unprocessable):
        settings_service.set_value("registrations_mode", "sometimes")
    with pytest.raises(Unprocessable):
        settings_service.set_value("contact_email", "not-an-email")
    with pytest.raises(Unprocessable):
        settings_service.set_value("no_such_setting", "x")
    with pytest.raises(Unprocessable):
        settings_service.set_value("rules", '[{"hint": "no text"}]')


def test_extended_description_is_sanitised(client, entity):
    settings_service.set_value("extended_description",
                               '<h2>About</h2><p onclick="x()">Hi <a href="javascript:x">x</a></p>')
    body = client.get("/api/v1/instance/extended_description").json()
    entity("ExtendedDescription", body)
    assert body["content"] == "<h2>About</h2><p>Hi <a rel=\"nofollow noopener\">x</a></p>"
    assert body["updated_at"].endswith("Z")


def test_translation_languages_empty(client):
    response = client.get("/api/v1/instance/translation_languages")
    assert response.status_code == 200 and response.json() == {}


def test_peers_and_activity_can_be_disabled(client):
    assert client.get("/api/v1/instance/peers").json() == []
    settings_service.set_value("peers_api_enabled", "false")
    assert client.get("/api/v1/instance/peers").status_code == 404
    weeks = client.get("/api/v1/instance/activity").json()
    assert len(weeks) == 12
    assert all(set(w) == {"week", "statuses", "logins", "registrations"} for w in weeks)
    assert all(isinstance(v, str) for w in weeks for v in w.values())
    assert int(weeks[0]["week"]) - int(weeks[1]["week"]) == 7 * 86400
    settings_service.set_value("activity_api_enabled", "0")
    response = client.get("/api/v1/instance/activity")
    assert response.status_code == 404 and response.json() == {"error": "Not found"}


def test_domain_blocks_follow_the_setting(client, entity):
    from stratus.repo import base, keys

    assert client.get("/api/v1/instance/domain_blocks").status_code == 404
    base.put({**keys.domain_block("bad.example"), "type": "domain_block", "domain": "bad.example",
              "severity": "suspend", "public_comment": "spam"})
    base.put({**keys.domain_block("meh.example"), "type": "domain_block", "domain": "meh.example",
              "severity": "noop"})
    settings_service.set_value("show_domain_blocks", "all")
    blocks = client.get("/api/v1/instance/domain_blocks").json()
    assert len(blocks) == 1
    entity("DomainBlock", blocks[0])
    assert blocks[0]["domain"] == "bad.example" and blocks[0]["severity"] == "suspend"
    assert "comment" not in blocks[0]
    settings_service.set_value("show_domain_blocks_rationale", "all")
    assert client.get("/api/v1/instance/domain_blocks").json()[0]["comment"] == "spam"
    settings_service.set_value("show_domain_blocks", "users")
    response = client.get("/api/v1/instance/domain_blocks")
    assert response.status_code == 404  # Mastodon: not shown to this reader, so not found
    from tests.rig import auth, make_app, make_user, user_token

    token = user_token(make_app(client), make_user("viewer"))
    signed_in = client.get("/api/v1/instance/domain_blocks", headers=auth(token))
    assert signed_in.status_code == 200 and signed_in.json()[0]["domain"] == "bad.example"


def test_unknown_routes_are_json_404(client):
    for path in ("/api/v1/instance/privacy_policy_nope", "/api/v9/nothing", "/nope"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json() == {"error": "Not found"}
        assert response.headers["content-type"].startswith("application/json")
