"""GET /api/v1/accounts/:id/statuses: filters, pagination with Link headers, public caching."""

from __future__ import annotations

import pytest

from tests.api.test_statuses import post
from tests.rig import auth, make_app, make_user, user_token


@pytest.fixture
def alice(client):
    app = make_app(client)
    ids_ = {n: make_user(n) for n in ("alice", "bob")}
    tokens = {n: auth(user_token(app, a)) for n, a in ids_.items()}
    return ids_, tokens


def ids(response):
    return [s["id"] for s in response.json()]


def test_filters(client, alice):
    ids_, tokens = alice
    plain = post(client, tokens["alice"], status="plain #Cats")
    self_reply = post(client, tokens["alice"], status="more", in_reply_to_id=plain["id"])
    other = post(client, tokens["bob"], status="bob says")
    reply_to_bob = post(client, tokens["alice"], status="hi bob", in_reply_to_id=other["id"])
    client.post(f"/api/v1/statuses/{other['id']}/reblog", headers=tokens["alice"])
    base = f"/api/v1/accounts/{ids_['alice']}/statuses"
    everything = client.get(base)
    assert everything.headers["cache-control"].startswith("max-age=15, public")
    assert len(everything.json()) == 4
    no_replies = ids(client.get(base + "?exclude_replies=true&exclude_reblogs=true"))
    assert no_replies == [self_reply["id"], plain["id"]]  # replies to oneself stay
    assert reply_to_bob["id"] not in no_replies
    assert ids(client.get(base + "?tagged=cats")) == [plain["id"]]
    assert ids(client.get(base + "?tagged=%23CATS")) == [plain["id"]]
    assert client.get("/api/v1/accounts/999/statuses").status_code == 404


def test_pagination(client, alice):
    ids_, tokens = alice
    posted = [post(client, tokens["alice"], status=f"n{i}")["id"] for i in range(7)]
    base = f"/api/v1/accounts/{ids_['alice']}/statuses"
    first = client.get(base + "?limit=3")
    assert ids(first) == posted[::-1][:3]
    link = first.headers["link"]
    assert f'max_id={posted[4]}' in link and f'min_id={posted[6]}' in link and "limit=3" in link
    second = client.get(f"{base}?limit=3&max_id={posted[4]}")
    assert ids(second) == [posted[3], posted[2], posted[1]]
    newer = client.get(f"{base}?limit=2&min_id={posted[1]}")
    assert ids(newer) == [posted[3], posted[2]]
    since = client.get(f"{base}?limit=2&since_id={posted[1]}")
    assert ids(since) == [posted[6], posted[5]]
    both = client.get(f"{base}?max_id={posted[5]}&since_id={posted[2]}")
    assert ids(both) == [posted[4], posted[3]]
    limited = client.get(f"{base}?limit=100")
    assert len(limited.json()) == 7
