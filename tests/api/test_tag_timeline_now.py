"""Hashtag timelines read their writes (issue #21): a status's hashtag entries are written with
the status (repo/status_writes), so `GET /api/v1/timelines/tag/:hashtag` shows a post, an edit
and a deletion on the very next request — none of these tests runs the pipeline (`drain`)
before looking. A status with more tags than one transaction holds has the first
TAGS_IN_WRITE indexed in its write and the rest by the effects worker, each entry written once.
"""

from __future__ import annotations

from stratus.api.instance.instance import solid_png
from stratus.core import ids
from stratus.repo import base, keys, status_writes, transaction
from stratus.repo import tags as tags_repo

from tests.rig import make_remote_account, post

PNG = solid_png(16, 16, (200, 40, 40))
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"


def tag(client, name, **params):
    response = client.get(f"/api/v1/timelines/tag/{name}", params=params)
    assert response.status_code == 200, response.text[:300]
    return [s["id"] for s in response.json()]


def test_a_post_is_on_its_tag_timelines_on_the_next_request(client, people):
    _, tokens = people
    media = client.post("/api/v2/media", headers=tokens["carol"],
                        files={"file": ("cat.png", PNG, "image/png")}).json()
    cats = post(client, tokens["alice"], status="#Cats")
    assert tag(client, "cats") == [cats["id"]]  # before anything else is written
    both = post(client, tokens["bob"], status="#cats and #dogs")
    dogs = post(client, tokens["carol"], status="#Dogs", **{"media_ids[]": [media["id"]]})
    hidden = post(client, tokens["dave"], status="#cats secret", visibility="private")
    assert tag(client, "cats") == [both["id"], cats["id"]]
    assert hidden["id"] not in tag(client, "cats")
    assert tag(client, "cats", **{"any[]": ["dogs"]}) == [dogs["id"], both["id"], cats["id"]]
    assert tag(client, "cats", **{"all[]": ["dogs"]}) == [both["id"]]
    assert tag(client, "cats", **{"none[]": ["dogs"]}) == [cats["id"]]
    assert tag(client, "cats", local="true") == [both["id"], cats["id"]]
    assert tag(client, "cats", remote="true") == []
    assert tag(client, "dogs", only_media="true") == [dogs["id"]]
    assert tag(client, "cats", only_media="true") == []
    assert tags_repo.known("cats") and tags_repo.known("dogs")  # the tags' markers too


def test_edits_and_deletions_show_on_the_next_request(client, people):
    _, tokens = people
    first = post(client, tokens["alice"], status="#cats first")
    second = post(client, tokens["bob"], status="#cats second")
    assert tag(client, "cats") == [second["id"], first["id"]]

    def edit(status_id, headers, text):
        response = client.put(f"/api/v1/statuses/{status_id}", headers=headers,
                              data={"status": text})
        assert response.status_code == 200, response.text[:300]

    edit(first["id"], tokens["alice"], "now about #dogs")
    assert tag(client, "cats") == [second["id"]]
    assert tag(client, "dogs") == [first["id"]]
    edit(second["id"], tokens["bob"], "#cats and #Birds")
    assert tag(client, "birds") == [second["id"]] and tag(client, "cats") == [second["id"]]
    assert tag(client, "dogs", **{"any[]": ["birds"]}) == [second["id"], first["id"]]
    assert client.delete(f"/api/v1/statuses/{second['id']}",
                         headers=tokens["bob"]).status_code == 200
    assert tag(client, "cats") == [] and tag(client, "birds") == []
    assert tag(client, "dogs") == [first["id"]]


def _count_worker_tag_writes(monkeypatch) -> list[tuple[str, tuple[str, ...]]]:
    calls: list[tuple[str, tuple[str, ...]]] = []
    index, unindex = tags_repo.index, tags_repo.unindex

    def spy_index(status_id, names, fields):
        if names:
            calls.append(("index", tuple(names)))
        return index(status_id, names, fields)

    def spy_unindex(status_id, names):
        if names:
            calls.append(("unindex", tuple(names)))
        return unindex(status_id, names)

    monkeypatch.setattr(tags_repo, "index", spy_index)
    monkeypatch.setattr(tags_repo, "unindex", spy_unindex)
    return calls


def test_tags_beyond_one_transaction_are_left_to_the_worker(client, people, drain,
                                                            monkeypatch):
    _, tokens = people
    n = status_writes.TAGS_IN_WRITE
    names = [f"t{i:02d}" for i in range(n + 5)]
    worker = _count_worker_tag_writes(monkeypatch)
    status = post(client, tokens["alice"], status=" ".join(f"#{t}" for t in names))
    assert all(tag(client, t) == [status["id"]] for t in names[:n])
    assert all(tag(client, t) == [] for t in names[n:])  # the worker's, not yet
    drain()
    assert all(tag(client, t) == [status["id"]] for t in names)
    assert worker == [("index", tuple(names[n:]))]  # each entry written once
    worker.clear()

    kept = names[:3]
    response = client.put(f"/api/v1/statuses/{status['id']}", headers=tokens["alice"],
                          data={"status": " ".join(f"#{t}" for t in kept + ["fresh"])})
    assert response.status_code == 200, response.text[:300]
    assert tag(client, "fresh") == [status["id"]]
    assert all(tag(client, t) == [] for t in names[3:n + 3])  # the first n removed
    drain()
    assert all(tag(client, t) == [] for t in names[3:])
    assert worker == [("unindex", tuple(names[n + 3:]))]
    assert all(tag(client, t) == [status["id"]] for t in kept)
    assert client.delete(f"/api/v1/statuses/{status['id']}",
                         headers=tokens["alice"]).status_code == 200
    assert all(tag(client, t) == [] for t in kept + ["fresh"])


def _media(account_id: str, status_id: str, number: int) -> dict:
    """An attachment as federation/status_objects.media reads one (by its remote URL)."""
    return {"id": ids.new_id(), "account_id": account_id, "status_id": status_id,
            "media_type": "image", "remote_url": f"https://far.example/{number}.png",
            "mime_type": "image/png", "description": None, "blurhash": None, "meta": {},
            "created_at": "2026-01-02T00:00:00.000Z"}


def _remote_item(account_id: str, tag_names: list[str], **extra) -> dict:
    status_id = ids.new_id()
    return {"id": status_id, "account_id": account_id, "visibility": "public",
            "thread_id": status_id, "local": False, "content": "<p>tags</p>",
            "uri": f"https://far.example/notes/{status_id}", "created_at": "2026-01-02T00:00:00Z",
            "mention_ids": [], "tags": tag_names, "media_ids": [], **extra}


def test_a_write_stays_within_one_transaction_whatever_the_tags(runtime):
    """The worst cases of repo/status_writes' budget: a remote status with 16 attachments, a
    poll and 200 tags, all new here; an edit replacing 200 tags by 200 others with its
    history, four descriptions and a new poll; its removal. Room for 4 more ops each."""
    account_id = make_remote_account("far.example", "fay")
    n = status_writes.TAGS_IN_WRITE
    old = [f"old{i}" for i in range(200)]
    item = _remote_item(account_id, old)
    media = [_media(account_id, item["id"], i) for i in range(16)]
    item["media_ids"] = [m["id"] for m in media]
    creation = [base.Op("Put", item={**keys.key("URI#x", "URI"), "type": "x"}),
                base.Op("Put", item={**keys.key("POLL#x", "POLL"), "type": "x"}),
                *status_writes.create_ops(item, media=media)]
    assert len(creation) == 16 + 2 + 2 + 2 * n and len(creation) + 4 <= 100
    transaction.write(creation[2:])  # the tags are written in it, all new: a marker each
    assert all(tags_repo.known(t) for t in old[:n]) and not tags_repo.known(old[n])
    changes = {"tags": [f"new{i}" for i in range(200)], "edited_at": "2026-01-03T00:00:00Z",
               "media_ids": item["media_ids"]}
    editing = status_writes.edit_ops(item, changes, poll_options_before=None,
                                     poll_options_after=None)
    assert len(editing) == 2 + 1 + 3 * n and len(editing) + 4 + 2 + 4 <= 100
    removal = status_writes.removal_ops(item, uri=item["uri"])
    assert len(removal) + 4 <= 100


def test_an_edit_that_attaches_media_refreshes_the_entries(client, runtime):
    """Edits keep their attachments today (ours refuse a change, a remote Update's are not
    read); the write still keeps what the entries carry right if one changes them."""
    account_id = make_remote_account("far.example", "fay")
    item = _remote_item(account_id, ["cats", "dogs"])
    transaction.write(status_writes.create_ops(item))
    assert tag(client, "cats") == [item["id"]]
    assert tag(client, "cats", only_media="true") == []
    media = _media(account_id, item["id"], 1)
    changes = {"tags": ["cats", "birds"], "media_ids": [media["id"]],
               "edited_at": "2026-01-03T00:00:00Z"}
    transaction.write([base.put_new({**keys.media(media["id"]), "type": "media_attachment",
                                     **media}),
                       *status_writes.edit_ops(item, changes, poll_options_before=None,
                                               poll_options_after=None)])
    assert tag(client, "cats", only_media="true") == [item["id"]]
    assert tag(client, "birds", only_media="true") == [item["id"]]
    assert tag(client, "dogs") == []


def test_a_federated_create_is_on_the_tag_timeline_when_the_inbox_worker_is_done(
        client, runtime, peer, peer_site):
    """The inbox worker stores the status; nothing after it (stream, dispatch, effects) runs
    before the timeline is read."""
    note = peer.note('<p><a href="https://far.example/tags/Otters" class="mention hashtag" '
                     'rel="tag">#<span>Otters</span></a></p>',
                     tag=[{"type": "Hashtag", "href": "https://far.example/tags/Otters",
                           "name": "#Otters"}])
    response = peer.post(client, peer.activity("Create", note, to=[PUBLIC],
                                               cc=[peer.followers]), "/inbox")
    assert response.status_code == 202, response.text[:300]
    [inbox] = [q for q in runtime.pipeline.queues if q.function == "InboxWorkerFunction"]
    while runtime.pipeline.pump_queue(inbox):
        pass
    found = client.get("/api/v1/timelines/tag/otters", params={"remote": "true"}).json()
    assert [s["uri"] for s in found] == [note["id"]]
    assert tag(client, "otters", local="true") == []
