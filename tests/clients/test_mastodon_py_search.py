"""Mastodon.py over real HTTP: search_v2 (accounts, hashtags, statuses, a status by its URL,
offset paging with fetch_next) and account_search."""

from __future__ import annotations

from tests.rig import mastodon_py_users


def test_search_with_mastodon_py(live_server):
    ann, ben, bert = mastodon_py_users(live_server.base_url, "ann", "ben", "bert",
                                       app="search test")
    ben.account_update_credentials(display_name="Benjamin Annex")
    mine = ann.status_post("Planting #tomatoes and #tomatillos today")
    theirs = ben.status_post("Tomatoes are ripe")
    ann.status_favourite(theirs.id)
    live_server.pipeline.drain()

    found = ann.search_v2("be", resolve=False)
    assert [a.acct for a in found.accounts] == ["ben", "bert"]
    assert [a.acct for a in ann.search_v2("annex", resolve=False).accounts] == ["ben"]
    # Mastodon.py asks for reviewed tags only by default: no tag is reviewed, so only the
    # exact one is found; without that, every tag with the prefix, shortest first.
    assert [t.name for t in ann.search_v2("#tomatoes").hashtags] == ["tomatoes"]
    assert [t.name for t in ann.search_v2("tomat", exclude_unreviewed=False).hashtags] == [
        "tomatoes", "tomatillos"]
    assert [s.id for s in ann.search_v2("tomatoes", resolve=False).statuses] == [
        theirs.id, mine.id]
    assert [s.id for s in bert.search_v2("tomatoes", resolve=False).statuses] == []
    assert [s.id for s in ann.search_v2(theirs.url).statuses] == [theirs.id]

    page = ann.search_v2("b", result_type="accounts", limit=1, resolve=False)
    assert [a.acct for a in page.accounts] == ["ben"]
    assert [a.acct for a in ann.fetch_next(page).accounts] == ["bert"]

    assert [a.acct for a in ann.account_search("ber")] == ["bert"]
    assert [a.acct for a in ann.account_search("b", following=True)] == []
    ann.account_follow(bert.me().id)
    live_server.pipeline.drain()
    assert [a.acct for a in ann.account_search("b", following=True)] == ["bert"]
