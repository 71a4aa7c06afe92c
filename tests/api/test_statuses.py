"""Posting and reading statuses: text rendering, limits, replies, visibility, edits, deletion."""

from __future__ import annotations

import pytest

from tests.rig import auth, follow, make_app, post, user_token


def test_post_plain_text(client, people, entity, drain):
    ids_, tokens = people
    body = post(client, tokens["alice"], status="Hello @bob, see https://example.com #Clouds\n\nbye")
    entity("Status", body)
    assert body["account"]["id"] == ids_["alice"]
    assert body["visibility"] == "public" and body["sensitive"] is False
    assert body["url"] == f"http://localhost:8000/@alice/{body['id']}"
    assert body["uri"] == f"http://localhost:8000/users/alice/statuses/{body['id']}"
    assert body["content"].startswith('<p>Hello <span class="h-card" translate="no"><a href="http://localhost:8000/@bob" class="u-url mention">@<span>bob</span></a></span>')
    assert 'rel="nofollow noopener"' in body["content"] and "</p><p>bye</p>" in body["content"]
    assert body["mentions"] == [{"id": ids_["bob"], "username": "bob", "acct": "bob",
                                 "url": "http://localhost:8000/@bob"}]
    assert body["tags"] == [{"name": "clouds", "url": "http://localhost:8000/tags/clouds"}]
    assert body["application"]["name"] == "Test client"
    assert body["favourited"] is False and body["pinned"] is False
    assert body["replies_count"] == 0 and body["card"] is None and body["poll"] is None
    assert client.get(f"/api/v1/statuses/{body['id']}").json()["application"] == \
        {"name": "Test client", "website": None}
    drain()  # counters follow from the stream
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["alice"]).json()
    assert me["statuses_count"] == 1 and me["last_status_at"] == body["created_at"][:10]
    assert client.get("/nodeinfo/2.0").json()["usage"]["localPosts"] == 1


def test_markdown_and_sanitising(client, people):
    _, tokens = people
    body = post(client, tokens["alice"], status="**bold** <script>alert(1)</script> [x](javascript:alert(1))",
                content_type="text/markdown")
    assert "<strong>bold</strong>" in body["content"]
    assert "<script>" not in body["content"] and "&lt;script&gt;" in body["content"]
    assert "href=\"javascript" not in body["content"]
    plain = post(client, tokens["alice"], status="<b onclick=x>hi</b>")
    assert plain["content"] == "<p>&lt;b onclick=x&gt;hi&lt;/b&gt;</p>"


@pytest.mark.parametrize("data, message", [
    ({"status": ""}, "Text can't be blank"),
    ({"status": "x" * 501}, "character limit"),
    ({"status": "x", "visibility": "everyone"}, "Visibility"),
    ({"status": "x", "content_type": "text/html"}, "Content type"),
    ({"status": "x", "poll[options][]": ["a"], "poll[expires_in]": "300"}, "at least 2"),
    ({"status": "x", "poll[options][]": ["a", "b", "c", "d", "e"], "poll[expires_in]": "300"}, "more than 4"),
    ({"status": "x", "poll[options][]": ["a", "b" * 51], "poll[expires_in]": "300"}, "longer than 50"),
    ({"status": "x", "poll[options][]": ["a", "b"], "poll[expires_in]": "60"}, "too short"),
    ({"status": "x", "poll[options][]": ["a", "b"], "poll[expires_in]": "99999999"}, "too long"),
    ({"status": "x", "media_ids[]": ["1"]}, "could not be found"),
])
def test_invalid_statuses_are_422(client, people, data, message):
    response = client.post("/api/v1/statuses", headers=people[1]["alice"], data=data)
    assert response.status_code == 422, response.text
    assert message in response.json()["error"]


def test_urls_count_as_23_characters(client, people):
    text = "x" * 470 + " https://example.com/" + "a" * 200
    assert client.post("/api/v1/statuses", headers=people[1]["alice"],
                       data={"status": text}).status_code == 200


def test_allowed_mentions_guard(client, people):
    ids_, tokens = people
    response = client.post("/api/v1/statuses", headers=tokens["alice"], json={
        "status": "hi @bob @carol", "allowed_mentions": [ids_["bob"]]})
    assert response.status_code == 422
    assert [a["id"] for a in response.json()["unexpected_accounts"]] == [ids_["carol"]]
    ok = client.post("/api/v1/statuses", headers=tokens["alice"], json={
        "status": "hi @bob", "allowed_mentions": [ids_["bob"]]})
    assert ok.status_code == 200


def test_idempotency_key(client, people):
    headers = {**people[1]["alice"], "Idempotency-Key": "abc-123"}
    first = client.post("/api/v1/statuses", headers=headers, data={"status": "once"}).json()
    second = client.post("/api/v1/statuses", headers=headers, data={"status": "once"}).json()
    assert first["id"] == second["id"]
    other = client.post("/api/v1/statuses", headers={**people[1]["bob"], "Idempotency-Key": "abc-123"},
                        data={"status": "once"}).json()
    assert other["id"] != first["id"]


def test_replies_and_context(client, people, entity, drain):
    _, tokens = people
    root = post(client, tokens["alice"], status="root")
    reply = post(client, tokens["bob"], status="reply", in_reply_to_id=root["id"])
    assert reply["in_reply_to_id"] == root["id"]
    assert reply["in_reply_to_account_id"] == root["account"]["id"]
    deeper = post(client, tokens["carol"], status="deeper", in_reply_to_id=reply["id"])
    hidden = post(client, tokens["dave"], status="secret", in_reply_to_id=root["id"],
                  visibility="direct")
    drain()
    # Mastodon counts public and unlisted replies only: the direct one is not counted.
    assert client.get(f"/api/v1/statuses/{root['id']}").json()["replies_count"] == 1
    assert client.get("/api/v1/accounts/verify_credentials",
                      headers=tokens["dave"]).json()["statuses_count"] == 0
    context = client.get(f"/api/v1/statuses/{reply['id']}/context")
    entity("Context", context.json())
    assert [s["id"] for s in context.json()["ancestors"]] == [root["id"]]
    assert [s["id"] for s in context.json()["descendants"]] == [deeper["id"]]
    root_context = client.get(f"/api/v1/statuses/{root['id']}/context").json()
    assert [s["id"] for s in root_context["descendants"]] == [reply["id"], deeper["id"]]
    as_dave = client.get(f"/api/v1/statuses/{root['id']}/context", headers=tokens["dave"]).json()
    assert hidden["id"] in [s["id"] for s in as_dave["descendants"]]
    missing = client.post("/api/v1/statuses", headers=tokens["bob"],
                          data={"status": "x", "in_reply_to_id": "999"})
    assert missing.status_code == 404


VISIBILITY_CASES = {
    # viewer: (public, unlisted, private, direct mentioning bob)
    "author": (True, True, True, True),
    "follower": (True, True, True, False),
    "mentioned": (True, True, True, True),
    "stranger": (True, True, False, False),
    "anonymous": (True, True, False, False),
}


@pytest.mark.parametrize("viewer", list(VISIBILITY_CASES))
def test_visibility_policy(client, people, viewer):
    ids_, tokens = people
    follow(client, tokens["carol"], ids_["alice"])
    statuses = [post(client, tokens["alice"], status=f"{v} hi @bob", visibility=v)
                for v in ("public", "unlisted", "private", "direct")]
    headers = {"author": tokens["alice"], "follower": tokens["carol"], "mentioned": tokens["bob"],
               "stranger": tokens["dave"], "anonymous": {}}[viewer]
    seen = tuple(client.get(f"/api/v1/statuses/{s['id']}", headers=headers).status_code == 200
                 for s in statuses)
    assert seen == VISIBILITY_CASES[viewer]
    for status, visible in zip(statuses, VISIBILITY_CASES[viewer]):
        if not visible:
            response = client.get(f"/api/v1/statuses/{status['id']}", headers=headers)
            assert response.status_code == 404 and response.json() == {"error": "Record not found"}
    listed = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses", headers=headers).json()
    assert {s["id"] for s in listed} == {s["id"] for s, v in zip(statuses, seen) if v}
    many = client.get("/api/v1/statuses?" + "&".join(f"id[]={s['id']}" for s in statuses),
                      headers=headers).json()
    assert [s["id"] for s in many] == [s["id"] for s, v in zip(statuses, seen) if v]


def test_edit_history_and_source(client, people, entity):
    _, tokens = people
    status = post(client, tokens["alice"], status="first #one", spoiler_text="cw")
    response = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
                          data={"status": "second #two", "spoiler_text": "", "sensitive": "true"})
    assert response.status_code == 200, response.text
    edited = response.json()
    assert edited["edited_at"] and edited["content"].startswith("<p>second")
    assert [t["name"] for t in edited["tags"]] == ["two"] and edited["sensitive"] is True
    history = client.get(f"/api/v1/statuses/{status['id']}/history").json()
    assert [h["content"][:9] for h in history] == ["<p>first ", "<p>second"]
    for version in history:
        entity("StatusEdit", version)
    assert history[0]["spoiler_text"] == "cw"
    source = client.get(f"/api/v1/statuses/{status['id']}/source", headers=tokens["alice"])
    entity("StatusSource", source.json())
    assert source.json() == {"id": status["id"], "text": "second #two", "spoiler_text": ""}
    other = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["bob"],
                       data={"status": "hijack"})
    assert other.status_code == 404
    unedited = post(client, tokens["alice"], status="never edited")
    assert len(client.get(f"/api/v1/statuses/{unedited['id']}/history").json()) == 1


def test_delete_returns_source_and_disappears(client, people, drain):
    _, tokens = people
    root = post(client, tokens["alice"], status="root")
    reply = post(client, tokens["bob"], status="reply text", in_reply_to_id=root["id"])
    drain()
    assert client.delete(f"/api/v1/statuses/{reply['id']}", headers=tokens["alice"]).status_code == 404
    deleted = client.delete(f"/api/v1/statuses/{reply['id']}", headers=tokens["bob"])
    assert deleted.status_code == 200 and deleted.json()["text"] == "reply text"
    assert client.get(f"/api/v1/statuses/{reply['id']}").status_code == 404
    assert client.get(f"/api/v1/statuses/{root['id']}/context").json()["descendants"] == []
    drain()
    assert client.get(f"/api/v1/statuses/{root['id']}").json()["replies_count"] == 0
    me = client.get("/api/v1/accounts/verify_credentials", headers=tokens["bob"]).json()
    assert me["statuses_count"] == 0
    assert client.get("/nodeinfo/2.0").json()["usage"]["localPosts"] == 1


def test_scopes_on_statuses(client, people):
    ids_, _ = people
    app = make_app(client, name="Scopes")
    read_only = auth(user_token(app, ids_["alice"], scopes=("read",)))
    response = client.post("/api/v1/statuses", headers=read_only, data={"status": "x"})
    assert response.status_code == 403
    assert client.post("/api/v1/statuses", data={"status": "x"}).status_code == 401


def test_editing_in_a_mention_notifies_once(client, people, drain):
    from stratus.repo import effects

    ids_, tokens = people
    status = post(client, tokens["alice"], status="plain words")
    drain()
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "now with @bob #added"})
    drain()
    assert [n["notification_type"] for n in effects.notifications(ids_["bob"])] == ["mention"]
    client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
               data={"status": "still @bob"})
    drain()
    assert len(effects.notifications(ids_["bob"])) == 1
    listed = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses?tagged=nothing").json()
    assert listed == []


def test_source_with_an_app_token_sees_public_statuses_only(client, people):
    from tests.rig import app_token

    _, tokens = people
    app = make_app(client, name="Reader", scopes="read")
    token = auth(app_token(client, app, scope="read"))
    public = post(client, tokens["alice"], status="open")
    private = post(client, tokens["alice"], status="closed", visibility="private")
    assert client.get(f"/api/v1/statuses/{public['id']}/source", headers=token).json()["text"] == "open"
    assert client.get(f"/api/v1/statuses/{private['id']}/source", headers=token).status_code == 404
    assert client.get(f"/api/v1/statuses/{public['id']}/source").status_code == 401
