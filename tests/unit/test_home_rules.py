"""Mastodon's home-feed rules (FeedManager#filter_from_home?), as fan-out applies them."""

from __future__ import annotations

from stratus.repo.feeds import Crutches
from stratus.workers.fanout import filtered_from_home

ME = "1"
POST = {"id": "10", "account_id": "2", "mention_ids": []}


def rules(follows=(), blocks=(), mutes=(), options=None) -> Crutches:
    crutches = Crutches()
    for pair in follows:
        crutches.follows[pair] = {**(options or {})}
    crutches.blocks |= set(blocks)
    for pair in mutes:
        crutches.mutes[pair] = {}
    return crutches


def test_own_statuses_always_reach_home():
    assert not filtered_from_home({**POST, "account_id": ME}, None, ME, rules())


def test_blocked_or_muted_authors_and_mentions_stay_out():
    assert filtered_from_home(POST, None, ME, rules(follows=[(ME, "2")], blocks=[(ME, "2")]))
    assert filtered_from_home(POST, None, ME, rules(follows=[(ME, "2")], mutes=[(ME, "2")]))
    mentioning = {**POST, "mention_ids": ["3"]}
    assert filtered_from_home(mentioning, None, ME,
                              rules(follows=[(ME, "2")], mutes=[(ME, "3")]))


def test_replies_need_the_receiver_to_follow_whom_they_answer():
    reply = {**POST, "in_reply_to_id": "9", "in_reply_to_account_id": "4"}
    followed = rules(follows=[(ME, "2")])
    assert filtered_from_home(reply, None, ME, followed)
    assert not filtered_from_home(reply, None, ME, rules(follows=[(ME, "2"), (ME, "4")]))
    assert not filtered_from_home({**reply, "in_reply_to_account_id": ME}, None, ME, followed)
    assert not filtered_from_home({**reply, "in_reply_to_account_id": "2"}, None, ME, followed)


def test_boosts():
    boost = {**POST, "reblog_of_id": "8"}
    original = {"id": "8", "account_id": "5", "mention_ids": []}
    assert not filtered_from_home(boost, original, ME, rules(follows=[(ME, "2")]))
    hiding = rules(follows=[(ME, "2")], options={"show_reblogs": False})
    assert filtered_from_home(boost, original, ME, hiding)
    assert filtered_from_home(boost, original, ME,
                              rules(follows=[(ME, "2")], blocks=[("5", ME)]))
    assert filtered_from_home(boost, original, ME,
                              rules(follows=[(ME, "2")], mutes=[(ME, "5")]))


def test_a_follows_languages():
    german = {**POST, "language": "de"}
    only_french = rules(follows=[(ME, "2")], options={"languages": ["fr"]})
    assert filtered_from_home(german, None, ME, only_french)
    assert not filtered_from_home({**POST, "language": None}, None, ME, only_french)
    assert not filtered_from_home(german, None, ME,
                                  rules(follows=[(ME, "2")], options={"languages": ["de"]}))


def test_hashtag_followers_need_not_follow_but_blocks_and_mutes_still_count():
    from stratus.workers.fanout import filtered_from_tags

    assert not filtered_from_tags(POST, ME, rules())
    assert not filtered_from_tags({**POST, "in_reply_to_id": "9",
                                   "in_reply_to_account_id": "4"}, ME, rules())
    assert filtered_from_tags(POST, ME, rules(blocks=[("2", ME)]))  # the author blocks me
    assert filtered_from_tags(POST, ME, rules(mutes=[(ME, "2")]))
    assert filtered_from_tags({**POST, "account_id": ME}, ME, rules())  # mine: home has it
