"""Mastodon.py posting and interacting: poll, media (a real PNG), schedule, edit, history,
favourite, reblog, bookmark, pin a private status, delete and read back `text`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mastodon import Mastodon
from stratus.api.instance.instance import solid_png

from tests.rig import make_user


def test_statuses_with_mastodon_py(live_server, tmp_path):
    base = live_server.base_url
    make_user("writer", "writer@example.org", "writer password")
    make_user("reader", "reader@example.org", "reader password")
    client_id, secret = Mastodon.create_app("statuses test", api_base_url=base,
                                            scopes=["read", "write", "follow"])

    def login(email, password):
        api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base)
        api.log_in(email, password, scopes=["read", "write", "follow"], allow_http=True)
        return api

    writer, reader = login("writer@example.org", "writer password"), \
        login("reader@example.org", "reader password")

    poll = writer.make_poll(["yes", "no"], expires_in=3600)
    with_poll = writer.status_post("Do you like clouds?", poll=poll)
    assert [o.title for o in with_poll.poll.options] == ["yes", "no"]
    voted = reader.poll_vote(with_poll.poll.id, [0])
    assert voted.voted is True and voted.options[0].votes_count == 1

    image = tmp_path / "cloud.png"
    image.write_bytes(solid_png(120, 80, (240, 240, 250)))
    media = writer.media_post(str(image), description="a pale cloud")
    assert media.type == "image" and media.meta.original.width == 120
    with_media = writer.status_post("A cloud", media_ids=[media])
    assert with_media.media_attachments[0].description == "a pale cloud"

    when = datetime.now(UTC) + timedelta(minutes=30)
    scheduled = writer.status_post("Later", scheduled_at=when)
    assert scheduled.params.text == "Later"
    assert [s.id for s in writer.scheduled_statuses()] == [scheduled.id]
    writer.scheduled_status_delete(scheduled)

    edited = writer.status_update(with_media.id, status="A big cloud")
    assert "big cloud" in edited.content and edited.edited_at is not None
    history = writer.status_history(with_media.id)
    assert len(history) == 2 and "A cloud" in history[0].content

    liked = reader.status_favourite(with_media.id)
    assert liked.favourited is True and liked.favourites_count == 1  # own like shown at once
    boost = reader.status_reblog(with_media.id)
    assert boost.reblog.id == with_media.id and boost.reblog.reblogs_count == 1
    assert reader.status_bookmark(with_media.id).bookmarked is True
    assert [s.id for s in reader.bookmarks()] == [with_media.id]
    assert [s.id for s in reader.favourites()] == [with_media.id]
    live_server.pipeline.drain()  # the counters follow from the stream
    fresh = writer.status(with_media.id)
    assert fresh.favourites_count == 1 and fresh.reblogs_count == 1

    private = writer.status_post("Followers only", visibility="private")
    assert writer.status_pin(private.id).pinned is True
    pinned = writer.account_statuses(writer.me().id, pinned=True)
    assert [s.id for s in pinned] == [private.id]

    deleted = writer.status_delete(with_poll.id)
    assert deleted.text == "Do you like clouds?"
    context = writer.status_context(with_media.id)
    assert context.ancestors == [] and context.descendants == []
