"""The viewer's edges on a page (favourited, reblogged, bookmarked, pinned, muted): one Query
per kind over the page's id range, or the point keys when a kind has more edges in that range
than one Query reads (repo/statuses.viewer_edges). Both ways give the same answer."""

from __future__ import annotations

import pytest

from stratus.repo import statuses as statuses_repo

from tests.rig import post


@pytest.mark.parametrize("in_range", [100, 1])
def test_a_page_shows_the_viewers_own_edges_and_no_others(client, people, monkeypatch,
                                                           in_range):
    monkeypatch.setattr(statuses_repo, "EDGES_IN_RANGE", in_range)
    ids_, tokens = people
    posted = [post(client, tokens["bob"], status=f"bob {n}")["id"] for n in range(6)]
    for target in posted[1:4]:
        client.post(f"/api/v1/statuses/{target}/favourite", headers=tokens["alice"])
    client.post(f"/api/v1/statuses/{posted[2]}/bookmark", headers=tokens["alice"])
    client.post(f"/api/v1/statuses/{posted[4]}/reblog", headers=tokens["alice"])
    client.post(f"/api/v1/statuses/{posted[5]}/mute", headers=tokens["alice"])
    client.post(f"/api/v1/statuses/{posted[0]}/favourite", headers=tokens["carol"])
    page = client.get(f"/api/v1/accounts/{ids_['bob']}/statuses",
                      headers=tokens["alice"]).json()
    shown = {s["id"]: s for s in page}
    assert [sid for sid in posted if shown[sid]["favourited"]] == posted[1:4]
    assert [sid for sid in posted if shown[sid]["bookmarked"]] == [posted[2]]
    assert [sid for sid in posted if shown[sid]["reblogged"]] == [posted[4]]
    assert [sid for sid in posted if shown[sid]["muted"]] == [posted[5]]
    assert not shown[posted[0]]["favourited"]  # carol's like is not alice's
    assert shown[posted[1]]["favourites_count"] == 1
