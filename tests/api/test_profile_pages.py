"""Public profile pages: recent statuses, the tagged view, featured tags, 404 and 410 pages,
sanitised content and the Content-Security-Policy."""

from __future__ import annotations

from html.parser import HTMLParser

from stratus.repo import base, keys

from tests.rig import feature, post


def test_profile_page_shows_recent_public_statuses_and_featured_tags(client, people, drain):
    _, tokens = people
    alice = tokens["alice"]
    post(client, alice, status="Hello #Cats world")
    post(client, alice, status="unlisted thoughts", visibility="unlisted")
    post(client, alice, status="for followers only", visibility="private")
    post(client, alice, status="@bob a secret", visibility="direct")
    drain()
    feature(client, alice, "Cats")
    page = client.get("/@alice")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Hello" in page.text and "unlisted thoughts" in page.text
    assert "for followers only" not in page.text and "a secret" not in page.text
    assert 'href="http://localhost:8000/@alice/tagged/cats"' in page.text
    assert page.headers["cache-control"].startswith("max-age=15, public")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp  # so no script runs


def test_tagged_page_is_filtered_and_normalised_like_the_api(client, people, drain):
    _, tokens = people
    alice = tokens["alice"]
    post(client, alice, status="about #Café")
    post(client, alice, status="about nothing")
    post(client, tokens["bob"], status="bob on #café")
    drain()
    for spelling in ("café", "CAFÉ", "Cafe\u0301", "%23caf%C3%A9"):
        page = client.get(f"/@alice/tagged/{spelling}")
        assert page.status_code == 200, spelling
        assert "about" in page.text and "about nothing" not in page.text, spelling
        assert "bob on" not in page.text
    api = client.get("/api/v1/accounts/" + people[0]["alice"] + "/statuses",
                     params={"tagged": "CAFÉ"}).json()
    assert len(api) == 1 and "about" in api[0]["content"]  # the API agrees


def test_unknown_users_and_hashtags_are_404_pages(client, people, drain):
    _, tokens = people
    post(client, tokens["alice"], status="#known")
    drain()
    for path in ("/@nobody", "/@nobody/tagged/known", "/@alice/tagged/neverused",
                 "/@alice/tagged/no-dash", "/@alice/tagged/1234"):
        page = client.get(path)
        assert page.status_code == 404, path
        assert page.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/@alice/tagged/known").status_code == 200


def test_user_content_cannot_run_script(client, people, drain):
    _, tokens = people
    alice = tokens["alice"]
    client.patch("/api/v1/accounts/update_credentials", headers=alice, data={
        "display_name": "<script>alert(1)</script>", "note": "<img src=x onerror=alert(2)>",
        "fields_attributes[0][name]": "<b onclick=x>hi</b>",
        "fields_attributes[0][value]": "javascript:alert(3)"})
    post(client, alice, status="<script>alert(4)</script> **bold**",
         content_type="text/markdown")
    drain()
    page = client.get("/@alice")
    assert page.status_code == 200
    elements = Elements()
    elements.feed(page.text)
    assert "script" not in elements.tags
    assert not [a for a in elements.attributes if a[0].startswith("on")]
    assert not [a for a in elements.attributes
                if a[0] in ("href", "src") and (a[1] or "").strip().lower().startswith(
                    "javascript:")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text  # shown, as text


class Elements(HTMLParser):
    """Every element and attribute a browser would build from a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [(name.lower(), value) for name, value in attrs]


def test_a_suspended_account_is_gone(client, people):
    ids_, _ = people
    # Moderation sets suspended_at on the profile; the page honours it already.
    base.update(keys.account_profile(ids_["alice"]), "SET suspended_at = :t",
                vals={":t": "2026-01-01T00:00:00.000Z"})
    page = client.get("/@alice")
    assert page.status_code == 410 and "default-src 'none'" in page.headers[
        "content-security-policy"]
    assert client.get(f"/api/v1/accounts/{ids_['alice']}/featured_tags").json() == []
