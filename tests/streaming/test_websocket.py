"""Streaming over the WebSocket, against the local stack on a real port: the token in
`Sec-WebSocket-Protocol` (masto 7, which needs it echoed), in `?access_token=` (megalodon, which
must get no sub-protocol back) and in `Authorization` (Mastodon.py); the frames exactly as
Mastodon sends them; blocks per subscriber; a revoked token's socket closed."""

from __future__ import annotations

import json

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.rig import LiveStack, user_token

TIMEOUT = 10


@pytest.fixture
def stack(live_server):
    made = LiveStack(live_server)
    yield made
    made.http.close()


def frames(ws, count: int) -> list[dict]:
    return [json.loads(ws.recv(timeout=TIMEOUT)) for _ in range(count)]


def test_masto_style_token_in_the_sub_protocol(stack):
    token = stack.user("alice")
    stack.user("bob")
    stack.call("alice", "POST", f"/api/v1/accounts/{stack.ids['bob']}/follow")
    stack.call("alice", "GET", "/api/v1/timelines/home")  # an active home is fed
    stack.drain()
    with connect(stack.url(), subprotocols=[token]) as ws:
        assert ws.subprotocol == token  # echoed, or masto's `ws` refuses the handshake
        ws.send(json.dumps({"type": "subscribe", "stream": "user"}))
        mine = stack.call("alice", "POST", "/api/v1/statuses", data={"status": "mine"})
        posted = stack.call("bob", "POST", "/api/v1/statuses", data={"status": "hello"})
        stack.drain()
        updates = frames(ws, 2)
        assert {f["stream"] == ["user"] and f["event"] == "update" for f in updates} == {True}
        assert list(updates[0]) == ["stream", "event", "payload"]
        statuses = {json.loads(f["payload"])["id"]: json.loads(f["payload"]) for f in updates}
        assert set(statuses) == {mine["id"], posted["id"]}
        assert statuses[posted["id"]]["favourited"] is False  # rendered for alice

        stack.call("bob", "POST", f"/api/v1/statuses/{mine['id']}/favourite")
        stack.drain()
        [note] = frames(ws, 1)
        assert note["stream"] == ["user"] and note["event"] == "notification"
        notification = json.loads(note["payload"])
        assert notification["type"] == "favourite" and notification["status"]["id"] == mine["id"]

        changed = {"stream": ["user"], "event": "filters_changed"}
        created = stack.call("alice", "POST", "/api/v2/filters", json={
            "title": "pets", "context": ["home"], "filter_action": "warn",
            "keywords_attributes": [{"keyword": "cat"}, {"keyword": "dog"}]})
        stack.drain()
        assert frames(ws, 1) == [changed]
        words = {k["keyword"]: k["id"] for k in created["keywords"]}
        stack.call("alice", "PUT", f"/api/v2/filters/{created['id']}", json={
            "keywords_attributes": [{"keyword": "bird"},
                                    {"id": words["cat"], "keyword": "kitten"},
                                    {"id": words["dog"], "_destroy": True}]})
        stack.drain()
        # One event for a PUT that added, edited and deleted keywords: the frame after it is
        # the delete below, not a second filters_changed.
        assert frames(ws, 1) == [changed]

        stack.call("bob", "DELETE", f"/api/v1/statuses/{posted['id']}")
        stack.drain()
        assert frames(ws, 1) == [{"stream": ["user"], "event": "delete",
                                  "payload": posted["id"]}]


def test_megalodon_style_token_in_the_query_gets_no_sub_protocol(stack):
    token = stack.user("alice")
    stack.call("alice", "GET", "/api/v1/timelines/home")
    with connect(stack.url(f"?stream=user&access_token={token}")) as ws:
        assert ws.subprotocol is None  # megalodon's `ws` refuses an unrequested one
        ws.ping()  # answered by the server (megalodon reconnects without a pong)
        ws.send("ping")  # not a subscription message: ignored
        posted = stack.call("alice", "POST", "/api/v1/statuses", data={"status": "hi"})
        stack.drain()
        [update] = frames(ws, 1)
        assert update["event"] == "update" and json.loads(update["payload"])["id"] == posted["id"]


def test_authorization_header_and_public_streams_respect_blocks(stack):
    stack.user("alice")
    stack.user("bob")
    stack.user("carol")
    stack.call("carol", "POST", f"/api/v1/accounts/{stack.ids['bob']}/block")
    stack.drain()
    headers = {n: {"Authorization": f"Bearer {stack.tokens[n]}"} for n in ("alice", "carol")}
    with connect(stack.url("?stream=public:local"), additional_headers=headers["alice"]) as a, \
            connect(stack.url(), additional_headers=headers["carol"]) as c:
        c.send(json.dumps({"type": "subscribe", "stream": "hashtag", "tag": "Clouds"}))
        c.send(json.dumps({"type": "subscribe", "stream": "public:local"}))
        c.send(json.dumps({"type": "subscribe", "stream": "nonsense"}))
        assert json.loads(c.recv(timeout=TIMEOUT)) == {"error": "Unknown stream type",
                                                       "status": 400}
        blocked = stack.call("bob", "POST", "/api/v1/statuses", data={"status": "#clouds yo"})
        fine = stack.call("alice", "POST", "/api/v1/statuses", data={"status": "#clouds hey"})
        stack.drain()
        seen_by_alice = frames(a, 2)
        assert {json.loads(f["payload"])["id"] for f in seen_by_alice} == \
            {blocked["id"], fine["id"]}
        assert all(f["stream"] == ["public:local"] for f in seen_by_alice)
        seen_by_carol = frames(c, 2)  # bob's status reaches neither of carol's streams
        assert {f["stream"][0] for f in seen_by_carol} == {"hashtag", "public:local"}
        assert {json.loads(f["payload"])["id"] for f in seen_by_carol} == {fine["id"]}
        hashtag = next(f for f in seen_by_carol if f["stream"][0] == "hashtag")
        assert hashtag["stream"] == ["hashtag", "Clouds"]  # the tag as carol wrote it
        assert "favourited" not in json.loads(hashtag["payload"])  # rendered for no one


def test_list_streams_are_their_owners_only(stack):
    stack.user("alice")
    stack.user("bob")
    listed = stack.call("alice", "POST", "/api/v1/lists", data={"title": "pals"})
    with connect(stack.url(f"?access_token={stack.tokens['bob']}")) as ws:
        ws.send(json.dumps({"type": "subscribe", "stream": "list", "list": listed["id"]}))
        assert json.loads(ws.recv(timeout=TIMEOUT)) == {
            "error": "Not authorized to stream this list", "status": 401}
        ws.send(json.dumps({"type": "subscribe", "stream": "hashtag"}))
        assert json.loads(ws.recv(timeout=TIMEOUT))["error"] == "Missing tag name parameter"


def test_bad_tokens_are_refused_at_the_handshake(stack):
    with pytest.raises(InvalidStatus) as refused:
        with connect(stack.url("?stream=user&access_token=nope")):
            pass
    assert refused.value.response.status_code == 401
    with pytest.raises(InvalidStatus) as anonymous:
        with connect(stack.url("?stream=public")):
            pass
    assert anonymous.value.response.status_code == 401


def test_a_revoked_token_closes_its_connections(stack):
    token = stack.user("alice")
    other = user_token(stack.app, stack.ids["alice"])
    with connect(stack.url(f"?stream=user&access_token={token}")) as doomed, \
            connect(stack.url(f"?stream=user&access_token={other}")) as kept:
        response = stack.http.post("/oauth/revoke", data={
            "client_id": stack.app.client_id, "client_secret": stack.app.client_secret,
            "token": token})
        assert response.status_code == 200
        stack.drain()
        with pytest.raises(ConnectionClosed):
            doomed.recv(timeout=TIMEOUT)
        stack.tokens["alice"] = other  # the revoked one no longer acts
        stack.call("alice", "POST", "/api/v1/filters", json={"phrase": "cat",
                                                             "context": ["home"]})
        stack.drain()
        assert frames(kept, 1) == [{"stream": ["user"], "event": "filters_changed"}]


def test_each_recipient_gets_events_through_their_own_filters(stack):
    """hide keeps an event from the recipient in the filter's context, warn marks it (with the
    matched keyword); a notification whose status is hidden for notifications is not sent."""
    stack.user("alice")
    stack.user("bob")
    stack.call("alice", "POST", f"/api/v1/accounts/{stack.ids['bob']}/follow")
    stack.call("alice", "GET", "/api/v1/timelines/home")
    stack.drain()
    stack.call("alice", "POST", "/api/v2/filters", json={
        "title": "spoilers", "context": ["home", "notifications"], "filter_action": "hide",
        "keywords_attributes": [{"keyword": "finale"}]})
    stack.call("alice", "POST", "/api/v2/filters", json={
        "title": "pets", "context": ["home", "public"], "filter_action": "warn",
        "keywords_attributes": [{"keyword": "cat", "whole_word": True}]})
    stack.drain()
    headers = {"Authorization": f"Bearer {stack.tokens['alice']}"}
    with connect(stack.url("?stream=user"), additional_headers=headers) as home, \
            connect(stack.url("?stream=public:local"), additional_headers=headers) as public:
        finale = stack.call("bob", "POST", "/api/v1/statuses",
                            data={"status": "the finale was wild"})
        cat = stack.call("bob", "POST", "/api/v1/statuses", data={"status": "my Cat sleeps"})
        mention = stack.call("bob", "POST", "/api/v1/statuses",
                             data={"status": "@alice about the finale"})  # hidden notification
        plain = stack.call("bob", "POST", "/api/v1/statuses", data={"status": "plain"})
        stack.drain()

        on_home = frames(home, 2)  # the finale post, the mention: not sent
        assert [(f["event"], json.loads(f["payload"])["id"]) for f in on_home] == [
            ("update", cat["id"]), ("update", plain["id"])]
        [warned] = json.loads(on_home[0]["payload"])["filtered"]
        assert warned["filter"]["title"] == "pets" and warned["keyword_matches"] == ["Cat"]
        assert json.loads(on_home[1]["payload"])["filtered"] == []

        on_public = {json.loads(f["payload"])["id"]: json.loads(f["payload"])
                     for f in frames(public, 4)}  # hide is not for public: all four come
        assert set(on_public) == {finale["id"], cat["id"], mention["id"], plain["id"]}
        assert [r["filter"]["title"] for r in on_public[cat["id"]]["filtered"]] == ["pets"]
        with pytest.raises(TimeoutError):
            home.recv(timeout=1)  # nothing else came: no notification for the hidden mention


def test_an_edit_reaches_the_list_streams_that_hold_the_status(stack):
    stack.user("alice")
    stack.user("bob")
    stack.call("alice", "POST", f"/api/v1/accounts/{stack.ids['bob']}/follow")
    listed = stack.call("alice", "POST", "/api/v1/lists", data={"title": "pals"})
    stack.call("alice", "POST", f"/api/v1/lists/{listed['id']}/accounts",
               data={"account_ids[]": stack.ids["bob"]})
    stack.call("alice", "GET", "/api/v1/timelines/home")  # an active user's lists are fed
    stack.drain()
    headers = {"Authorization": f"Bearer {stack.tokens['alice']}"}
    with connect(stack.url(f"?stream=list&list={listed['id']}"),
                 additional_headers=headers) as ws:
        posted = stack.call("bob", "POST", "/api/v1/statuses", data={"status": "first take"})
        stack.drain()
        [update] = frames(ws, 1)
        assert update["stream"] == ["list", listed["id"]] and update["event"] == "update"
        stack.call("bob", "PUT", f"/api/v1/statuses/{posted['id']}",
                   data={"status": "second take"})
        stack.drain()
        [edited] = frames(ws, 1)
        assert edited["stream"] == ["list", listed["id"]]
        assert edited["event"] == "status.update"
        payload = json.loads(edited["payload"])
        assert payload["id"] == posted["id"] and "second take" in payload["content"]
