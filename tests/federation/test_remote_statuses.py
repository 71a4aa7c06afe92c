"""Remote statuses (federation/remote_statuses.py): objects of remote accounts stored as
statuses through the local write path, rendered with their own uri, url and account, fanned
out to local followers, idempotent, edited, deleted only by their author."""

from __future__ import annotations

import pytest

from tests.federation import peers

LOCAL = "http://localhost:8000"
BLURHASH = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"  # 4×3 components: 28 characters


@pytest.fixture
def bob(runtime, site):
    from stratus.federation import remote_accounts

    peers.serve_actor(site)
    return remote_accounts.resolve(site.url("/users/bob"))


def test_a_note_renders_as_mastodon_renders_a_remote_status(client, people, site, bob, drain):
    from stratus.federation import remote_statuses

    ids, headers = people
    obj = peers.note(
        site, 7,
        content='<p>Hi <span class="h-card"><a href="http://localhost:8000/@alice" '
                'class="u-url mention">@<span>alice</span></a></span> '
                '<a href="https://x.example/tags/Cats" class="mention hashtag" rel="tag">'
                '#<span>Cats</span></a> :blob:<script>x()</script></p>',
        contentMap={"de": "ignored"}, summary="cw", sensitive=True,
        tag=[{"type": "Mention", "href": f"{LOCAL}/users/alice", "name": "@alice"},
             {"type": "Hashtag", "href": "https://x.example/tags/Cats", "name": "#Cats"},
             {"type": "Emoji", "name": ":blob:",
              "icon": {"type": "Image", "url": site.url("/blob.png")}}],
        attachment=[{"type": "Document", "mediaType": "image/png", "url": site.url("/p.png"),
                     "name": "a cat", "blurhash": BLURHASH, "focalPoint": [0.5, -0.25],
                     "width": 400, "height": 200}])
    status_id = remote_statuses.ingest(obj, actor=bob)
    assert status_id is not None
    assert remote_statuses.ingest(obj, actor=bob) == status_id  # idempotent
    drain()
    body = client.get(f"/api/v1/statuses/{status_id}", headers=headers["alice"]).json()
    assert body["uri"] == obj["id"] and body["url"] == site.url("/@bob/7")
    assert body["account"]["id"] == bob["id"]
    assert body["account"]["acct"] == f"bob@{peers.host(site)}"
    assert body["created_at"] == "2026-01-02T03:04:05.000Z"
    assert body["visibility"] == "public"
    assert body["spoiler_text"] == "cw" and body["sensitive"] is True
    assert body["content"] == (
        '<p>Hi <span class="h-card"><a href="http://localhost:8000/@alice" class="u-url mention"'
        ' target="_blank" rel="nofollow noopener">@<span>alice</span></a></span> '
        '<a href="https://x.example/tags/Cats" class="mention hashtag" target="_blank" '
        'rel="nofollow noopener">#<span>Cats</span></a> :blob:</p>')
    assert [m["id"] for m in body["mentions"]] == [ids["alice"]]
    assert body["tags"] == [{"name": "cats", "url": "http://localhost:8000/tags/cats"}]
    # Remote images are ours to serve (federation/remote_media.py): our proxy until we hold a
    # copy, never the remote server's URL; `remote_url` keeps the original, as Mastodon's does.
    [emoji] = body["emojis"]
    assert {k: emoji[k] for k in ("shortcode", "visible_in_picker", "category")} == {
        "shortcode": "blob", "visible_in_picker": False, "category": None}
    assert emoji["url"].startswith(f"{LOCAL}/media_proxy/emoji/{status_id}/")
    assert emoji["static_url"].startswith(f"{LOCAL}/media_proxy/emoji/{status_id}/")
    [media] = body["media_attachments"]
    assert media["type"] == "image"
    assert media["url"].startswith(f"{LOCAL}/media_proxy/attachment/{media['id']}/")
    assert media["preview_url"].startswith(f"{LOCAL}/media_proxy/attachment/{media['id']}/")
    assert media["remote_url"] == site.url("/p.png")
    assert media["description"] == "a cat" and media["blurhash"] == BLURHASH
    assert media["meta"]["focus"] == {"x": 0.5, "y": -0.25}
    assert media["meta"]["original"]["width"] == 400
    notes = client.get("/api/v1/notifications", headers=headers["alice"]).json()
    assert [(n["type"], n["status"]["id"], n["account"]["id"]) for n in notes] == [
        ("mention", status_id, bob["id"])]
    tagged = client.get("/api/v1/timelines/tag/cats").json()
    assert [s["id"] for s in tagged] == [status_id]
    remote = client.get("/api/v1/timelines/public?remote=true").json()
    assert [s["id"] for s in remote] == [status_id]
    assert client.get("/api/v1/timelines/public?local=true").json() == []


def test_local_followers_get_it_in_their_home_feed(client, people, site, bob, drain):
    from stratus.federation import remote_statuses

    from tests.rig import follow_edge

    ids, headers = people
    from stratus.repo import feeds, keys

    follow_edge(ids["carol"], bob["id"])
    for name in ("carol", "dave"):  # active feeds (a first read builds them)
        client.get("/api/v1/timelines/home", headers=headers[name])
    drain()
    status_id = remote_statuses.ingest(peers.note(site, 1), actor=bob)
    drain()
    home = client.get("/api/v1/timelines/home", headers=headers["carol"]).json()
    assert [s["id"] for s in home] == [status_id]
    assert client.get("/api/v1/timelines/home", headers=headers["dave"]).json() == []
    # a remote account has no home feed to write to
    assert feeds.entries_by(keys.home_feed(bob["id"]), {bob["id"]}, limit=10) == []
    account = client.get(f"/api/v1/accounts/{bob['id']}").json()
    assert account["statuses_count"] == 1


@pytest.mark.parametrize("to,cc,expected", [
    ([peers.PUBLIC], [], "public"),
    (["as:Public"], [], "public"),
    ([], [peers.PUBLIC], "unlisted"),
    (["FOLLOWERS"], [], "private"),
    ([f"{LOCAL}/users/alice"], [], "direct"),
])
def test_visibility_follows_the_addressing(runtime, site, bob, to, cc, expected):
    from stratus.federation import remote_statuses
    from stratus.repo import statuses as repo

    followers = site.url("/users/bob/followers")
    obj = peers.note(site, 2, to=[followers if a == "FOLLOWERS" else a for a in to], cc=cc)
    status_id = remote_statuses.ingest(obj, actor=bob)
    assert repo.get(status_id)["visibility"] == expected


def test_a_direct_status_reaches_only_who_it_is_addressed_to(client, people, site, bob, drain):
    from stratus.federation import remote_statuses

    ids, headers = people
    status_id = remote_statuses.ingest(peers.note(site, 3, to=[f"{LOCAL}/users/alice"], cc=[]),
                                       actor=bob)
    drain()
    assert client.get(f"/api/v1/statuses/{status_id}", headers=headers["alice"]).status_code == 200
    assert client.get(f"/api/v1/statuses/{status_id}", headers=headers["carol"]).status_code == 404
    assert client.get(f"/api/v1/statuses/{status_id}").status_code == 404


def test_objects_not_of_the_actor_are_refused(runtime, site, bob):
    from stratus.federation import remote_statuses
    from stratus.repo import uris

    other = peers.note(site, 4, attributedTo=site.url("/users/mallory"))
    assert remote_statuses.ingest(other, actor=bob) is None
    elsewhere = peers.note(site, 5)
    elsewhere["id"] = site.url("/users/bob/statuses/5", host="localhost")
    assert remote_statuses.ingest(elsewhere, actor=bob) is None
    assert remote_statuses.ingest({**peers.note(site, 6), "type": "Tombstone"}, actor=bob) is None
    assert uris.find(other["id"]) is None and uris.find(elsewhere["id"]) is None


def test_a_reply_fetches_its_unknown_parent(client, people, site, bob):
    from stratus.federation import remote_statuses

    parent = peers.serve_note(site, 10)
    reply = peers.note(site, 11, inReplyTo=parent["id"])
    reply_id = remote_statuses.ingest(reply, actor=bob)
    parent_id = remote_statuses.find(parent["id"])
    assert parent_id is not None and site.hits("/users/bob/statuses/10") == 1
    body = client.get(f"/api/v1/statuses/{reply_id}").json()
    assert body["in_reply_to_id"] == parent_id
    assert body["in_reply_to_account_id"] == bob["id"]
    context = client.get(f"/api/v1/statuses/{parent_id}/context").json()
    assert [s["id"] for s in context["descendants"]] == [reply_id]


def test_a_reply_to_a_local_status(client, people, site, bob, drain):
    from stratus.federation import remote_statuses

    ids, headers = people
    local = client.post("/api/v1/statuses", data={"status": "hello"},
                        headers=headers["alice"]).json()
    reply = peers.note(site, 12, inReplyTo=local["uri"])
    reply_id = remote_statuses.ingest(reply, actor=bob)
    drain()
    body = client.get(f"/api/v1/statuses/{reply_id}").json()
    assert body["in_reply_to_id"] == local["id"]
    assert body["in_reply_to_account_id"] == ids["alice"]
    assert client.get(f"/api/v1/statuses/{local['id']}").json()["replies_count"] == 1


def test_an_update_with_a_new_time_is_an_edit(client, people, site, bob, drain):
    from stratus.federation import remote_statuses

    obj = peers.note(site, 20)
    status_id = remote_statuses.ingest(obj, actor=bob)
    again = {**obj, "content": "<p>Note 20, fixed</p>", "updated": "2026-01-02T04:00:00Z"}
    assert remote_statuses.ingest(again, actor=bob) == status_id
    drain()
    body = client.get(f"/api/v1/statuses/{status_id}").json()
    assert body["content"] == "<p>Note 20, fixed</p>"
    assert body["edited_at"] == "2026-01-02T04:00:00.000Z"
    history = client.get(f"/api/v1/statuses/{status_id}/history").json()
    assert [v["content"] for v in history] == ["<p>Note 20</p>", "<p>Note 20, fixed</p>"]
    # the same version again changes nothing
    assert remote_statuses.ingest(again, actor=bob) == status_id
    assert len(client.get(f"/api/v1/statuses/{status_id}/history").json()) == 2


def test_only_the_author_deletes(client, people, site, bob, drain):
    from stratus.federation import remote_statuses
    from stratus.repo import uris

    from tests.rig import make_remote_account

    obj = peers.note(site, 30)
    status_id = remote_statuses.ingest(obj, actor=bob)
    stranger = make_remote_account("elsewhere.example", "eve")
    assert remote_statuses.delete(obj["id"], actor_id=stranger) is False
    assert client.get(f"/api/v1/statuses/{status_id}").status_code == 200
    assert remote_statuses.delete(obj["id"], actor_id=bob["id"]) is True
    drain()
    assert client.get(f"/api/v1/statuses/{status_id}").status_code == 404
    assert uris.find(obj["id"]) is None


def test_resolve_fetches_the_author_and_the_status(client, site):
    from stratus.federation import remote_statuses

    peers.serve_actor(site, "zoe")
    obj = peers.serve_note(site, 40, "zoe")
    status_id = remote_statuses.resolve(obj["id"])
    assert status_id is not None
    assert remote_statuses.resolve(obj["id"]) == status_id
    assert site.hits("/users/zoe/statuses/40") == 1
    body = client.get(f"/api/v1/statuses/{status_id}").json()
    assert body["account"]["acct"] == f"zoe@{peers.host(site)}"


def test_a_question_is_a_poll(client, people, site, bob):
    from stratus.federation import remote_statuses

    obj = peers.note(site, 50, type="Question", endTime="2030-01-01T00:00:00Z", votersCount=5,
                     oneOf=[{"type": "Note", "name": "yes", "replies": {"totalItems": 3}},
                            {"type": "Note", "name": "no", "replies": {"totalItems": 2}}])
    status_id = remote_statuses.ingest(obj, actor=bob)
    poll = client.get(f"/api/v1/statuses/{status_id}").json()["poll"]
    assert poll["options"] == [{"title": "yes", "votes_count": 3}, {"title": "no", "votes_count": 2}]
    assert poll["expires_at"] == "2030-01-01T00:00:00.000Z" and poll["expired"] is False
    assert poll["voters_count"] == 5 and poll["multiple"] is False
    counted = {**obj, "oneOf": [{"type": "Note", "name": "yes", "replies": {"totalItems": 4}},
                                {"type": "Note", "name": "no", "replies": {"totalItems": 2}}],
               "votersCount": 6}
    assert remote_statuses.update_poll(counted, bob) is True
    poll = client.get(f"/api/v1/statuses/{status_id}").json()["poll"]
    assert [o["votes_count"] for o in poll["options"]] == [4, 2] and poll["voters_count"] == 6


def test_an_article_keeps_its_name_and_link(client, site, bob):
    from stratus.federation import remote_statuses

    page = site.url("/2026/01/post")  # its page on its own host (another host's is refused)
    obj = peers.note(site, 60, type="Article", name="Title <b>", content="<p>Body</p>",
                     url=page)
    status_id = remote_statuses.ingest(obj, actor=bob)
    assert client.get(f"/api/v1/statuses/{status_id}").json()["content"] == (
        f'<p>Title &lt;b&gt;</p><p>Body</p><p><a href="{page}" '
        f'target="_blank" rel="nofollow noopener">{page}</a></p>')


def test_search_resolves_an_address_by_webfinger(client, people, site):
    ids, headers = people
    peers.serve_actor(site, "zoe")
    peers.serve_webfinger(site, "zoe")
    acct = f"zoe@{peers.host(site)}"
    anonymous = client.get("/api/v2/search", params={"q": f"@{acct}", "resolve": "true"})
    assert anonymous.status_code == 401
    assert site.requests == []
    found = client.get("/api/v2/search", params={"q": f"@{acct}", "resolve": "true"},
                       headers=headers["alice"]).json()
    assert [a["acct"] for a in found["accounts"]] == [acct]
    assert found["accounts"][0]["uri"] == site.url("/users/zoe")
    v1 = client.get("/api/v1/accounts/search", params={"q": acct, "resolve": "true"},
                    headers=headers["alice"]).json()
    assert [a["acct"] for a in v1] == [acct]
    # without resolve, only what is stored is searched
    missing = f"nobody@{peers.host(site)}"
    unresolved = client.get("/api/v2/search", params={"q": missing},
                            headers=headers["alice"]).json()
    assert unresolved["accounts"] == [] and site.hits(
        f"/.well-known/webfinger?resource=acct:{missing}") == 0


def test_search_resolves_a_url_to_an_actor_or_a_status(client, people, site):
    ids, headers = people
    peers.serve_actor(site, "zoe")
    note = peers.serve_note(site, 70, "zoe", content="<p>found me</p>")
    anonymous = client.get("/api/v2/search", params={"q": note["id"], "resolve": "true"})
    assert anonymous.status_code == 401
    found = client.get("/api/v2/search", params={"q": note["id"], "resolve": "true"},
                       headers=headers["alice"]).json()
    assert [s["uri"] for s in found["statuses"]] == [note["id"]]
    assert found["statuses"][0]["content"] == "<p>found me</p>"
    assert found["accounts"] == []
    actor = client.get("/api/v2/search", params={"q": site.url("/users/zoe"),
                                                 "resolve": "true", "type": "accounts"},
                       headers=headers["alice"]).json()
    assert [a["acct"] for a in actor["accounts"]] == [f"zoe@{peers.host(site)}"]
    assert site.hits("/users/zoe/statuses/70") == 1  # known now: not fetched again
    client.get("/api/v2/search", params={"q": note["id"], "resolve": "true"},
               headers=headers["alice"])
    assert site.hits("/users/zoe/statuses/70") == 1


def test_a_domain_whose_media_are_rejected_gets_none_stored(client, site, bob):
    from stratus.core import ids
    from stratus.federation import remote_statuses
    from stratus.repo import base
    from stratus.repo import domain_blocks as blocks_repo

    base.transact([blocks_repo.put_block_op({
        "id": ids.new_id(), "domain": "127.0.0.1", "severity": "noop", "reject_media": True,
        "reject_reports": False, "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z"})])
    obj = peers.note(site, 80, attachment=[{"type": "Document", "mediaType": "image/png",
                                            "url": site.url("/p.png")}])
    status_id = remote_statuses.ingest(obj, actor=bob)
    assert client.get(f"/api/v1/statuses/{status_id}").json()["media_attachments"] == []


def test_another_actor_cannot_take_over_a_status(client, site, bob):
    from stratus.federation import remote_accounts, remote_statuses

    obj = peers.note(site, 90)
    status_id = remote_statuses.ingest(obj, actor=bob)
    peers.serve_actor(site, "mallory")
    mallory = remote_accounts.resolve(site.url("/users/mallory"))
    forged = {**obj, "attributedTo": mallory["uri"], "content": "<p>mine</p>",
              "updated": "2026-02-01T00:00:00Z"}
    assert remote_statuses.ingest(forged, actor=mallory) is None
    body = client.get(f"/api/v1/statuses/{status_id}").json()
    assert body["content"] == "<p>Note 90</p>" and body["account"]["id"] == bob["id"]
    # nor delete it, from the same server (Mastodon's Delete finds the status by its actor)
    assert remote_statuses.delete(obj["id"], actor_id=mallory["id"]) is False
    assert client.get(f"/api/v1/statuses/{status_id}").json()["content"] == "<p>Note 90</p>"
    assert remote_statuses.delete(obj["id"], actor_id=bob["id"]) is True


def test_our_own_urls_are_never_fetched(runtime, monkeypatch):
    from stratus.federation import http, remote_statuses

    def refuse(url, **_):
        raise AssertionError(f"fetched {url}")

    monkeypatch.setattr(http, "fetch_object", refuse)
    assert remote_statuses.resolve_url(f"{LOCAL}/@alice/123") is None
    assert remote_statuses.resolve(f"{LOCAL}/users/alice/statuses/123") is None


def test_our_status_urls_name_a_status_only_with_its_own_author(client, people):
    """One parser of our status URLs (remote_statuses.local_status_id, which the inbox and
    search use): `/users/<name>/statuses/<id>` and `/@<name>/<id>` name the status only when
    <name> wrote it."""
    from stratus.core.config import settings
    from stratus.federation import remote_statuses

    _ids, tokens = people
    status = client.post("/api/v1/statuses", data={"status": "mine"},
                         headers=tokens["alice"]).json()
    base = settings().base_url
    assert remote_statuses.local_status_id(status["uri"]) == status["id"]
    assert remote_statuses.local_status_id(status["url"]) == status["id"]
    assert remote_statuses.local_status_id(f"{base}/users/bob/statuses/{status['id']}") is None
    assert remote_statuses.local_status_id(f"{base}/@bob/{status['id']}") is None
    assert remote_statuses.local_status_id(f"https://elsewhere.example/@alice/{status['id']}") \
        is None
