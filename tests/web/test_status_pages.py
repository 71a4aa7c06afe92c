"""A status's page at its `url` (what every client's "Open in browser" and "Share" opens): the
post, its media with their descriptions, its poll, its content warning collapsed, the thread,
the OpenGraph meta preview cards read; what it refuses (private, direct, deleted, another
account's, a suspended author); `/users/:name/statuses/:id` for browsers; the embed and oEmbed;
one render a minute."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import quote

from stratus.repo import base, keys

from tests.rig import count_dynamodb_calls, deliver, images, post

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
AP = {"Accept": "application/activity+json"}


class Page(HTMLParser):
    """What a preview-card fetcher reads of a page: its meta properties, links and images."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.meta: dict[str, list[str]] = {}
        self.links: list[dict[str, str | None]] = []
        self.images: list[dict[str, str | None]] = []
        self.tags: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        self.tags.append(tag)
        if tag == "meta" and (found.get("property") or found.get("name")):
            self.meta.setdefault(found.get("property") or found["name"], []).append(
                found.get("content") or "")
        elif tag == "link":
            self.links.append(found)
        elif tag == "img":
            self.images.append(found)


def upload(client, headers, description: str) -> str:
    response = client.post("/api/v2/media", headers=headers,
                           files={"file": ("pic.png", images.png(), "image/png")},
                           data={"description": description})
    assert response.status_code == 200, response.text
    return response.json()["id"]


def test_a_status_link_opens_its_page_with_thread_media_and_preview_meta(client, people, drain):
    _, tokens = people
    root = post(client, tokens["bob"], status="what do you see?")
    media_id = upload(client, tokens["alice"], "a blue box on white")
    status = post(client, tokens["alice"], status="A box! #Boxes", in_reply_to_id=root["id"],
                  language="en", **{"media_ids[]": [media_id]})
    reply = post(client, tokens["carol"], status="@alice lovely", in_reply_to_id=status["id"])
    drain()
    assert status["url"] == f"http://localhost:8000/@alice/{status['id']}"
    page = client.get(status["url"], headers=BROWSER)
    assert page.status_code == 200, page.text
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "max-age=10, public"  # StatusesController#show
    assert "Accept" in page.headers["vary"]
    assert page.headers["link"] == (f'<{status["uri"]}>; rel="alternate"; '
                                    'type="application/activity+json"')
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp
    assert "frame-ancestors 'none'" in csp
    parsed = Page(page.text)
    assert "script" not in parsed.tags
    assert "A box!" in page.text and "what do you see?" in page.text and "lovely" in page.text
    body = page.text[page.text.index("<body>"):]
    assert body.index("what do you see?") < body.index("A box!") < body.index("lovely")
    shown = [i for i in parsed.images if i.get("alt") == "a blue box on white"]
    assert shown and shown[0]["src"] == status["media_attachments"][0]["preview_url"]
    meta = parsed.meta
    assert meta["og:type"] == ["article"]
    assert meta["og:title"] == ["alice (@alice@localhost:8000)"]
    assert meta["og:url"] == [status["url"]]
    assert meta["profile:username"] == ["alice@localhost:8000"]
    assert meta["og:description"] == ["Attached: 1 image\n\nA box! #Boxes"]
    assert meta["description"] == meta["og:description"]
    assert meta["og:image"] == [status["media_attachments"][0]["url"]]
    assert meta["og:image:alt"] == ["a blue box on white"]
    assert meta["og:image:width"] == ["64"] and meta["og:image:height"] == ["48"]
    assert meta["og:locale"] == ["en"] and meta["twitter:card"] == ["summary_large_image"]
    oembed = [link["href"] for link in parsed.links if link.get("type") ==
              "application/json+oembed"]
    assert oembed == [f"http://localhost:8000/api/oembed?url={quote(status['url'], safe='')}"
                      "&format=json"]
    assert {link["href"] for link in parsed.links if link.get("type") ==
            "application/activity+json"} == {status["uri"]}
    # Every link on it opens a page too: the author, the hashtag, the reply.
    assert 'href="http://localhost:8000/@alice"' in page.text
    assert 'href="http://localhost:8000/tags/boxes"' in page.text
    assert f'href="{reply["url"]}"' in page.text
    # Servers still get the Note at the same URL.
    note = client.get(status["url"], headers=AP)
    assert note.status_code == 200 and note.json()["id"] == status["uri"]


def test_content_warning_collapsed_poll_and_sensitive_media(client, people, drain):
    _, tokens = people
    warned = post(client, tokens["alice"], status="the ending", spoiler_text="film spoilers")
    poll = post(client, tokens["alice"], status="tea or coffee?",
                **{"poll[options][]": ["tea", "coffee"], "poll[expires_in]": "3600"})
    client.post(f"/api/v1/polls/{poll['poll']['id']}/votes", headers=tokens["bob"],
                data={"choices[]": ["0"]})
    sensitive = post(client, tokens["alice"], status="look", sensitive="true",
                     **{"media_ids[]": [upload(client, tokens["alice"], "a box")]})
    drain()
    page = client.get(warned["url"])
    assert page.status_code == 200
    summary = page.text.index("<summary>film spoilers")
    assert page.text.index('<details class="cw">') < summary < page.text.index("the ending")
    meta = Page(page.text).meta
    # Mastodon's status_description: a warning hides the text from previews too.
    assert meta["og:description"] == ["Content warning: film spoilers"]
    assert "the ending" not in page.text[:page.text.index("<body>")]
    page = client.get(poll["url"])
    assert "tea" in page.text and "coffee" in page.text and "1 person" in page.text
    assert Page(page.text).meta["og:description"] == ["tea or coffee?\n\n[ ] tea\n[ ] coffee"]
    page = client.get(sensitive["url"])
    assert '<details class="sensitive"><summary>Sensitive content</summary>' in page.text
    meta = Page(page.text).meta
    assert "og:image" not in meta and meta["twitter:card"] == ["summary"]  # not previewed


def test_private_direct_deleted_and_foreign_statuses_answer_mastodons_pages(
        client, people, drain):
    ids_, tokens = people
    private = post(client, tokens["alice"], status="followers secret", visibility="private")
    direct = post(client, tokens["alice"], status="@bob direct secret", visibility="direct")
    deleted = post(client, tokens["alice"], status="soon gone")
    public = post(client, tokens["alice"], status="out in the open")
    assert client.delete(f"/api/v1/statuses/{deleted['id']}",
                         headers=tokens["alice"]).status_code == 200
    drain()
    for path in (private["url"], direct["url"], deleted["url"], f"/@bob/{public['id']}",
                 "/@alice/123", "/@alice/nonsense", f"/@nobody/{public['id']}",
                 private["url"] + "/embed", direct["url"] + "/embed"):
        page = client.get(path, headers=BROWSER)
        assert page.status_code == 404, path
        assert page.headers["content-type"].startswith("text/html"), path
        assert "secret" not in page.text and "soon gone" not in page.text, path
        assert "Not found" in page.text
    # A suspended author: Mastodon's 410, and nothing of the status.
    base.update(keys.account_profile(ids_["alice"]), "SET suspended_at = :t",
                vals={":t": "2026-01-01T00:00:00.000Z"})
    page = client.get(public["url"], headers=BROWSER)
    assert page.status_code == 410 and "out in the open" not in page.text


def test_browsers_at_the_status_uri_go_to_its_page_and_boosts_to_the_original(
        client, people, drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="original words")
    boost = client.post(f"/api/v1/statuses/{status['id']}/reblog", headers=tokens["bob"]).json()
    drain()
    moved = client.get(status["uri"], headers=BROWSER, follow_redirects=False)
    assert moved.status_code == 301 and moved.headers["location"] == status["url"]
    assert "Accept" in moved.headers["vary"]
    assert client.get(status["uri"], headers=AP).json()["type"] == "Note"
    boosted = client.get(f"/@bob/{boost['id']}", headers=BROWSER, follow_redirects=False)
    assert boosted.status_code == 302 and boosted.headers["location"] == status["url"]


def test_the_embed_and_oembed(client, people, drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="embed me")
    private = post(client, tokens["alice"], status="not me", visibility="private")
    drain()
    answer = client.get("/api/oembed", params={"url": status["url"], "maxwidth": "300"})
    assert answer.status_code == 200
    body = answer.json()
    embed = f"{status['url']}/embed"
    assert body == {"type": "rich", "version": "1.0", "author_name": "alice",
                    "author_url": "http://localhost:8000/@alice",
                    "provider_name": "localhost:8000",
                    "provider_url": "http://localhost:8000/", "cache_age": 86400,
                    "html": body["html"], "width": 300, "height": None}
    assert body["html"].startswith(f'<iframe src="{embed}" class="mastodon-embed"')
    assert client.get("/api/oembed", params={"url": status["uri"]}).status_code == 200
    for url in (private["url"], status["url"].replace("localhost:8000", "evil.example"),
                "not a url", "http://localhost:8000/@alice/nonsense", ""):
        refused = client.get("/api/oembed", params={"url": url})
        assert refused.status_code == 404 and refused.json() == {"error": "Record not found"}
    page = client.get(embed)
    assert page.status_code == 200 and "embed me" in page.text
    assert page.headers["cache-control"] == "max-age=180, public"
    assert "frame-ancestors" not in page.headers["content-security-policy"]  # framed by others
    assert "x-frame-options" not in page.headers


def test_a_page_is_rendered_once_a_minute(client, people, drain):
    _, tokens = people
    status = post(client, tokens["alice"], status="viral")
    drain()
    assert client.get(status["url"]).status_code == 200
    calls, stop = count_dynamodb_calls()
    try:
        again = client.get(status["url"])
    finally:
        stop()
    assert again.status_code == 200 and "viral" in again.text
    assert calls == []  # the second reader costs no read


def test_attack_a_remote_reply_cannot_run_script_or_break_out_with_an_emoji(
        client, people, drain, peer):
    """A hostile server's reply in the thread: markup that runs script, and a custom emoji whose
    shortcode sits inside a link's address (an emoji image written there would end the
    attribute and open a new tag)."""
    _, tokens = people
    status = post(client, tokens["alice"], status="anyone there?")
    evil = peer.note(
        '<p><a href="https://peer.example/:evil:">:evil:</a> says hi '
        '<script>alert(1)</script><img src=x onerror=alert(2)>'
        '<a href="javascript:alert(3)">click</a></p>',
        inReplyTo=status["uri"],
        tag=[{"type": "Emoji", "name": ":evil:", "id": "https://peer.example/emoji/evil",
              "icon": {"type": "Image", "mediaType": "image/png",
                       "url": 'https://peer.example/e.png"><script>alert(4)</script>'}}])
    deliver(client, drain, peer, peer.activity("Create", evil))
    page = client.get(status["url"])
    assert page.status_code == 200 and "says hi" in page.text  # the reply is in the thread
    parsed = Page(page.text)
    assert "script" not in parsed.tags
    assert "alert(" not in page.text.replace("&lt;script&gt;alert(1)&lt;/script&gt;", "")
    assert 'href="https://peer.example/:evil:"' in page.text  # the address is left alone
    emojis = [i for i in parsed.images if i.get("class") == "emoji"]
    assert len(emojis) == 1 and emojis[0]["alt"] == ":evil:"  # only in the text
    assert "<script" not in emojis[0]["src"]
