"""Mastodon.py over real HTTP: hashtags (tag, follow, followed tags, unfollow), conversations
of direct statuses (list, page on through the Link header, mark read) and the link timeline."""

from __future__ import annotations


from tests.rig import mastodon_py_users

def test_tags_conversations_and_links_with_mastodon_py(live_server):
    base = live_server.base_url
    ann, ben = mastodon_py_users(base, "ann", "ben", app="social test")

    assert ann.tag("Caturday").following is False
    assert ann.tag_follow("Caturday").following is True
    ann.tag_follow("dogs")
    assert [t.name for t in ann.followed_tags()] == ["dogs", "caturday"]
    first = ann.followed_tags(limit=1)
    assert [t.name for t in ann.fetch_next(first)] == ["caturday"]
    assert ann.tag_unfollow("dogs").following is False
    ben.status_post("#caturday is here")
    live_server.pipeline.drain()
    assert ann.tag("caturday").history[0].uses == "1"

    opening = ann.status_post("@ben psst", visibility="direct")
    live_server.pipeline.drain()
    ben.status_post("@ann yes?", visibility="direct", in_reply_to_id=opening.id)
    ann.status_post("@ben another thread", visibility="direct")
    live_server.pipeline.drain()
    newest, older = ann.conversations()
    assert newest.unread is False and older.unread is True
    assert [a.acct for a in older.accounts] == ["ben"]
    page = ann.conversations(limit=1)
    assert [c.id for c in ann.fetch_next(page)] == [older.id]
    assert ann.conversations_read(older.id).unread is False
    assert [c.unread for c in ann.conversations()] == [False, False]

    ben.account_update_credentials(discoverable=True)
    linking = ben.status_post("worth reading https://news.example/story")
    live_server.pipeline.drain()
    assert [s.id for s in ann.timeline_link("https://news.example/story")] == [linking.id]
