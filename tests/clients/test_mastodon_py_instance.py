"""Mastodon.py over real HTTP: the instance's documents and settings (rules, terms of service,
privacy policy and extended description, languages, translation languages), the health check,
OpenID Connect's UserInfo, and translating a status through the local stack's translator."""

from __future__ import annotations

from datetime import date, timedelta

from mastodon import Mastodon
from stratus.read import settings as settings_service

from tests.rig import make_user, mastodon_py_users


def test_instance_documents_with_mastodon_py(live_server):
    from stratus.api.admin import rules
    from stratus.api.instance import terms

    base = live_server.base_url
    (api,) = mastodon_py_users(base, "ann")
    rules.create(None, {"text": "Be kind", "hint": "Really"})
    assert [(r.text, r.hint) for r in api.instance_rules()] == [("Be kind", "Really")]
    assert api.instance_health() is True
    assert api.instance_extended_description().updated_at is None
    settings_service.set_value("extended_description", "We like *clouds*.")
    assert api.instance_extended_description().content == "<p>We like <em>clouds</em>.</p>"
    assert {"code": "de", "name": "German"} in api.instance_languages()
    assert api.instance_translation_languages() == {}
    policy = api._Mastodon__api_request("GET", "/api/v1/instance/privacy_policy")
    assert "This privacy policy describes how" in policy["content"]

    effective = (date.today() + timedelta(days=3)).isoformat()
    terms.save_draft(text="Be kind.", changelog="First", effective_date=effective)
    terms.publish()
    # Mastodon.py asks a 4.4 server for this; the stack says it is 4.3-compatible.
    unchecked = Mastodon(access_token=api.access_token, api_base_url=base,
                         version_check_mode="none")
    current = unchecked.instance_terms_of_service()
    assert current.content == "<p>Be kind.</p>" and current.effective is False
    assert str(current.effective_date)[:10] == effective
    urls = api.instance_v2().configuration.urls
    assert urls.terms_of_service == f"{base}/terms-of-service"
    assert urls.privacy_policy == f"{base}/privacy-policy"


def test_userinfo_with_mastodon_py(live_server, monkeypatch):
    # Mastodon.py follows the metadata's userinfo_endpoint only over https; the stack here
    # speaks http on loopback.
    from mastodon import internals

    check = internals.Mastodon._Mastodon__oauth_url_check
    monkeypatch.setattr(internals.Mastodon, "_Mastodon__oauth_url_check",
                        staticmethod(lambda url, allow_http=False: check(url, allow_http=True)))
    base = live_server.base_url
    make_user("bea", "bea@example.org", "bea password long")
    client_id, secret = Mastodon.create_app("openid", api_base_url=base,
                                            scopes=["read", "profile"])
    api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base)
    api.log_in("bea@example.org", "bea password long", scopes=["read", "profile"],
               allow_http=True)
    info = api.oauth_userinfo()
    assert (info.preferred_username, info.sub, info.profile) == (
        "bea", f"{base}/users/bea", f"{base}/@bea")


def test_status_translate_with_mastodon_py(live_server, translator):
    ann, ben = mastodon_py_users(live_server.base_url, "ann", "ben")
    status = ann.status_post("Hello world", language="en", spoiler_text="Cat warning")
    assert ben.instance_translation_languages()["en"] == ["de", "fr"]
    translated = ben.status_translate(status, lang="de")
    assert (translated.content, translated.spoiler_text, translated.language,
            translated.provider) == ("<p>Hallo Welt</p>", "Katze Warnung", "de", "LibreTranslate")
    assert ben.instance_v2().configuration.translation.enabled is True
