"""The profile page as Mastodon's shows it (header, avatar, custom emoji, fields and their
verification marks, pinned posts, media, content warnings, boosts, pages), the hashtag page,
the RSS feeds, and every link the API hands out opening a page in a browser."""

from __future__ import annotations

from html.parser import HTMLParser
from xml.etree import ElementTree

from stratus.api.instance import emojis
from stratus.repo import base, keys

from tests.rig import feature, images, post

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
MEDIA = "{http://search.yahoo.com/mrss/}"


class Links(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.alternates: dict[str, str] = {}
        self.images: list[dict[str, str | None]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.hrefs.append(found["href"])
        if tag == "link" and found.get("rel") == "alternate":
            self.alternates[found["type"]] = found["href"]
        if tag == "img":
            self.images.append(found)


def upload(client, headers, description: str) -> str:
    response = client.post("/api/v2/media", headers=headers,
                           files={"file": ("pic.png", images.png(), "image/png")},
                           data={"description": description})
    assert response.status_code == 200, response.text
    return response.json()["id"]


def test_the_profile_page_shows_what_mastodons_shows(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    emojis.import_emoji("blobcat", images.png(16, 16))
    assert client.patch("/api/v1/accounts/update_credentials", headers=alice, data={
        "display_name": "Alice :blobcat:", "note": "I like #Boxes",
        "fields_attributes[0][name]": "Site", "fields_attributes[0][value]": "https://alice.example",
        "fields_attributes[1][name]": "Pronouns", "fields_attributes[1][value]": "she/her"},
        files={"avatar": ("a.png", images.png(80, 80), "image/png"),
               "header": ("h.png", images.png(300, 100), "image/png")}).status_code == 200
    # The link verification worker's finding (rel="me" back from the site), as it stores it.
    profile = base.get(keys.account_profile(ids_["alice"]))
    fields = profile["fields"]
    fields[0]["verified_at"] = "2026-01-01T00:00:00.000Z"
    base.update(keys.account_profile(ids_["alice"]), "SET #f = :f", names={"#f": "fields"},
                vals={":f": fields})
    pinned = post(client, alice, status="read this first")
    client.post(f"/api/v1/statuses/{pinned['id']}/pin", headers=alice)
    post(client, alice, status="with a picture", **{"media_ids[]": [upload(client, alice, "box")]})
    post(client, alice, status="hidden words", spoiler_text="careful")
    bobs = post(client, tokens["bob"], status="bob's thought")
    client.post(f"/api/v1/statuses/{bobs['id']}/reblog", headers=alice)
    for n in range(20):
        post(client, alice, status=f"filler {n}")
    drain()
    account = client.get(f"/api/v1/accounts/{ids_['alice']}").json()
    page = client.get("/@alice", headers=BROWSER)
    assert page.status_code == 200
    text = page.text
    links = Links(text)
    assert account["header"] in [i["src"] for i in links.images]
    assert account["avatar"] in [i["src"] for i in links.images]
    assert '<img class="emoji" src="' in text and 'alt=":blobcat:"' in text  # in the name
    assert "Alice" in text and "#Boxes" in text.replace("<span>", "").replace("</span>", "")
    verified = text.index('class="verified"')
    assert text.index("Site") > verified and 'aria-label="Verified link"' in text
    assert text.count('aria-label="Verified link"') == 1  # Pronouns is not a link
    assert text.index("Pinned") < text.index("read this first") < text.index("Posts</h2>")
    assert "filler 19" in text and "filler 0" in text  # a page of 20, newest first
    assert "careful" not in text
    older = [h for h in links.hrefs if h.startswith("?max_id=")]
    assert len(older) == 1
    second = client.get("/@alice" + older[0])
    assert "filler 0" not in second.text and "careful" in second.text
    assert "<summary>careful" in second.text and 'alt="box"' in second.text
    assert "boosted" in second.text and "bob&#39;s thought" in second.text
    assert any(h.startswith("?min_id=") for h in Links(second.text).hrefs)  # newer posts
    assert links.alternates["application/rss+xml"] == "http://localhost:8000/@alice.rss"
    assert links.alternates["application/activity+json"] == account["uri"]


def test_hashtag_pages_and_profiles_link_to_each_other(client, people, drain):
    _, tokens = people
    alice = tokens["alice"]
    tagged = post(client, alice, status="about #Cats")
    post(client, tokens["bob"], status="bob likes #cats too")
    post(client, alice, status="quiet #cats", visibility="unlisted")
    post(client, alice, status="secret #cats", visibility="private")
    drain()
    feature(client, alice, "cats")
    page = client.get("/tags/cats", headers=BROWSER)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"].startswith("max-age=15, public")
    assert "about" in page.text and "bob likes" in page.text
    # The hashtag timeline's rule: public statuses only.
    assert "quiet" not in page.text and "secret" not in page.text
    hrefs = Links(page.text).hrefs
    assert "http://localhost:8000/@alice" in hrefs and tagged["url"] in hrefs
    assert client.get("/tags/CATS").status_code == 200
    for missing in ("/tags/neverused", "/tags/no-dash", "/tags/1234"):
        assert client.get(missing).status_code == 404, missing
    profile = Links(client.get("/@alice").text).hrefs
    assert "http://localhost:8000/@alice/tagged/cats" in profile  # the featured tag
    assert "http://localhost:8000/tags/cats" in profile  # the hashtag in the post
    mine = Links(client.get("/@alice/tagged/cats").text).hrefs
    assert "http://localhost:8000/tags/cats" in mine and "http://localhost:8000/@alice" in mine


def test_rss_feeds_of_accounts_and_hashtags(client, people, drain):
    _, tokens = people
    alice = tokens["alice"]
    first = post(client, alice, status="first #Cats")
    post(client, alice, status="mine only", visibility="private")
    bobs = post(client, tokens["bob"], status="bob #cats")
    post(client, alice, status="@bob a reply", in_reply_to_id=bobs["id"])
    client.post(f"/api/v1/statuses/{bobs['id']}/reblog", headers=alice)
    pictured = post(client, alice, status="picture #cats", spoiler_text="cw",
                    **{"media_ids[]": [upload(client, alice, "a blue box")]})
    drain()
    feed = client.get("/@alice.rss")
    assert feed.status_code == 200
    assert feed.headers["content-type"] == "application/rss+xml; charset=utf-8"
    assert feed.headers["cache-control"] == "max-age=60, public"
    channel = ElementTree.fromstring(feed.content).find("channel")
    assert channel.findtext("title") == "alice"
    assert channel.findtext("link") == "http://localhost:8000/@alice"
    assert channel.findtext("description") == "Public posts from @alice@localhost:8000"
    items = channel.findall("item")
    # Mastodon's account feed: public and unlisted, no replies, no boosts, newest first.
    assert [i.findtext("link") for i in items] == [pictured["url"], first["url"]]
    newest = items[0]
    assert newest.findtext("guid") == pictured["url"]
    assert newest.find("guid").get("isPermaLink") == "true"
    assert "<strong>Content warning:</strong> cw" in newest.findtext("description")
    assert [c.text for c in newest.findall("category")] == ["cats"]
    media = newest.find(f"{MEDIA}content")
    assert media.get("url") == pictured["media_attachments"][0]["url"]
    assert media.get("medium") == "image" and media.get("type") == "image/png"
    assert media.findtext(f"{MEDIA}description") == "a blue box"
    assert media.find(f"{MEDIA}thumbnail").get("url") == \
        pictured["media_attachments"][0]["preview_url"]
    one = ElementTree.fromstring(client.get("/@alice.rss?limit=1").content)
    assert len(one.find("channel").findall("item")) == 1
    tag = client.get("/tags/cats.rss")
    assert tag.status_code == 200 and tag.headers["cache-control"] == "max-age=0, public"
    links = [i.findtext("link") for i in
             ElementTree.fromstring(tag.content).find("channel").findall("item")]
    assert links == [pictured["url"], bobs["url"], first["url"]]
    tagged = ElementTree.fromstring(client.get("/@alice/tagged/cats.rss").content)
    assert len(tagged.find("channel").findall("item")) == 2
    for missing in ("/@nobody.rss", "/tags/neverused.rss"):
        assert client.get(missing).status_code == 404
    assert Links(client.get("/tags/cats").text).alternates["application/rss+xml"] == \
        "http://localhost:8000/tags/cats.rss"


def test_every_link_the_api_hands_out_opens_a_page(client, people, drain):
    ids_, tokens = people
    alice = tokens["alice"]
    root = post(client, alice, status="hello @bob #Walk")
    post(client, tokens["bob"], status="@alice back at you #walk", in_reply_to_id=root["id"])
    feature(client, alice, "walk")
    drain()
    statuses = client.get("/api/v1/timelines/public").json()
    urls = set()
    for status in statuses:
        urls |= {status["url"], status["uri"], status["account"]["url"]}
        urls |= {t["url"] for t in status["tags"]} | {m["url"] for m in status["mentions"]}
    urls |= {t["url"] for t in client.get(f"/api/v1/accounts/{ids_['alice']}/featured_tags"
                                          ).json()}
    urls |= {client.get("/api/v1/tags/walk", headers=alice).json()["url"]}
    urls.add(client.get("/api/v1/accounts/verify_credentials", headers=alice).json()["url"])
    assert len(urls) >= 8
    for url in sorted(urls):
        page = client.get(url, headers=BROWSER)  # redirects followed, as a browser does
        assert page.status_code == 200, url
        assert page.headers["content-type"].startswith("text/html"), url
