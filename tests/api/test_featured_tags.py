"""Featured hashtags: the list, featuring and unfeaturing (also through /api/v1/tags/:name),
the limit of 10, suggestions, an account's public list, and the counts kept on write."""

from __future__ import annotations

from stratus.repo import featured_tags as featured_repo

from tests.rig import deliver_twice, dispatch_only, feature, post

LIMIT = "Validation failed: You have already featured the maximum number of hashtags"


def featured(client, headers):
    response = client.get("/api/v1/featured_tags", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def by_name(client, headers, name):
    return next(t for t in featured(client, headers) if t["name"].lower() == name.lower())


def test_featuring_a_tag_shows_its_use_so_far(client, people, drain, entity):
    ids_, tokens = people
    post(client, tokens["alice"], status="first #Cats")
    post(client, tokens["alice"], status="second #cats", visibility="unlisted")
    post(client, tokens["alice"], status="private #cats", visibility="private")
    post(client, tokens["alice"], status="direct #cats @bob", visibility="direct")
    post(client, tokens["bob"], status="not alice's #cats")
    drain()
    response = feature(client, tokens["alice"], "#Cats ")
    assert response.status_code == 200, response.text
    body = response.json()
    entity("FeaturedTag", body)
    # Public and unlisted statuses count (FeaturedTag: distributable visibility), as a string.
    assert body["name"] == "Cats" and body["statuses_count"] == "2"
    assert body["url"] == "http://localhost:8000/@alice/tagged/cats"
    assert len(body["last_status_at"]) == 10  # a date, not a time
    assert featured(client, tokens["alice"]) == [body]
    public = client.get(f"/api/v1/accounts/{ids_['alice']}/featured_tags")
    assert public.status_code == 200 and public.json() == [body]
    assert client.get(f"/api/v1/accounts/{ids_['bob']}/featured_tags").json() == []


def test_the_eleventh_featured_tag_is_refused(client, people):
    _, tokens = people
    for n in range(10):
        assert feature(client, tokens["alice"], f"tag{n}x").status_code == 200
    response = feature(client, tokens["alice"], "eleventh")
    assert (response.status_code, response.json()) == (422, {"error": LIMIT})
    response = client.post("/api/v1/tags/eleventh/feature", headers=tokens["alice"])
    assert (response.status_code, response.json()) == (422, {"error": LIMIT})
    assert len(featured(client, tokens["alice"])) == 10
    # Unfeaturing one makes room again.
    first = featured(client, tokens["alice"])[0]
    gone = client.delete(f"/api/v1/featured_tags/{first['id']}", headers=tokens["alice"])
    assert (gone.status_code, gone.json()) == (200, {})
    assert feature(client, tokens["alice"], "eleventh").status_code == 200


def test_invalid_and_duplicate_names_are_422(client, people):
    _, tokens = people
    for name, message in (("", "Validation failed: Name can't be blank, Name is invalid"),
                          ("no-dash", "Validation failed: Name is invalid"),
                          ("1234", "Validation failed: Name is invalid")):
        response = feature(client, tokens["alice"], name)
        assert (response.status_code, response.json()) == (422, {"error": message}), name
    assert feature(client, tokens["alice"], "dogs").status_code == 200
    again = feature(client, tokens["alice"], "DOGS")
    assert (again.status_code, again.json()) == (
        422, {"error": "Validation failed: Name has already been taken"})


def test_deleting_someone_elses_or_an_unknown_featured_tag_is_404(client, people):
    _, tokens = people
    mine = feature(client, tokens["alice"], "mine").json()
    for who, path in (("bob", mine["id"]), ("alice", "12345"), ("alice", "nope")):
        response = client.delete(f"/api/v1/featured_tags/{path}", headers=tokens[who])
        assert response.status_code == 404, (who, path)
    assert featured(client, tokens["alice"]) == [mine]


def test_scopes(client, people):
    from tests.rig import auth, make_app, user_token

    ids_, _ = people
    reader = auth(user_token(make_app(client), ids_["alice"], scopes=("read",)))
    assert client.get("/api/v1/featured_tags", headers=reader).status_code == 200
    assert feature(client, reader, "cats").status_code == 403
    assert client.get("/api/v1/featured_tags").status_code == 401


def test_counts_follow_posts_edits_and_deletions_exactly_once(client, people, runtime, drain):
    _, tokens = people
    alice = tokens["alice"]
    feature(client, alice, "cats")
    assert by_name(client, alice, "cats")["statuses_count"] == "0"
    assert by_name(client, alice, "cats")["last_status_at"] is None
    older = post(client, alice, status="older #cats")
    newer = post(client, alice, status="newer #cats")
    dispatch_only(runtime)
    deliver_twice(runtime, "CountersQueue")  # a redelivery counts nothing twice
    drain()
    assert by_name(client, alice, "cats")["statuses_count"] == "2"
    # Deleting the latest moves the date back to the one before; twice changes nothing more.
    before = featured_repo.account_tags(featured_ids(people), ["cats"])["cats"]
    assert before["last_status_at"] == newer["created_at"]
    assert client.delete(f"/api/v1/statuses/{newer['id']}", headers=alice).status_code == 200
    dispatch_only(runtime)
    deliver_twice(runtime, "CountersQueue")
    deliver_twice(runtime, "EffectsFunction:async")
    drain()
    after = featured_repo.account_tags(featured_ids(people), ["cats"])["cats"]
    assert after["statuses_count"] == 1 and after["last_status_at"] == older["created_at"]
    # An edit that drops the tag takes its use back; one that adds it counts it.
    edited = client.put(f"/api/v1/statuses/{older['id']}", headers=alice,
                        data={"status": "older, no tag"})
    assert edited.status_code == 200, edited.text
    dispatch_only(runtime)
    deliver_twice(runtime, "CountersQueue")
    drain()
    tag = by_name(client, alice, "cats")
    assert tag["statuses_count"] == "0" and tag["last_status_at"] is None
    client.put(f"/api/v1/statuses/{older['id']}", headers=alice, data={"status": "#cats again"})
    drain()
    assert by_name(client, alice, "cats")["statuses_count"] == "1"


def featured_ids(people):
    return people[0]["alice"]


def test_suggestions_are_the_most_used_tags_not_yet_featured(client, people, drain, entity):
    _, tokens = people
    alice = tokens["alice"]
    for text in ("#a1 #b2", "#b2 #c3", "#b2 #c3", "#d4"):
        post(client, alice, status=text)
    post(client, alice, status="#private", visibility="private")
    drain()
    feature(client, alice, "c3")
    response = client.get("/api/v1/featured_tags/suggestions", headers=alice)
    assert response.status_code == 200, response.text
    names = [t["name"] for t in response.json()]
    assert names == ["b2", "a1", "d4"]
    for tag in response.json():
        entity("Tag", tag)
        assert tag["following"] is False and tag["featuring"] is False


def test_tags_feature_and_unfeature(client, people, entity):
    _, tokens = people
    alice = tokens["alice"]
    response = client.post("/api/v1/tags/Knitting/feature", headers=alice)
    assert response.status_code == 200, response.text
    entity("Tag", response.json())
    assert response.json()["featuring"] is True and response.json()["name"] == "Knitting"
    again = client.post("/api/v1/tags/knitting/feature", headers=alice)
    assert again.status_code == 200 and again.json()["featuring"] is True
    assert [t["name"] for t in featured(client, alice)] == ["Knitting"]
    assert client.get("/api/v1/tags/knitting", headers=alice).json()["featuring"] is True
    assert client.get("/api/v1/tags/knitting", headers=tokens["bob"]).json()["featuring"] is False
    assert "featuring" not in client.get("/api/v1/tags/knitting").json()
    gone = client.post("/api/v1/tags/knitting/unfeature", headers=alice)
    assert gone.status_code == 200 and gone.json()["featuring"] is False
    assert featured(client, alice) == []
    assert client.post("/api/v1/tags/no-dash/feature", headers=alice).status_code == 404
