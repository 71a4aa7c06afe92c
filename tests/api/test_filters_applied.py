"""Filters applied by the server: `filtered` on statuses (FilterResult with the text matched and
the statuses matched), `hide` removing statuses in the request's context as pages fill (home,
lists, public, hashtags, account, thread) and notifications (v1 and grouped), `warn` and `blur`
only marking, a context that does not match reported but not hiding, expired filters ignored,
boosts matched on what they boost."""

from __future__ import annotations

from stratus.repo import base, keys

from tests.rig import follow, make_filter, post


def statuses(client, path, headers, **params) -> list[dict]:
    response = client.get(path, headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def by_id(entities) -> dict[str, dict]:
    return {s["id"]: s for s in entities}


def test_home_and_lists_hide_and_warn(client, active, drain, entity):
    ids_, tokens = active
    alice = tokens["alice"]
    follow(client, alice, ids_["bob"])
    drain()
    plain_old = post(client, tokens["bob"], status="nothing to see")
    catty = post(client, tokens["bob"], status="My CAT is asleep")
    spoiled = post(client, tokens["bob"], status="the ending", spoiler_text="Spoilers ahead")
    plain = post(client, tokens["bob"], status="still nothing")
    drain()
    listed = client.post("/api/v1/lists", headers=alice, data={"title": "bob"}).json()
    client.post(f"/api/v1/lists/{listed['id']}/accounts", headers=alice,
                data={"account_ids[]": [ids_["bob"]]})
    drain()
    warn = make_filter(client, alice, title="cats", context=["home"],
                       keywords_attributes=[{"keyword": "cat", "whole_word": True}])
    hide = make_filter(client, alice, title="spoilers", context=["home"], filter_action="hide",
                       keywords_attributes=[{"keyword": "spoiler", "whole_word": False}])
    shown = statuses(client, "/api/v1/timelines/home", alice)
    assert [s["id"] for s in shown] == [plain["id"], catty["id"], plain_old["id"]]
    for status in shown:
        entity("Status", status)
    result = by_id(shown)[catty["id"]]["filtered"]
    assert result == [{"filter": {"id": warn["id"], "title": "cats", "context": ["home"],
                                  "expires_at": None, "filter_action": "warn"},
                       "keyword_matches": ["CAT"], "status_matches": None}]
    entity("FilterResult", result[0])
    assert by_id(shown)[plain["id"]]["filtered"] == []
    # The hidden status does not make a page short: the page fills from further entries.
    page = client.get("/api/v1/timelines/home", headers=alice, params={"limit": 2})
    assert [s["id"] for s in page.json()] == [plain["id"], catty["id"]]
    after = page.headers["link"].split(";")[0].strip("<>")
    assert [s["id"] for s in client.get(after, headers=alice).json()] == [plain_old["id"]]
    # Lists are the home context too.
    in_list = statuses(client, f"/api/v1/timelines/list/{listed['id']}", alice)
    assert [s["id"] for s in in_list] == [plain["id"], catty["id"], plain_old["id"]]
    # The same statuses elsewhere: a hide filter for home does not hide them in public, but
    # the FilterResult still names it (its context tells the client it does not apply).
    public = by_id(statuses(client, "/api/v1/timelines/public", alice))
    assert [r["filter"]["id"] for r in public[spoiled["id"]]["filtered"]] == [hide["id"]]
    assert public[spoiled["id"]]["filtered"][0]["keyword_matches"] == ["Spoiler"]
    # Nobody else's view changes.
    assert by_id(statuses(client, "/api/v1/timelines/public", tokens["carol"]))[
        catty["id"]]["filtered"] == []


def test_public_tag_account_and_thread_contexts(client, people, drain, entity):
    ids_, tokens = people
    alice = tokens["alice"]
    root = post(client, tokens["bob"], status="a thread about #birds")
    reply = post(client, tokens["carol"], status="@bob I saw a Heron today #birds",
                 in_reply_to_id=root["id"])
    last = post(client, tokens["bob"], status="@carol nice", in_reply_to_id=reply["id"])
    drain()  # hashtag entries come from the stream
    make_filter(client, alice, title="herons", context=["public", "thread", "account"],
                filter_action="hide", keywords_attributes=[{"keyword": "heron"}])
    assert reply["id"] not in by_id(statuses(client, "/api/v1/timelines/public", alice))
    assert root["id"] in by_id(statuses(client, "/api/v1/timelines/public", alice))
    assert [s["id"] for s in statuses(client, "/api/v1/timelines/tag/birds", alice)] == \
        [root["id"]]
    assert [s["id"] for s in statuses(client, f"/api/v1/accounts/{ids_['carol']}/statuses",
                                      alice)] == []
    context = client.get(f"/api/v1/statuses/{root['id']}/context", headers=alice).json()
    assert [s["id"] for s in context["descendants"]] == [last["id"]]
    # The status itself is shown when asked for, marked.
    one = client.get(f"/api/v1/statuses/{reply['id']}", headers=alice).json()
    entity("Status", one)
    assert one["filtered"][0]["keyword_matches"] == ["Heron"]
    # Others, and anonymous readers, see everything.
    assert reply["id"] in by_id(statuses(client, "/api/v1/timelines/public", tokens["dave"]))
    assert reply["id"] in by_id(statuses(client, "/api/v1/timelines/public", None))


def test_poll_media_descriptions_and_boosts(client, active, drain):
    ids_, tokens = active
    alice = tokens["alice"]
    follow(client, alice, ids_["carol"])
    drain()
    poll = client.post("/api/v1/statuses", headers=tokens["bob"], json={
        "status": "which one?", "poll": {"options": ["tea", "Coffee"], "expires_in": 600}}).json()
    boost = client.post(f"/api/v1/statuses/{poll['id']}/reblog", headers=tokens["carol"]).json()
    drain()
    warn = make_filter(client, alice, title="coffee", context=["home"],
                       keywords_attributes=[{"keyword": "coffee"}])
    shown = by_id(statuses(client, "/api/v1/timelines/home", alice))
    assert shown[boost["id"]]["filtered"][0]["keyword_matches"] == ["Coffee"]
    assert shown[boost["id"]]["reblog"]["filtered"] == shown[boost["id"]]["filtered"]
    # A status filter matches the boosted status through the boost.
    client.post(f"/api/v2/filters/{warn['id']}/statuses", headers=alice,
                data={"status_id": poll["id"]})
    shown = by_id(statuses(client, "/api/v1/timelines/home", alice))
    assert shown[boost["id"]]["filtered"][0]["status_matches"] == [poll["id"]]
    client.put(f"/api/v2/filters/{warn['id']}", headers=alice, json={"filter_action": "hide"})
    assert boost["id"] not in by_id(statuses(client, "/api/v1/timelines/home", alice))


def test_notifications_hide_and_warn(client, people, drain, entity):
    ids_, tokens = people
    alice = tokens["alice"]
    mention = post(client, tokens["bob"], status="@alice free crypto here")
    other = post(client, tokens["bob"], status="@alice lunch?")
    drain()
    before = statuses(client, "/api/v1/notifications", alice)
    assert [n["status"]["id"] for n in before] == [other["id"], mention["id"]]
    hide = make_filter(client, alice, title="spam", context=["notifications"],
                       filter_action="hide", keywords_attributes=[{"keyword": "crypto"}])
    after = statuses(client, "/api/v1/notifications", alice)
    assert [n["status"]["id"] for n in after] == [other["id"]]
    page = statuses(client, "/api/v1/notifications", alice, limit=1)
    assert [n["status"]["id"] for n in page] == [other["id"]]
    grouped = statuses(client, "/api/v2/notifications", alice)
    assert [g["status_id"] for g in grouped["notification_groups"]] == [other["id"]]
    assert [s["id"] for s in grouped["statuses"]] == [other["id"]]
    # Warn marks the notification's status instead.
    client.put(f"/api/v2/filters/{hide['id']}", headers=alice, json={"filter_action": "warn"})
    marked = statuses(client, "/api/v1/notifications", alice)
    assert [n["status"]["id"] for n in marked] == [other["id"], mention["id"]]
    entity("Notification", marked[1])
    assert marked[1]["status"]["filtered"][0]["keyword_matches"] == ["crypto"]
    grouped = statuses(client, "/api/v2/notifications", alice)
    assert by_id(grouped["statuses"])[mention["id"]]["filtered"][0]["filter"]["id"] == hide["id"]
    # Home-only hide filters do not take notifications.
    client.put(f"/api/v2/filters/{hide['id']}", headers=alice,
               json={"filter_action": "hide", "context": ["home"]})
    assert len(statuses(client, "/api/v1/notifications", alice)) == 2


def test_expired_filters_are_ignored(client, people):
    ids_, tokens = people
    alice = tokens["alice"]
    status = post(client, tokens["bob"], status="rain again")
    created = make_filter(client, alice, title="weather", context=["public"],
                          filter_action="hide", expires_in=3600,
                          keywords_attributes=[{"keyword": "rain"}])
    assert status["id"] not in by_id(statuses(client, "/api/v1/timelines/public", alice))
    base.update(keys.filter_item(ids_["alice"], created["id"]), "SET expires_at = :past",
                vals={":past": "2020-01-01T00:00:00.000Z"})
    shown = by_id(statuses(client, "/api/v1/timelines/public", alice))
    assert shown[status["id"]]["filtered"] == []
    # Still listed (Mastodon lists expired filters), with its past expiry.
    assert client.get("/api/v2/filters", headers=alice).json()[0]["expires_at"] == \
        "2020-01-01T00:00:00.000Z"
