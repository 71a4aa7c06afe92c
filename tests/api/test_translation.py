"""Translation (POST /api/v1/statuses/:id/translate, /api/v1/instance/translation_languages,
`configuration.translation`): through the LibreTranslate-compatible server the local stack
translates with (local/translator.py), and Mastodon's answers without a backend."""

from __future__ import annotations

import pytest
from stratus.api.instance.instance import solid_png

from tests.rig import auth, follow, make_app, make_user, user_token


def _post(client, headers, **body):
    response = client.post("/api/v1/statuses", headers=headers, json={"language": "en", **body})
    assert response.status_code == 200, response.text
    return response.json()


def _translate(client, headers, status_id, **params):
    return client.post(f"/api/v1/statuses/{status_id}/translate", headers=headers, json=params)


def test_without_a_backend_translation_is_off(client, people):
    _, headers = people
    status = _post(client, headers["alice"], status="Hello world")
    response = _translate(client, headers["bob"], status["id"], lang="de")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found"}  # Mastodon's not_found, as Rack names it
    assert client.get("/api/v2/instance").json()["configuration"]["translation"] == \
        {"enabled": False}
    assert client.get("/api/v1/instance/translation_languages").json() == {}


def test_the_backend_is_announced(client, translator):
    assert client.get("/api/v2/instance").json()["configuration"]["translation"] == \
        {"enabled": True}
    languages = client.get("/api/v1/instance/translation_languages").json()
    assert languages == {"en": ["de", "fr"], "de": ["en", "fr"], "fr": ["en", "de"],
                         "und": ["de", "en", "fr"]}


def test_a_status_with_everything_translated(client, people, translator, entity):
    _, headers = people
    media = client.post("/api/v1/media", headers=headers["alice"], files={
        "file": ("a.png", solid_png(8, 8, (1, 2, 3)), "image/png")},
        data={"description": "A cat picture"}).json()
    status = _post(client, headers["alice"], status="Hello @bob, look: a cat",
                   spoiler_text="Cat warning", media_ids=[media["id"]])
    response = _translate(client, headers["bob"], status["id"], lang="de")
    assert response.status_code == 200, response.text
    body = response.json()
    entity("Translation", body)
    assert body["detected_source_language"] == "en" and body["language"] == "de"
    assert body["provider"] == "LibreTranslate"
    assert body["spoiler_text"] == "Katze Warnung"
    assert body["content"].startswith("<p>Hallo <span class=\"h-card\"")
    assert "@<span>bob</span></a></span>, look: a Katze</p>" in body["content"]
    assert body["media_attachments"] == [{"id": media["id"], "description": "A Katze Bild"}]
    assert "poll" not in body
    (sent,) = translator.requests
    assert sent["source"] == "en" and sent["target"] == "de" and sent["format"] == "html"


def test_a_poll_and_its_options(client, people, translator):
    _, headers = people
    status = _post(client, headers["alice"], status="Cat or dog?",
                   poll={"options": ["Cat", "Dog"], "expires_in": 600})
    body = _translate(client, headers["bob"], status["id"], lang="fr").json()
    assert body["content"] == "<p>Chat or chien?</p>"
    assert body["poll"] == {"id": status["poll"]["id"],
                            "options": [{"title": "Chat"}, {"title": "Chien"}]}


def test_kept_per_status_version_and_language(client, people, translator):
    _, headers = people
    status = _post(client, headers["alice"], status="Hello world")
    first = _translate(client, headers["bob"], status["id"], lang="de").json()
    again = _translate(client, headers["carol"], status["id"], lang="de").json()
    assert again == first and len(translator.requests) == 1  # the second was read, not made
    assert _translate(client, headers["bob"], status["id"], lang="fr").json()["content"] == \
        "<p>Bonjour monde</p>"
    client.put(f"/api/v1/statuses/{status['id']}", headers=headers["alice"],
               json={"status": "Hello cat"})
    edited = _translate(client, headers["bob"], status["id"], lang="de").json()
    assert edited["content"] == "<p>Hallo Katze</p>" and len(translator.requests) == 3


def test_the_target_is_lang_else_the_users_else_the_browsers(client, people, translator):
    ids_, headers = people
    status = _post(client, headers["alice"], status="Hello")
    regional = _translate(client, headers["bob"], status["id"], lang="fr-CA")
    assert regional.json()["language"] == "fr"  # a language the backend knows by its base
    unknown = _translate(client, headers["bob"], status["id"], lang="de-AT")
    assert unknown.status_code == 403  # not a locale of Mastodon's: bob's own (en) instead
    own = _translate(client, {**headers["bob"], "Accept-Language": "fr"}, status["id"])
    assert own.status_code == 403  # bob's locale (en) comes first: its own language
    assert own.json() == {"error": "This action is not allowed"}
    from stratus.repo import accounts as accounts_repo
    from stratus.repo import transaction

    transaction.write([accounts_repo.user_update_op(ids_["dave"], {"locale": None})])
    browser = _translate(client, {**headers["dave"], "Accept-Language": "fr-CH, de;q=0.5"},
                         status["id"])
    assert browser.json()["language"] == "fr"


def test_only_public_and_unlisted_statuses_the_viewer_sees(client, people, translator):
    ids_, headers = people
    follow(client, headers["bob"], ids_["alice"])
    private = _post(client, headers["alice"], status="Hello friends", visibility="private")
    refused = _translate(client, headers["bob"], private["id"], lang="de")
    assert refused.status_code == 403 and refused.json() == {"error": "This action is not allowed"}
    unseen = _translate(client, headers["carol"], private["id"], lang="de")
    assert unseen.status_code == 404 and unseen.json() == {"error": "Record not found"}
    unlisted = _post(client, headers["alice"], status="Hello", visibility="unlisted")
    assert _translate(client, headers["carol"], unlisted["id"], lang="de").status_code == 200
    assert _translate(client, headers["carol"], "99999", lang="de").status_code == 404
    assert translator.requests and all(r["q"] == ["<p>Hello</p>"] for r in translator.requests)


@pytest.mark.parametrize("status, message", [
    (429, "There have been too many requests to the translation service recently."),
    (403, "The server-wide usage quota for the translation service has been exceeded."),
    (500, "Service Unavailable"),
])
def test_the_backends_failures_are_503(client, people, translator, status, message):
    _, headers = people
    posted = _post(client, headers["alice"], status="Hello")
    translator.fail_with = status
    response = _translate(client, headers["bob"], posted["id"], lang="de")
    assert response.status_code == 503
    assert response.json() == {"error": message}
    translator.fail_with = None
    assert _translate(client, headers["bob"], posted["id"], lang="de").status_code == 200


def test_a_backend_that_is_down_is_503_and_nothing_is_kept(client, people, translator):
    _, headers = people
    posted = _post(client, headers["alice"], status="Hello")
    _translate(client, headers["bob"], posted["id"], lang="de")  # languages read once
    translator.close()
    response = _translate(client, headers["bob"], posted["id"], lang="fr")
    assert response.status_code == 503 and response.json() == {"error": "Service Unavailable"}


def test_a_user_is_needed(client, people, translator):
    _, headers = people
    posted = _post(client, headers["alice"], status="Hello")
    app = make_app(client)
    app_token = client.post("/oauth/token", data={
        "grant_type": "client_credentials", "client_id": app.client_id,
        "client_secret": app.client_secret, "scope": "read"}).json()["access_token"]
    response = _translate(client, auth(app_token), posted["id"], lang="de")
    assert response.status_code == 422
    write_only = auth(user_token(app, make_user("wendy"), scopes=("write",)))
    assert _translate(client, write_only, posted["id"], lang="de").status_code == 403
