"""Mastodon.py over real HTTP reads a hashtag timeline right after posting, editing and
deleting (issue #21: the hashtag entries are written with the status). The live server runs no
pipeline by itself, and this test never drains it: what it sees is what the requests wrote."""

from __future__ import annotations

from tests.rig import mastodon_py_users


def test_hashtag_timeline_reads_its_writes_with_mastodon_py(live_server):
    ann, ben = mastodon_py_users(live_server.base_url, "ann", "ben", app="tag timeline test")

    posted = ann.status_post("#Caturday is here")
    assert [s.id for s in ben.timeline_hashtag("caturday")] == [posted.id]
    other = ben.status_post("#caturday and #Dogs")
    assert [s.id for s in ann.timeline_hashtag("caturday")] == [other.id, posted.id]
    assert [s.id for s in ann.timeline_hashtag("caturday", local=True)] == [other.id, posted.id]
    assert [s.id for s in ann.timeline_hashtag("caturday", only_media=True)] == []
    assert [s.id for s in ann.timeline_hashtag("dogs")] == [other.id]

    ann.status_update(posted.id, "no tag now")
    assert [s.id for s in ben.timeline_hashtag("caturday")] == [other.id]
    ann.status_update(posted.id, "#dogs after all")
    assert [s.id for s in ben.timeline_hashtag("dogs")] == [other.id, posted.id]
    ben.status_delete(other.id)
    assert [s.id for s in ann.timeline_hashtag("dogs")] == [posted.id]
    assert ann.timeline_hashtag("caturday") == []
