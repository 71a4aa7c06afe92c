"""Mastodon.py and the social graph over real HTTP: follow with options, relationships, a
locked account's requests, followers paging through the Link header, familiar followers,
block, mute with a duration, domain blocks, endorsements."""

from __future__ import annotations


from tests.rig import mastodon_py_users

def test_the_graph_with_mastodon_py(live_server):
    base = live_server.base_url
    ann, ben, cat = mastodon_py_users(base, "ann", "ben", "cat", app="graph test")
    ann_id, ben_id, cat_id = ann.me().id, ben.me().id, cat.me().id

    followed = ann.account_follow(ben_id, reblogs=False, notify=True)
    assert followed.following is True and followed.showing_reblogs is False
    assert followed.notifying is True
    [seen] = ben.account_relationships(ann_id)
    assert seen.followed_by is True and seen.following is False

    cat.account_update_credentials(locked=True)
    asked = ann.account_follow(cat_id)
    assert asked.requested is True and asked.following is False
    assert [a.id for a in cat.follow_requests()] == [ann_id]
    assert cat.follow_request_authorize(ann_id).followed_by is True
    ben.account_follow(cat_id)
    assert cat.follow_requests()[0].id == ben_id
    cat.follow_request_reject(ben_id)
    assert cat.follow_requests() == []

    live_server.pipeline.drain()  # counts follow from the stream
    assert ann.account(cat_id).followers_count == 1
    assert ann.me().following_count == 2

    cat.account_follow(ben_id)
    first = ann.account_followers(ben_id, limit=1)
    assert [a.id for a in first] == [cat_id]
    assert [a.id for a in ann.fetch_next(first)] == [ann_id]
    [familiar] = ann.account_familiar_followers(ben_id)
    assert [a.id for a in familiar.accounts] == [cat_id]

    assert ann.account_pin(ben_id).endorsed is True
    assert [a.id for a in ann.endorsements()] == [ben_id]

    muted = ann.account_mute(cat_id, notifications=False, duration=3600)
    assert muted.muting is True and muted.muting_notifications is False
    assert [a.id for a in ann.mutes()] == [cat_id]
    assert ann.mutes()[0].mute_expires_at is not None
    assert ann.account_unmute(cat_id).muting is False

    blocked = ben.account_block(ann_id)
    assert blocked.blocking is True and blocked.followed_by is False
    assert [a.id for a in ben.blocks()] == [ann_id]
    [after] = ann.account_relationships(ben_id)
    assert (after.blocked_by, after.following, after.endorsed) == (True, False, False)

    ann.domain_block("spam.example")
    assert ann.domain_blocks() == ["spam.example"]
    ann.domain_unblock("spam.example")
    assert ann.domain_blocks() == []
