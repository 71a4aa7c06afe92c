"""GET /api/v1/accounts/:id/statuses: filters, pagination with Link headers, public caching."""

from __future__ import annotations

import pytest

from tests.rig import auth, make_app, make_user, post, user_token


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


def test_filters_run_on_the_index_within_a_budget(client, alice, monkeypatch):
    """only_media in a mostly-text history: each request examines at most the budget of
    index entries (DynamoDB filters them, dropped ones count), answers a short page and links
    on from where it stopped, so following `next` finds everything, a budget at a time."""
    import base64

    from stratus.core import paging
    from stratus.repo.client import dynamodb

    monkeypatch.setattr(paging, "EXAMINED_PER_PAGE", 10)
    ids_, tokens = alice
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                           "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

    def with_media(text):
        media = client.post("/api/v1/media", headers=tokens["alice"],
                            files={"file": ("a.png", png, "image/png")}).json()
        return post(client, tokens["alice"], status=text, **{"media_ids[]": [media["id"]]})

    oldest = with_media("first picture")
    for i in range(25):
        post(client, tokens["alice"], status=f"words {i}")
    newest = with_media("second picture")
    scanned: list[int] = []
    dynamodb().meta.events.register("after-call.dynamodb.Query",
                                    lambda parsed, **_: scanned.append(parsed["ScannedCount"]))
    found, pages = [], 0
    url = f"/api/v1/accounts/{ids_['alice']}/statuses?only_media=true&limit=2"
    try:
        while url and pages < 10:
            scanned.clear()
            response = client.get(url)
            pages += 1
            assert sum(scanned) <= 10
            found += ids(response)
            link = response.headers.get("link", "")
            url = link.split(";")[0].strip("<>").removeprefix("http://localhost:8000") \
                if 'rel="next"' in link else None
    finally:
        dynamodb().meta.events.unregister("after-call.dynamodb.Query")
    assert found == [newest["id"], oldest["id"]]
    # 27 entries, 10 examined per request: [newest], [] (budget spent, link on), [oldest],
    # then the end (nothing left to examine: no link).
    assert pages == 4


def test_statuses_carry_the_flags_their_index_entries_are_filtered_by(client, alice):
    from stratus.repo import base, keys

    ids_, tokens = alice
    root = post(client, tokens["alice"], status="root")
    own_thread = post(client, tokens["alice"], status="more", in_reply_to_id=root["id"])
    other = post(client, tokens["bob"], status="bob", in_reply_to_id=root["id"])
    entries = {e["id"]: e for author in ids_.values()
               for e in base.query(keys.account_statuses(author), index="GSI1")}
    assert entries[root["id"]]["is_reply"] is False and entries[root["id"]]["has_media"] is False
    assert entries[own_thread["id"]]["is_reply"] is False  # a thread of one's own
    assert entries[other["id"]]["is_reply"] is True and entries[other["id"]]["is_reblog"] is False
