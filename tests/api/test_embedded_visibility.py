"""One visibility policy guards every embedded status: a boost never shows an original the
viewer may not see, on any route that renders statuses, whatever the boost's own visibility.

Boosts of private statuses are only possible for their authors and now stay private; the old
code stored them with the booster's default visibility (public), so such boosts are written
here directly, as they exist in data written before the fix."""

from __future__ import annotations

import pytest
from stratus.core import clock, ids
from stratus.repo import base, keys, status_writes, transaction

from tests.rig import follow, post


def legacy_public_boost(account_id: str, original: dict) -> str:
    """A public boost of `original` by its author, as the old code wrote it."""
    boost_id = ids.new_id()
    item = {"id": boost_id, "account_id": account_id, "reblog_of_id": original["id"],
            "reblog_of_account_id": original["account"]["id"], "visibility": "public",
            "uri": f"http://localhost:8000/users/x/statuses/{boost_id}/activity", "url": None,
            "thread_id": boost_id, "local": True, "created_at": clock.iso(clock.now()),
            "mention_ids": [], "tags": [], "media_ids": []}
    transaction.write(status_writes.create_ops(item))
    base.put({**keys.reblog_edge(account_id, original["id"]), "type": "reblog",
              "id": ids.new_id(), "account_id": account_id, "status_id": original["id"],
              "status_account_id": original["account"]["id"], "reblog_id": boost_id,
              **keys.edge_index_keys("REBLOG", account_id, original["id"], boost_id)})
    return boost_id


@pytest.fixture
def world(client, people):
    """alice boosts her own private, direct and limited statuses (carol is mentioned in the
    direct one, bob follows alice, dave is a stranger); bob bookmarks and likes them."""
    ids_, tokens = people
    follow(client, tokens["bob"], ids_["alice"])
    private = post(client, tokens["alice"], status="for followers", visibility="private")
    direct = post(client, tokens["alice"], status="psst @carol", visibility="direct")
    limited = post(client, tokens["alice"], status="limited")
    base.update(keys.status(limited["id"]), "SET visibility = :v", vals={":v": "limited"})
    limited["visibility"] = "limited"
    boosts = {name: legacy_public_boost(ids_["alice"], status)
              for name, status in (("private", private), ("direct", direct),
                                   ("limited", limited))}
    return ids_, tokens, {"private": private, "direct": direct, "limited": limited}, boosts


# Who may see each original (and so its boosts): viewer name → kinds visible.
SEES = {None: set(), "dave": set(), "bob": {"private"}, "carol": {"direct"},
        "alice": {"private", "direct", "limited"}}


def headers_for(tokens, viewer):
    return tokens[viewer] if viewer else {}


@pytest.mark.parametrize("viewer", list(SEES))
def test_every_route_that_renders_statuses_hides_boosts_of_what_the_viewer_may_not_see(
        client, world, viewer):
    ids_, tokens, originals, boosts = world
    headers = headers_for(tokens, viewer)
    visible_boosts = {boosts[kind] for kind in SEES[viewer]}
    hidden_boosts = {boosts[kind] for kind in set(boosts) - SEES[viewer]}

    def rendered(response) -> set[str]:
        assert response.status_code in (200, 404), response.text
        if response.status_code == 404:
            return set()
        body = response.json()
        return {s["id"] for s in (body if isinstance(body, list) else [body])}

    # One status at a time, and many at once.
    for kind, boost_id in boosts.items():
        single = client.get(f"/api/v1/statuses/{boost_id}", headers=headers)
        assert (single.status_code == 200) == (kind in SEES[viewer]), (kind, single.text)
        context = client.get(f"/api/v1/statuses/{boost_id}/context", headers=headers)
        assert (context.status_code == 200) == (kind in SEES[viewer]), kind
    many = rendered(client.get("/api/v1/statuses?" + "&".join(f"id[]={b}" for b in boosts.values()),
                               headers=headers))
    assert many == visible_boosts
    # The booster's statuses (every filter), and her pinned ones.
    for query in ("", "?exclude_replies=true", "?only_media=false", "?limit=40"):
        listed = rendered(client.get(f"/api/v1/accounts/{ids_['alice']}/statuses{query}",
                                     headers=headers))
        assert not listed & hidden_boosts and visible_boosts <= listed, query
    assert not rendered(client.get(f"/api/v1/accounts/{ids_['alice']}/statuses?pinned=true",
                                   headers=headers)) & hidden_boosts
    # Embedded in interaction responses: acting on a boost acts on (and shows) its original.
    if viewer:
        for kind, boost_id in boosts.items():
            response = client.post(f"/api/v1/statuses/{boost_id}/bookmark", headers=headers)
            assert (response.status_code == 200) == (kind in SEES[viewer]), kind
        marked = rendered(client.get("/api/v1/bookmarks", headers=headers))
        assert marked == {originals[kind]["id"] for kind in SEES[viewer]}


def test_a_self_boost_of_a_private_status_stays_private(client, people):
    ids_, tokens = people
    follow(client, tokens["bob"], ids_["alice"])
    private = post(client, tokens["alice"], status="followers only", visibility="private")
    boost = client.post(f"/api/v1/statuses/{private['id']}/reblog", headers=tokens["alice"],
                        data={"visibility": "public"}).json()
    assert boost["visibility"] == "private"
    assert client.get(f"/api/v1/statuses/{boost['id']}").status_code == 404
    assert client.get(f"/api/v1/statuses/{boost['id']}", headers=tokens["dave"]).status_code == 404
    assert client.get(f"/api/v1/statuses/{boost['id']}", headers=tokens["bob"]).status_code == 200
    listed = client.get(f"/api/v1/accounts/{ids_['alice']}/statuses").json()
    assert boost["id"] not in {s["id"] for s in listed}
    anonymous_many = client.get(f"/api/v1/statuses?id[]={boost['id']}").json()
    assert anonymous_many == []
