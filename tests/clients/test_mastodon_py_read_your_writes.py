"""Mastodon.py over real HTTP sees the counts its last request changed (issue #21): a reply, a
like, a boost, a post, a follow, a poll vote. The live server runs no pipeline by itself and
this test never drains it, so every count here was written by the request itself."""

from __future__ import annotations

from tests.rig import mastodon_py_users


def test_counts_read_their_writes_with_mastodon_py(live_server):
    ann, ben, cat = mastodon_py_users(live_server.base_url, "ann", "ben", "cat",
                                      app="read your writes test")
    me = ann.account_verify_credentials()

    question = ann.status_post("Tea or coffee?",
                               poll=ann.make_poll(["tea", "coffee"], expires_in=3600))
    assert ann.account_verify_credentials().statuses_count == 1
    assert cat.account(me.id).statuses_count == 1

    ben.status_post("@ann coffee", in_reply_to_id=question.id)
    assert cat.status(question.id).replies_count == 1
    assert len(cat.status_context(question.id).descendants) == 1

    ben.status_favourite(question.id)
    assert cat.status(question.id).favourites_count == 1
    ben.status_reblog(question.id)
    assert cat.status(question.id).reblogs_count == 1
    assert cat.account(ben.account_verify_credentials().id).statuses_count == 2  # reply, boost

    cat.account_follow(me.id)
    assert ben.account(me.id).followers_count == 1
    assert ben.account(cat.account_verify_credentials().id).following_count == 1

    cat.poll_vote(question.poll.id, [1])
    poll = ben.poll(question.poll.id)
    assert (poll.votes_count, poll.voters_count) == (1, 1)

    ben.status_unfavourite(question.id)
    ben.status_unreblog(question.id)
    cat.account_unfollow(me.id)
    seen = cat.status(question.id)
    assert (seen.favourites_count, seen.reblogs_count) == (0, 0)
    assert ben.account(me.id).followers_count == 0
