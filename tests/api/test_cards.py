"""Preview cards through the whole stack: a new or edited local status's first link is fetched
by the cards worker (from the outbox), one card per normalised URL is shared by every status
that links it, the card shows wherever the status renders, and link shares are counted per day
(uses, distinct accounts) for link trends."""

from __future__ import annotations

import pytest
from stratus.core import clock, parallel
from stratus.repo import cards as cards_repo
from stratus.repo import keys
from stratus.repo import statuses as statuses_repo
from stratus.repo.client import client as aws
from stratus.repo.client import dynamodb

from tests.rig import deliver_twice, dispatch_only, post
from tests.rig.sites import article, png


def status(client, status_id, headers=None):
    response = client.get(f"/api/v1/statuses/{status_id}", headers=headers or {})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def story(site):
    site.serve("/image.png", png(), "image/png")
    return site.serve("/story", article("A story"))


def test_a_new_status_gets_the_card_of_its_first_link(
        client, people, drain, story, site,
                                                      runtime, entity):
    _, tokens = people
    posted = post(client, tokens["alice"], status=f"read this {story} and http://b.example/")
    assert posted["card"] is None  # made after posting, by the cards worker
    drain()
    shown = status(client, posted["id"], tokens["bob"])
    entity("Status", shown)
    card = shown["card"]
    entity("PreviewCard", card)
    assert card["url"] == story and card["type"] == "link"
    assert (card["title"], card["description"], card["provider_name"]) == \
        ("A story", "What happened", "The Example")
    assert card["image"].startswith(runtime.env["MEDIA_BASE_URL"] + "/preview_cards/images/")
    assert card["blurhash"] and (card["width"], card["height"]) == (640, 320)
    assert card["authors"] == [{"name": "", "url": "", "account": None}]
    # The image is the stored re-encoding, not the remote file.
    key = card["image"].removeprefix(runtime.env["MEDIA_BASE_URL"] + "/")
    stored = aws("s3").get_object(Bucket=runtime.env["MEDIA_BUCKET"], Key=key)
    assert stored["ContentType"] == "image/png"
    # The legacy endpoint answers the same card, and {} for a status without one.
    legacy = client.get(f"/api/v1/statuses/{posted['id']}/card")
    assert legacy.status_code == 200 and legacy.json() == card
    plain = post(client, tokens["alice"], status="no link")
    drain()
    assert client.get(f"/api/v1/statuses/{plain['id']}/card").json() == {}
    assert client.get("/api/v1/statuses/123/card").status_code == 404


def test_mentions_hashtags_and_local_links_are_not_fetched(client, people, drain, runtime,
                                                          monkeypatch):
    from stratus.core import outbound

    _, tokens = people
    fetched = []
    monkeypatch.setattr(outbound, "fetch", lambda url, **_: fetched.append(url))
    post(client, tokens["alice"], status="@bob #cards")
    dispatch_only(runtime)
    assert deliver_twice(runtime, "CardsFunction:async") == 0  # no URL at all: no job
    local = post(client, tokens["alice"], status="@bob #cards http://localhost:8000/@bob")
    drain()
    assert fetched == [] and status(client, local["id"])["card"] is None


def test_private_statuses_are_not_shown_through_the_card_endpoint(client, people, drain, story):
    _, tokens = people
    hidden = post(client, tokens["alice"], status=f"just me {story}", visibility="direct")
    drain()
    assert client.get(f"/api/v1/statuses/{hidden['id']}/card").status_code == 404
    assert client.get(f"/api/v1/statuses/{hidden['id']}/card",
                      headers=tokens["alice"]).json()["url"] == story


def test_one_card_per_url_shared_by_every_status(client, people, drain, story, site):
    _, tokens = people
    first = post(client, tokens["alice"], status=f"{story}")
    drain()
    written = story.replace("/story", "/./story#comments").upper().replace("/STORY", "/story")
    second = post(client, tokens["bob"], status=f"same: {written}")
    drain()
    assert site.hits("/story") == 1 and site.hits("/image.png") == 1
    cards = [status(client, s["id"])["card"] for s in (first, second)]
    assert cards[0] == cards[1] and cards[0]["url"] == story


def test_a_stale_card_is_fetched_again(client, people, drain, story, site):
    _, tokens = people
    post(client, tokens["alice"], status=story)
    drain()
    card = cards_repo.get(story)
    cards_repo.put(story, {**{k: v for k, v in card.items() if k != "url"},
                           "fetched_at": "2020-01-01T00:00:00.000Z"})
    site.serve("/story", article("A new title"))
    later = post(client, tokens["bob"], status=story)
    drain()
    assert site.hits("/story") == 2
    assert status(client, later["id"])["card"]["title"] == "A new title"


def test_redelivered_card_jobs_fetch_and_write_once(client, people, runtime, drain, story,
                                                    site):
    _, tokens = people
    posted = post(client, tokens["alice"], status=f"once {story}")
    dispatch_only(runtime)
    assert deliver_twice(runtime, "CardsFunction:async") == 1
    writes = {"n": 0}
    card_key = {name: {"S": value} for name, value in keys.card(story).items()}

    def count(params, **_):
        item = params.get("Item", {})
        writes["n"] += {"PK": item.get("PK"), "SK": item.get("SK")} == card_key

    dynamodb().meta.events.register("before-parameter-build.dynamodb.PutItem", count)
    try:
        drain()
    finally:
        dynamodb().meta.events.unregister("before-parameter-build.dynamodb.PutItem", count)
    assert site.hits("/story") == 1 and site.hits("/image.png") == 1
    assert writes["n"] == 1  # the card item, once
    assert status(client, posted["id"])["card"]["url"] == story


def test_an_edit_that_changes_the_first_link_changes_the_card(client, people, drain, story,
                                                              site):
    _, tokens = people
    other = site.serve("/other", "<title>Other page</title>")
    posted = post(client, tokens["alice"], status=f"first {story}")
    drain()
    edited = client.put(f"/api/v1/statuses/{posted['id']}", headers=tokens["alice"],
                        data={"status": f"now {other} then {story}"})
    assert edited.status_code == 200 and edited.json()["card"] is None
    drain()
    card = status(client, posted["id"])["card"]
    assert (card["url"], card["title"], card["image"]) == (other, "Other page", None)
    client.put(f"/api/v1/statuses/{posted['id']}", headers=tokens["alice"],
               data={"status": "no links any more"})
    drain()
    assert status(client, posted["id"])["card"] is None
    # Editing back to a known link reuses its card without fetching it again.
    client.put(f"/api/v1/statuses/{posted['id']}", headers=tokens["alice"],
               data={"status": f"back to {story}"})
    drain()
    assert status(client, posted["id"])["card"]["url"] == story
    assert site.hits("/story") == 1


def test_pages_that_make_no_card(client, people, drain, site):
    _, tokens = people
    site.serve("/robots.txt", "User-agent: *\nDisallow: /private\n", "text/plain")
    urls = [site.serve("/file.txt", "text", "text/plain"),
            site.serve("/empty", "<p>no title</p>"),
            site.serve("/private", "<title>robots say no</title>"),
            site.url("/missing")]
    posted = [post(client, tokens["alice"], status=f"see {u}") for u in urls]
    drain()
    assert [status(client, p["id"])["card"] for p in posted] == [None] * 4
    assert site.hits("/private") == 0


def test_cards_show_in_timelines_and_boosts(
        client, people, active, drain, story, entity):
    ids_, tokens = people
    client.post(f"/api/v1/accounts/{ids_['alice']}/follow", headers=tokens["bob"])
    posted = post(client, tokens["alice"], status=f"timeline {story}")
    drain()
    client.post(f"/api/v1/statuses/{posted['id']}/reblog", headers=tokens["carol"])
    drain()
    home = client.get("/api/v1/timelines/home", headers=tokens["bob"]).json()
    assert [s["card"]["url"] for s in home] == [story]
    public = client.get("/api/v1/timelines/public").json()
    assert story in [s["card"]["url"] for s in public if s["card"]]
    boosts = client.get(f"/api/v1/accounts/{ids_['carol']}/statuses").json()
    assert boosts[0]["card"] is None and boosts[0]["reblog"]["card"]["url"] == story
    for entry in home + boosts:
        entity("Status", entry)


def test_a_page_of_statuses_reads_its_cards_in_one_batch(client, people, drain, site):
    ids_, tokens = people
    for i in range(8):
        post(client, tokens["alice"], status="link " + site.serve(f"/p{i}", f"<title>{i}</title>"))
    drain()
    calls = {"n": 0}

    def count(**_):
        if not parallel.is_detached():  # a warm cache renewed in the background is no call of the page
            calls["n"] += 1

    def page(limit):
        calls["n"] = 0
        dynamodb().meta.events.register("before-call.dynamodb", count)
        try:
            shown = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses",
                               params={"limit": limit}).json()
        finally:
            dynamodb().meta.events.unregister("before-call.dynamodb", count)
        assert all(s["card"] for s in shown) and len(shown) == limit
        return calls["n"]

    page(2)  # the warm caches a first request fills
    assert page(2) == page(8)


# --- link shares ----------------------------------------------------------------------------------
def shares(url: str) -> tuple[int, int]:
    found = cards_repo.stats([url]).get(url, {})
    day = clock.day_key(clock.now())
    return int(found.get(f"uses_{day}", 0)), int(found.get(f"accounts_{day}", 0))


def test_shares_count_uses_and_distinct_accounts_per_day(
        client, discoverable, drain, story):
    _, tokens = discoverable
    post(client, tokens["alice"], status=f"one {story}")
    post(client, tokens["alice"], status=f"two {story}")
    post(client, tokens["bob"], status=f"three {story}")
    post(client, tokens["carol"], status=f"unlisted {story}", visibility="unlisted")
    boosted = post(client, tokens["dave"], status="no link")
    client.post(f"/api/v1/statuses/{boosted['id']}/reblog", headers=tokens["carol"])
    drain()
    assert shares(story) == (3, 2)


def test_only_discoverable_accounts_count(client, people, drain, story):
    _, tokens = people  # nobody opted into discovery
    post(client, tokens["alice"], status=f"quiet {story}")
    drain()
    assert shares(story) == (0, 0)


def test_shares_are_counted_once_on_redelivery(
        client, discoverable, runtime, drain, story):
    _, tokens = discoverable
    post(client, tokens["alice"], status=f"a {story}")
    post(client, tokens["bob"], status=f"b {story}")
    dispatch_only(runtime)
    assert deliver_twice(runtime, "EffectsFunction:async") >= 2
    for _ in range(3):  # the index entries and day marks reach the counters
        dispatch_only(runtime)
        deliver_twice(runtime, "CountersQueue")
        drain()
    assert shares(story) == (2, 2)


def test_an_edit_to_another_link_is_a_share_of_it(
        client, discoverable, drain, story, site):
    _, tokens = discoverable
    other = site.serve("/other", "<title>Other</title>")
    posted = post(client, tokens["alice"], status=f"first {story}")
    drain()
    client.put(f"/api/v1/statuses/{posted['id']}", headers=tokens["alice"],
               data={"status": f"instead {other}"})
    client.put(f"/api/v1/statuses/{posted['id']}", headers=tokens["alice"],
               data={"status": f"instead {other}, edited again"})
    drain()
    assert shares(story) == (1, 1) and shares(other) == (1, 1)
    assert statuses_repo.get(posted["id"])["card_url"] == other
