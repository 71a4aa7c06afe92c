"""The link timeline: public original statuses whose preview card would come from a URL (the
first link of the text that is not on this server, normalised), by accounts that opted into
discovery; kept in step with posts, edits and deletions."""

from __future__ import annotations

import pytest
from stratus.text.links import card_link, normalize

from tests.rig import deliver_twice, dispatch_only, post

NOT_FOUND = {"error": "Record not found"}
ARTICLE = "https://news.example/story"


def link_timeline(client, url, headers=None, **params):
    response = client.get("/api/v1/timelines/link", params={"url": url, **params},
                          headers=headers or {})
    assert response.status_code == 200, response.text
    return response


def ids_of(response) -> list[str]:
    return [s["id"] for s in response.json()]


@pytest.mark.parametrize(("written", "normal"), [
    ("HTTPS://News.Example:443/a/./b/../c?q=%7e#top", "https://news.example/a/c?q=~"),
    ("http://news.example", "http://news.example/"),
    ("http://news.example:8080/%e2%82%ac", "http://news.example:8080/%E2%82%AC"),
    ("https://bücher.example/", "https://xn--bcher-kva.example/"),
])
def test_urls_are_normalised_as_for_cards(written, normal):
    assert normalize(written) == normal


def test_the_card_link_is_the_first_link_not_on_this_server():
    text = "see http://localhost:8000/@bob and https://a.example/x, then https://b.example/"
    assert card_link(text, "localhost:8000") == "https://a.example/x"
    assert card_link("no links here, #tag @bob", "localhost:8000") is None
    assert normalize("ftp://files.example/") is None and normalize("https://") is None
    # read as a browser reads it (core/urls.py): the card is fetched from what a click opens
    assert normalize("https:///path") == "https://path/"
    assert normalize("https://a.example\\@b.example/") == "https://a.example/@b.example/"


def test_public_statuses_linking_a_url_newest_first(client, discoverable, drain, entity):
    _, tokens = discoverable
    first = post(client, tokens["alice"], status=f"read {ARTICLE}#comments")
    second = post(client, tokens["bob"], status="also HTTPS://NEWS.example/story")
    reply = post(client, tokens["carol"], status=f"@bob yes {ARTICLE}", in_reply_to_id=second["id"])
    post(client, tokens["dave"], status=f"unlisted {ARTICLE}", visibility="unlisted")
    post(client, tokens["dave"], status=f"private {ARTICLE}", visibility="private")
    post(client, tokens["dave"], status=f"second link https://other.example/ {ARTICLE}")
    client.post(f"/api/v1/statuses/{first['id']}/reblog", headers=tokens["dave"])
    drain()
    response = link_timeline(client, ARTICLE, tokens["alice"])
    for status in response.json():
        entity("Status", status)
    assert ids_of(response) == [reply["id"], second["id"], first["id"]]
    anonymous = link_timeline(client, "https://news.example/story#top")  # same card
    assert ids_of(anonymous) == [reply["id"], second["id"], first["id"]]
    assert anonymous.headers["cache-control"].startswith("max-age=15, public")
    paged = link_timeline(client, ARTICLE, limit=2)
    assert ids_of(paged) == [reply["id"], second["id"]]
    assert f"max_id={second['id']}" in paged.headers["link"]
    assert ids_of(link_timeline(client, ARTICLE, max_id=second["id"])) == [first["id"]]
    assert ids_of(link_timeline(client, ARTICLE, min_id=first["id"], limit=1)) == [second["id"]]


def test_only_accounts_that_opted_into_discovery(client, people, drain):
    _, tokens = people
    hidden = post(client, tokens["alice"], status=f"quietly {ARTICLE}")
    drain()
    assert link_timeline(client, ARTICLE).json() == []
    client.patch("/api/v1/accounts/update_credentials", headers=tokens["alice"],
                 data={"discoverable": "true"})
    assert ids_of(link_timeline(client, ARTICLE)) == [hidden["id"]]


def test_a_url_no_status_linked_is_not_found(client, discoverable):
    _, tokens = discoverable
    for params in ({"url": "https://never.example/"}, {"url": "not a url"}, {}):
        response = client.get("/api/v1/timelines/link", params=params, headers=tokens["alice"])
        assert (response.status_code, response.json()) == (404, NOT_FOUND), params


def test_edits_move_and_deletions_remove_the_entry(client, discoverable, drain):
    _, tokens = discoverable
    status = post(client, tokens["alice"], status=f"first {ARTICLE}")
    other = post(client, tokens["bob"], status=f"still {ARTICLE}")
    drain()
    edited = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
                        data={"status": "changed my mind: https://better.example/"})
    assert edited.status_code == 200
    drain()
    assert ids_of(link_timeline(client, ARTICLE)) == [other["id"]]
    assert ids_of(link_timeline(client, "https://better.example/")) == [status["id"]]
    client.delete(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"])
    drain()
    # The link was linked once: its timeline is empty now, not missing.
    assert link_timeline(client, "https://better.example/").json() == []


def test_blocked_and_muted_authors_are_left_out(client, discoverable, drain):
    ids_, tokens = discoverable
    mine = post(client, tokens["alice"], status=f"mine {ARTICLE}")
    bobs = post(client, tokens["bob"], status=f"bob's {ARTICLE}")
    carols = post(client, tokens["carol"], status=f"carol's {ARTICLE}")
    drain()
    client.post(f"/api/v1/accounts/{ids_['bob']}/block", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['carol']}/mute", headers=tokens["alice"])
    assert ids_of(link_timeline(client, ARTICLE, tokens["alice"])) == [mine["id"]]
    assert ids_of(link_timeline(client, ARTICLE)) == [carols["id"], bobs["id"], mine["id"]]


def test_a_status_is_listed_once_when_its_job_comes_twice(client, discoverable, runtime, drain):
    _, tokens = discoverable
    drain()  # the sign-ups' own jobs first
    status = post(client, tokens["alice"], status=f"twice {ARTICLE}")
    dispatch_only(runtime)
    # status_created, links_changed, and the author's directory entry (last_status_at moved)
    assert deliver_twice(runtime, "EffectsFunction:async") == 3
    drain()
    assert ids_of(link_timeline(client, ARTICLE)) == [status["id"]]
