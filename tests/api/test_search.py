"""Search (GET /api/v2/search, GET /api/v1/accounts/search): accounts by word prefix, hashtags
by name prefix, statuses by URL and by the words of statuses the viewer may find; paging with
and without `type`; what anonymous searches may not do; blocks and suspensions honoured."""

from __future__ import annotations

from stratus.core import clock
from stratus.repo import base, keys

from tests.rig import follow, make_remote_account, post

NO_RESULTS = {"accounts": [], "statuses": [], "hashtags": []}


def search(client, headers=None, **params):
    response = client.get("/api/v2/search", headers=headers or {}, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def accounts_search(client, headers, **params):
    response = client.get("/api/v1/accounts/search", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def rename(client, headers, display_name):
    response = client.patch("/api/v1/accounts/update_credentials", headers=headers,
                            data={"display_name": display_name})
    assert response.status_code == 200, response.text


def usernames(found):
    return [a["username"] for a in found]


def make_users(client, *names):
    from tests.rig import auth, make_app, make_user, user_token

    app = make_app(client)
    made = {name: make_user(name) for name in names}
    return made, {n: auth(user_token(app, a)) for n, a in made.items()}


def remote_account(username, domain, display_name=""):
    """A remote account as federation will store it (tests/rig.py)."""
    return make_remote_account(domain, username, display_name)


def suspend(account_id):
    base.update(keys.account_profile(account_id), "SET suspended_at = :t",
                vals={":t": clock.iso(clock.now())})


# --- the endpoint's rules ------------------------------------------------------------------------
def test_q_is_required(client, people):
    _, tokens = people
    for params in ({}, {"q": ""}, {"q": "   "}):
        response = client.get("/api/v2/search", headers=tokens["alice"], params=params)
        assert (response.status_code, response.json()) == (
            400, {"error": "param is missing or the parameter is empty: q"}), params


def test_anonymous_searches_may_not_page_or_resolve(client, people, drain):
    drain()
    for params, message in (
            ({"q": "alice", "offset": "0"},
             "Search queries pagination is not supported without authentication"),
            ({"q": "alice", "type": "accounts", "offset": "20"},
             "Search queries pagination is not supported without authentication"),
            ({"q": "alice", "resolve": "true"},
             "Search queries that resolve remote resources are not supported without "
             "authentication")):
        response = client.get("/api/v2/search", params=params)
        assert (response.status_code, response.json()) == (401, {"error": message}), params
    # Without them an anonymous search is fine; so is resolve=false.
    assert usernames(search(client, q="alice", resolve="false")["accounts"]) == ["alice"]


def test_an_app_token_is_not_a_signed_in_user(client, people, drain):
    from tests.rig import app_token, auth, make_app

    drain()
    token = app_token(client, make_app(client), scope="read")
    response = client.get("/api/v2/search", headers=auth(token),
                          params={"q": "alice", "offset": "1", "type": "accounts"})
    assert response.status_code == 401


def test_negative_limit_or_offset_is_400(client, people):
    _, tokens = people
    for params in ({"limit": "-1"}, {"offset": "-5", "type": "accounts"}):
        response = client.get("/api/v2/search", headers=tokens["alice"],
                              params={"q": "alice", **params})
        assert (response.status_code, response.json()) == (
            400, {"error": "Pagination values for `offset` and `limit` must be positive"})


def test_search_v1_is_gone(client, people):
    _, tokens = people
    response = client.get("/api/v1/search", headers=tokens["alice"], params={"q": "alice"})
    assert response.status_code == 404


def test_the_search_entity(client, people, drain, entity):
    ids_, tokens = people
    post(client, tokens["alice"], status="Morning #coffee with bob")
    drain()
    body = search(client, tokens["alice"], q="coffee")
    entity("Search", body)
    assert [t["name"] for t in body["hashtags"]] == ["coffee"]
    assert [s["content"] for s in body["statuses"]] and body["accounts"] == []
    assert body["hashtags"][0]["following"] is False
    anonymous = search(client, q="coffee")
    entity("Search", anonymous)
    assert anonymous["statuses"] == [] and "following" not in anonymous["hashtags"][0]


def test_limit_zero_and_unknown_types_find_nothing(client, people, drain):
    _, tokens = people
    drain()
    assert search(client, tokens["alice"], q="alice", limit="0") == NO_RESULTS
    assert search(client, tokens["alice"], q="alice", type="people") == NO_RESULTS


# --- accounts ------------------------------------------------------------------------------------
def test_accounts_by_username_and_display_name_prefix(client, drain, entity):
    _, tokens = make_users(client, "alice", "alicia", "malice", "bob")
    rename(client, tokens["bob"], "Bob Alison")
    drain()
    found = search(client, tokens["malice"], q="ali", type="accounts")["accounts"]
    for account in found:
        entity("Account", account)
    # Shortest matching words first: alice, alicia, then bob's "alison"; "malice" has no word
    # starting with "ali".
    assert usernames(found) == ["alice", "alicia", "bob"]
    assert usernames(search(client, tokens["alice"], q="Bob Ali")["accounts"]) == ["bob"]
    assert usernames(search(client, tokens["alice"], q="alison bo")["accounts"]) == ["bob"]
    assert search(client, tokens["alice"], q="bob alex")["accounts"] == []


def test_renaming_moves_the_account_in_the_index(client, drain):
    _, tokens = make_users(client, "alice", "bob")
    rename(client, tokens["bob"], "Zebra Crossing")
    drain()
    assert usernames(accounts_search(client, tokens["alice"], q="zeb")) == ["bob"]
    rename(client, tokens["bob"], "Yak")
    drain()
    assert accounts_search(client, tokens["alice"], q="zeb") == []
    assert usernames(accounts_search(client, tokens["alice"], q="yak")) == ["bob"]


def test_the_exact_account_comes_first(client, drain):
    _, tokens = make_users(client, "carol", "bob", "bo")
    rename(client, tokens["carol"], "Bob")  # a display-name word "bob", older id than bob's
    drain()
    assert usernames(search(client, tokens["carol"], q="bob")["accounts"]) == ["bob", "carol"]
    assert usernames(search(client, tokens["carol"], q="@bob@localhost:8000")["accounts"])[0] \
        == "bob"
    assert usernames(search(client, tokens["carol"], q="bo")["accounts"])[0] == "bo"


def test_anonymous_short_queries_find_only_the_exact_account(client, drain):
    make_users(client, "bo", "bob", "bobby")
    drain()
    assert usernames(search(client, q="bo")["accounts"]) == ["bo"]
    assert usernames(search(client, q="bob")["accounts"]) == ["bob", "bobby"]


def test_remote_accounts_by_handle_and_domain_prefix(client, drain):
    _, tokens = make_users(client, "alice")
    remote_account("alice", "social.example", "Alice Elsewhere")
    remote_account("zed", "social.example")
    remote_account("zed", "other.example")
    drain()
    exact = search(client, tokens["alice"], q="@zed@other.example")["accounts"]
    assert [a["acct"] for a in exact] == ["zed@other.example"]
    by_domain = search(client, tokens["alice"], q="social.ex")["accounts"]
    assert sorted(a["acct"] for a in by_domain) == ["alice@social.example", "zed@social.example"]
    assert [a["acct"] for a in search(client, tokens["alice"], q="zed@social")["accounts"]] == [
        "zed@social.example"]
    # A bare username: the local account first, the remote one after.
    assert [a["acct"] for a in search(client, tokens["alice"], q="alice")["accounts"]] == [
        "alice", "alice@social.example"]


def test_following_restricts_to_followed_accounts(client, drain):
    made, tokens = make_users(client, "sam", "samuel", "samantha")
    follow(client, tokens["sam"], made["samantha"])
    drain()
    assert usernames(search(client, tokens["sam"], q="sam")["accounts"]) == [
        "sam", "samantha", "samuel"]
    # Mastodon's `following` keeps the viewer too (first_degree includes the account itself).
    assert usernames(search(client, tokens["sam"], q="sam", following="true")["accounts"]) == [
        "sam", "samantha"]
    assert usernames(accounts_search(client, tokens["sam"], q="sam", following="true")) == [
        "sam", "samantha"]


def test_blocked_blocking_and_suspended_accounts_are_left_out(client, drain):
    made, tokens = make_users(client, "kim", "kimberly", "kimball", "kimmo", "zed")
    assert client.post(f"/api/v1/accounts/{made['kimberly']}/block",
                       headers=tokens["kim"]).status_code == 200
    assert client.post(f"/api/v1/accounts/{made['kim']}/block",
                       headers=tokens["kimball"]).status_code == 200
    suspend(made["kimmo"])
    drain()
    assert usernames(search(client, tokens["kim"], q="kim")["accounts"]) == ["kim"]
    # Others still find them (but not the suspended one); the exact match obeys the same rules.
    assert usernames(search(client, tokens["zed"], q="kim")["accounts"]) == [
        "kim", "kimball", "kimberly"]
    assert search(client, q="kimmo")["accounts"] == []
    # The account a query names exactly is found whatever the blocks (Mastodon's exact match):
    # it is how a client finds the account to unblock. Suspended, it is not.
    assert usernames(search(client, tokens["kim"], q="@kimberly")["accounts"]) == ["kimberly"]
    assert usernames(search(client, tokens["kim"], q="kimball")["accounts"]) == ["kimball"]
    assert search(client, tokens["kim"], q="@kimmo")["accounts"] == []


def test_unconfirmed_accounts_are_not_found(client, drain):
    from tests.rig import make_user

    _, tokens = make_users(client, "alice")
    make_user("pending", confirmed=False)
    drain()
    assert search(client, tokens["alice"], q="pending")["accounts"] == []


def test_account_offset_pages_through_the_same_order(client, drain):
    names = [f"pat{n}" for n in range(7)]
    _, tokens = make_users(client, *names)
    drain()
    everything = usernames(search(client, tokens["pat0"], q="pat", type="accounts",
                                  limit="40")["accounts"])
    assert sorted(everything) == names
    pages = [usernames(search(client, tokens["pat0"], q="pat", type="accounts", limit="3",
                              offset=str(offset))["accounts"]) for offset in (0, 3, 6)]
    assert pages == [everything[0:3], everything[3:6], everything[6:7]]
    v1 = [usernames(accounts_search(client, tokens["pat0"], q="pat", limit="3",
                                    offset=str(offset))) for offset in (0, 3, 6)]
    assert v1 == pages


def test_offset_without_type_is_ignored(client, drain):
    names = [f"lee{n}" for n in range(4)]
    _, tokens = make_users(client, *names)
    drain()
    first = usernames(search(client, tokens["lee0"], q="lee", limit="2")["accounts"])
    assert usernames(search(client, tokens["lee0"], q="lee", limit="2",
                            offset="2")["accounts"]) == first
    assert usernames(search(client, tokens["lee0"], q="lee", limit="2", offset="2",
                            type="accounts")["accounts"]) != first


def test_limit_per_type(client, drain):
    names = [f"max{n:02d}" for n in range(45)]
    _, tokens = make_users(client, *names)
    drain()
    assert len(search(client, tokens["max00"], q="max")["accounts"]) == 20
    assert len(search(client, tokens["max00"], q="max", limit="100")["accounts"]) == 40
    assert len(accounts_search(client, tokens["max00"], q="max")) == 40
    assert len(accounts_search(client, tokens["max00"], q="max", limit="100")) == 45


def test_accounts_search_needs_a_user(client, people, drain):
    from tests.rig import app_token, auth, make_app

    _, tokens = people
    drain()
    assert client.get("/api/v1/accounts/search", params={"q": "alice"}).status_code == 401
    token = app_token(client, make_app(client), scope="read")
    response = client.get("/api/v1/accounts/search", headers=auth(token), params={"q": "alice"})
    assert (response.status_code, response.json()) == (
        422, {"error": "This method requires an authenticated user"})
    assert accounts_search(client, tokens["bob"], q="") == []
    assert usernames(accounts_search(client, tokens["bob"], q="ali", resolve="true")) == [
        "alice"]


def test_a_query_starting_with_a_hash_finds_no_accounts(client, people, drain):
    _, tokens = people
    drain()
    assert search(client, tokens["bob"], q="#alice")["accounts"] == []


# --- hashtags ------------------------------------------------------------------------------------
def test_hashtags_by_prefix_shortest_first(client, people, drain, entity):
    ids_, tokens = people
    post(client, tokens["alice"], status="#Catsofmastodon #cat #Caturday #cats #dog",
         visibility="private")
    drain()
    found = search(client, tokens["bob"], q="#CAT", type="hashtags")["hashtags"]
    for tag in found:
        entity("Tag", tag)
    assert [t["name"] for t in found] == ["cat", "cats", "caturday", "catsofmastodon"]
    assert [t["name"] for t in search(client, tokens["bob"], q="cat", type="hashtags",
                                      limit="2", offset="2")["hashtags"]] == [
        "caturday", "catsofmastodon"]
    # Without `type`, `offset` is not honoured.
    assert [t["name"] for t in search(client, tokens["bob"], q="cat", limit="2",
                                      offset="2")["hashtags"]] == ["cat", "cats"]
    assert search(client, tokens["bob"], q="cat dog")["hashtags"] == []
    assert [t["name"] for t in search(client, tokens["bob"], q="ＣＡＴＳ")["hashtags"]] == [
        "cats", "catsofmastodon"]  # normalised as tags are


def test_exclude_unreviewed_keeps_only_the_exact_tag(client, people, drain):
    _, tokens = people
    post(client, tokens["alice"], status="#tea #teapot")
    drain()
    assert [t["name"] for t in search(client, tokens["bob"], q="tea",
                                      exclude_unreviewed="true")["hashtags"]] == ["tea"]
    assert search(client, tokens["bob"], q="te", exclude_unreviewed="true")["hashtags"] == []


def test_a_tag_is_indexed_once(client, people, drain, runtime):
    from stratus.repo import search as search_repo

    _, tokens = people
    post(client, tokens["alice"], status="#ferment")
    drain()
    assert search_repo.unindexed_tags(["ferment", "other"]) == ["other"]
    post(client, tokens["bob"], status="#Ferment again, and #kombucha")
    drain()
    assert [t["name"] for t in search(client, tokens["bob"], q="#fer")["hashtags"]] == [
        "ferment"]
    assert [t["name"] for t in search(client, tokens["bob"], q="komb")["hashtags"]] == [
        "kombucha"]


# --- statuses ------------------------------------------------------------------------------------
def status_ids(found):
    return [s["id"] for s in found]


def test_statuses_by_words_within_what_the_viewer_may_find(client, people, drain):
    ids_, tokens = people
    own = post(client, tokens["alice"], status="Baking sourdough bread today")
    liked = post(client, tokens["bob"], status="My sourdough starter is alive")
    bookmarked = post(client, tokens["carol"], status="Sourdough tips, thread")
    boosted = post(client, tokens["dave"], status="SOURDOUGH recipe inside")
    mention = post(client, tokens["dave"], status="@alice your sourdough looked great")
    post(client, tokens["bob"], status="Unrelated sourdough musings")  # not interacted with
    for status, action in ((liked, "favourite"), (bookmarked, "bookmark"), (boosted, "reblog")):
        assert client.post(f"/api/v1/statuses/{status['id']}/{action}",
                           headers=tokens["alice"]).status_code == 200
    drain()
    found = search(client, tokens["alice"], q="sourdough", type="statuses")["statuses"]
    assert status_ids(found) == [mention["id"], boosted["id"], bookmarked["id"], liked["id"],
                                 own["id"]]
    assert status_ids(search(client, tokens["alice"], q="sourdough bread")["statuses"]) == [
        own["id"]]
    assert search(client, tokens["alice"], q="sourdough pizza")["statuses"] == []
    # Each account searches its own scope.
    assert status_ids(search(client, tokens["carol"], q="sourdough")["statuses"]) == [
        bookmarked["id"]]


def test_undoing_an_interaction_takes_the_status_out_of_the_viewers_scope(client, people,
                                                                           drain):
    _, tokens = people
    status = post(client, tokens["bob"], status="Quince jam")
    client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["alice"])
    client.post(f"/api/v1/statuses/{status['id']}/bookmark", headers=tokens["alice"])
    drain()
    assert status_ids(search(client, tokens["alice"], q="quince")["statuses"]) == [status["id"]]
    client.post(f"/api/v1/statuses/{status['id']}/unfavourite", headers=tokens["alice"])
    drain()  # still bookmarked
    assert status_ids(search(client, tokens["alice"], q="quince")["statuses"]) == [status["id"]]
    client.post(f"/api/v1/statuses/{status['id']}/unbookmark", headers=tokens["alice"])
    drain()
    assert search(client, tokens["alice"], q="quince")["statuses"] == []
    assert status_ids(search(client, tokens["bob"], q="quince")["statuses"]) == [status["id"]]


def test_edits_and_deletions_follow_into_the_index(client, people, drain):
    from stratus.repo import search as search_repo

    ids_, tokens = people
    status = post(client, tokens["alice"], status="Plums in the icebox @bob")
    drain()
    assert status_ids(search(client, tokens["bob"], q="icebox")["statuses"]) == [status["id"]]
    response = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
                          data={"status": "Cherries in the fridge @bob"})
    assert response.status_code == 200
    drain()
    assert search(client, tokens["alice"], q="icebox")["statuses"] == []
    assert status_ids(search(client, tokens["bob"], q="cherries")["statuses"]) == [status["id"]]
    client.delete(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"])
    drain()
    assert search(client, tokens["alice"], q="cherries")["statuses"] == []
    assert search_repo.searchers(status["id"]) == {}
    assert not list(base.query(keys.status_word_partition(ids_["bob"], "cherries")))


def test_statuses_honour_visibility_blocks_mutes_and_account_id(client, people, drain):
    ids_, tokens = people
    from_bob = post(client, tokens["bob"], status="Lantern festival")
    from_carol = post(client, tokens["carol"], status="Lantern parade")
    own = post(client, tokens["alice"], status="Lantern lit")
    for status in (from_bob, from_carol):
        client.post(f"/api/v1/statuses/{status['id']}/favourite", headers=tokens["alice"])
    drain()
    assert status_ids(search(client, tokens["alice"], q="lantern")["statuses"]) == [
        own["id"], from_carol["id"], from_bob["id"]]
    assert status_ids(search(client, tokens["alice"], q="lantern", type="statuses",
                             account_id=ids_["carol"])["statuses"]) == [from_carol["id"]]
    client.post(f"/api/v1/accounts/{ids_['bob']}/mute", headers=tokens["alice"])
    client.post(f"/api/v1/accounts/{ids_['alice']}/block", headers=tokens["carol"])
    drain()
    assert status_ids(search(client, tokens["alice"], q="lantern")["statuses"]) == [own["id"]]


def test_statuses_paging_by_id_and_offset_only_with_type(client, people, drain):
    _, tokens = people
    posted = [post(client, tokens["alice"], status=f"Rhubarb number {n}")["id"]
              for n in range(5)]
    drain()
    newest_first = posted[::-1]
    assert status_ids(search(client, tokens["alice"], q="rhubarb")["statuses"]) == newest_first
    assert status_ids(search(client, tokens["alice"], q="rhubarb", type="statuses",
                             max_id=posted[3], min_id=posted[0])["statuses"]) == [
        posted[2], posted[1]]
    assert status_ids(search(client, tokens["alice"], q="rhubarb", type="statuses", limit="2",
                             offset="2")["statuses"]) == newest_first[2:4]
    # Without `type`, max_id/min_id and offset are not honoured.
    assert status_ids(search(client, tokens["alice"], q="rhubarb", max_id=posted[3],
                             offset="1", limit="2")["statuses"]) == newest_first[:2]


def test_statuses_by_url_or_uri_when_resolving(client, people, drain):
    ids_, tokens = people
    public = post(client, tokens["bob"], status="Find me by my address")
    private = post(client, tokens["bob"], status="Followers only", visibility="private")
    drain()
    for address in (public["url"], public["uri"]):
        body = search(client, tokens["alice"], q=address, resolve="true")
        assert status_ids(body["statuses"]) == [public["id"]]
        assert body["accounts"] == [] and body["hashtags"] == []
        # Another type, or an offset, finds nothing.
        assert search(client, tokens["alice"], q=address, resolve="true",
                      type="accounts") == NO_RESULTS
        assert search(client, tokens["alice"], q=address, resolve="true", type="statuses",
                      offset="1") == NO_RESULTS
    assert search(client, tokens["alice"], q=private["url"], resolve="true") == NO_RESULTS
    follow(client, tokens["alice"], ids_["bob"])
    drain()
    assert status_ids(search(client, tokens["alice"], q=private["url"],
                             resolve="true")["statuses"]) == [private["id"]]
    profile = search(client, tokens["alice"], q="http://localhost:8000/@bob", resolve="true")
    assert usernames(profile["accounts"]) == ["bob"]
    assert search(client, tokens["alice"], q="https://elsewhere.example/@bob/1",
                  resolve="true") == NO_RESULTS


def test_anonymous_searches_find_no_statuses(client, people, drain):
    _, tokens = people
    post(client, tokens["alice"], status="Public parsnips")
    drain()
    assert search(client, q="parsnips")["statuses"] == []


def test_a_new_tag_is_searchable_as_soon_as_it_is_posted(client, people):
    """Mastodon makes the Tag in the posting request: clients search right after posting."""
    _, tokens = people
    post(client, tokens["alice"], status="#hashtag_x #hashtag_y")
    assert [t["name"] for t in search(client, tokens["bob"], q="#hashtag")["hashtags"]] == [
        "hashtag_x", "hashtag_y"]
