"""The instance's documents: the privacy policy (Mastodon's default until staff write one), the
extended description, the terms of service and their versions (managed with `stratusctl
terms`, users told by e-mail), the languages, and the URLs the instance document names."""

from __future__ import annotations

import re
from datetime import timedelta
from email import message_from_bytes
from email.policy import default as default_policy

import pytest
from stratus.core import clock
from stratus.read import settings as settings_service

from tests.rig import make_user

PUBLIC_5_MIN = "max-age=300, public, stale-while-revalidate=30, stale-if-error=86400"


def _day(days: int) -> str:
    return (clock.now() + timedelta(days=days)).date().isoformat()


def test_the_default_privacy_policy_is_mastodons(client, entity):
    response = client.get("/api/v1/instance/privacy_policy")
    assert response.status_code == 200
    assert response.headers["cache-control"] == PUBLIC_5_MIN
    body = response.json()
    entity("PrivacyPolicy", body)
    assert body["updated_at"] == "2022-10-07T00:00:00+00:00"
    assert body["content"].startswith(
        '<p>This privacy policy describes how localhost:8000 ("localhost:8000", "we", "us")')
    assert "%{domain}" not in body["content"] and "<h1>" in body["content"]
    assert "This document is CC-BY-SA" in body["content"]  # its licence travels with it


def test_staff_write_their_own_privacy_policy(client):
    settings_service.set_value("privacy_policy", "# Ours\n\nAt %{domain}: <script>x()</script>")
    body = client.get("/api/v1/instance/privacy_policy").json()
    assert body["content"] == \
        "<h1>Ours</h1>\n<p>At localhost:8000: &lt;script&gt;x()&lt;/script&gt;</p>"
    assert body["updated_at"].endswith("Z") and body["updated_at"] != "2022-10-07T00:00:00+00:00"
    page = client.get("/privacy-policy")
    assert page.status_code == 200 and "<h1>Ours</h1>" in page.text


def test_the_extended_description_is_null_until_written(client, entity):
    body = client.get("/api/v1/instance/extended_description").json()
    assert body == {"updated_at": None, "content": ""}
    settings_service.set_value("extended_description", "## About\n\nWe *like* clouds.")
    body = client.get("/api/v1/instance/extended_description").json()
    entity("ExtendedDescription", body)
    assert body["content"] == "<h2>About</h2>\n<p>We <em>like</em> clouds.</p>"
    assert body["updated_at"].endswith("Z")


def test_languages(client):
    response = client.get("/api/v1/instance/languages")
    assert response.status_code == 200
    languages = response.json()
    assert len(languages) == 214  # Mastodon 4.6's SUPPORTED_LOCALES
    assert languages[:2] == [{"code": "aa", "name": "Afar"}, {"code": "ab", "name": "Abkhazian"}]
    named = {entry["code"]: entry["name"] for entry in languages}
    assert named["el"] == "Greek" and named["zh-TW"] == "Chinese (Taiwan)"
    assert named["tok"] == "Toki Pona" and named["cnr"] == "Montenegrin"
    assert all(set(entry) == {"code", "name"} for entry in languages)


def _publish(text: str, changelog: str, effective_date: str, *, notify: bool = False):
    from stratus.api.instance import terms

    terms.save_draft(text=text, changelog=changelog, effective_date=effective_date)
    published = terms.publish()
    if notify:
        terms.notify(published["effective_date"])
    return published


def test_terms_of_service_versions(client, monkeypatch, entity):
    assert client.get("/api/v1/instance/terms_of_service").status_code == 404
    urls = client.get("/api/v2/instance").json()["configuration"]["urls"]
    assert urls["privacy_policy"] == "http://localhost:8000/privacy-policy"
    assert urls["terms_of_service"] is None
    from stratus.api.instance import terms

    terms.save_draft(text="Be **kind** on %{domain}.", changelog="First terms",
                     effective_date=_day(3))
    assert client.get("/api/v1/instance/terms_of_service").status_code == 404  # a draft
    first = _publish("Be **kind** on %{domain}.", "First terms", _day(3))
    current = client.get("/api/v1/instance/terms_of_service")
    assert current.status_code == 200
    body = current.json()
    entity("TermsOfService", body)
    assert body == {"effective_date": first["effective_date"], "effective": False,
                    "content": "<p>Be <strong>kind</strong> on localhost:8000.</p>",
                    "succeeded_by": None}
    assert client.get("/api/v2/instance").json()["configuration"]["urls"][
        "terms_of_service"] == "http://localhost:8000/terms-of-service"
    second = _publish("Be kinder.", "Kinder", _day(10))
    # The first is the one in effect from its date until the second's.
    later = clock.now() + timedelta(days=5)
    monkeypatch.setattr(clock, "now", lambda: later)
    now_body = client.get("/api/v1/instance/terms_of_service").json()
    assert (now_body["effective_date"], now_body["effective"], now_body["succeeded_by"]) == \
        (first["effective_date"], True, second["effective_date"])
    dated = client.get(f"/api/v1/instance/terms_of_service/{second['effective_date']}").json()
    assert dated["content"] == "<p>Be kinder.</p>" and dated["effective"] is False
    assert client.get("/api/v1/instance/terms_of_service/2001-01-01").status_code == 404
    assert client.get("/api/v1/instance/terms_of_service/not-a-date").status_code == 404
    page = client.get(f"/terms-of-service/{second['effective_date']}")
    assert page.status_code == 200 and "Be kinder." in page.text
    assert client.get("/terms-of-service/2001-01-01").status_code == 404


@pytest.mark.parametrize("effective, error", [
    (None, "Effective date can't be blank"),
    ("yesterday", "Effective date is invalid"),
])
def test_a_version_needs_a_good_effective_date(runtime, effective, error):
    from stratus.api.instance import terms
    from stratus.core.errors import ApiError

    with pytest.raises(ApiError, match=error):
        terms.save_draft(text="Terms", changelog="new",
                         effective_date="" if effective is None else effective)
        terms.publish()


def test_a_version_cannot_take_effect_before_the_one_in_effect(runtime):
    from stratus.api.instance import terms
    from stratus.core.errors import ValidationFailed

    _publish("One", "first", _day(0))
    with pytest.raises(ValidationFailed, match="Effective date is too soon"):
        _publish("Two", "second", _day(-1))
    with pytest.raises(ValidationFailed, match="Effective date has already been taken"):
        terms.save_draft(effective_date=_day(0))
        terms.publish()


def test_users_are_told_of_a_new_version_once(client, runtime, drain, monkeypatch):
    from stratus.workers import mail

    monkeypatch.setattr(mail, "TERMS_PAGE", 2)  # three pages of users
    users = [make_user(f"user{n}") for n in range(5)]
    make_user("newbie", confirmed=False)
    make_user("waiting", approved=False)
    drain()
    runtime.mailbox.collect()  # (confirmation mails of the unconfirmed)
    published = _publish("Terms", "- what changed", _day(7), notify=True)
    later = make_user("later")  # signed up after publication: agrees by signing up
    drain()
    mails = [message_from_bytes(p.read_bytes(), policy=default_policy)
             for p in runtime.mailbox.collect()]
    assert sorted(m["To"] for m in mails) == sorted(f"user{n}@example.org" for n in range(5))
    body = mails[0].get_body(("plain",)).get_content()
    assert mails[0]["Subject"] == "Updates to our terms of service"
    assert f"take effect on {published['effective_date']}" in body
    assert re.search(rf"=> http://localhost:8000/terms-of-service/{published['effective_date']}",
                     body)
    assert "- what changed" in body
    from stratus.api.instance import terms
    from stratus.core.errors import ValidationFailed

    with pytest.raises(ValidationFailed):  # told once
        terms.notify(published["effective_date"])
    assert users and later


def test_stratusctl_terms(runtime, monkeypatch, capsys, tmp_path):
    from stratusctl import cli

    monkeypatch.setattr(cli, "connect", lambda stack: "a stack")
    text = tmp_path / "terms.md"
    text.write_text("# Terms\n\nBe nice.")
    assert cli.main(["terms", "draft", "--text-file", str(text), "--changelog", "First",
                     "--effective-date", _day(2)]) == 0
    assert cli.main(["terms", "publish"]) == 0
    assert cli.main(["terms", "list"]) == 0
    out = capsys.readouterr().out
    assert f"published the terms effective {_day(2)}" in out
    assert f"{_day(2)}\tpublished\tFirst" in out
    assert cli.main(["terms", "notify", _day(2)]) == 0
    assert cli.main(["terms", "notify", _day(2)]) == 1
    assert "users were told of it already" in capsys.readouterr().err
