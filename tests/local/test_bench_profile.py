"""The usage profile of `python -m bench cost` (bench/profile.py): each count per MAU a month
derived from the stated inputs, and bounded as the inputs bound it."""

from __future__ import annotations

import math

import pytest

from bench import profile
from bench.profile import INPUTS, Inputs


@pytest.mark.parametrize("mau", profile.SIZES)
def test_a_homes_remote_entries_are_its_remote_follows_statuses_whatever_the_size(mau):
    found = profile.at(mau)
    share = INPUTS.remote_share[mau]
    monthly = INPUTS.remote_statuses_per_day * profile.DAYS_PER_MONTH
    # Each inbound status reaches the local followers of its author: over the instance, every
    # remote follow gets its account's statuses once.
    assert found.remote_feed_entries == pytest.approx(INPUTS.follows * share * monthly)
    assert found.remote_feed_entries <= profile.feed_ceiling() == 150 * 2.5 * 30
    assert found.receivers_per_inbound_status == pytest.approx(
        found.remote_follows / found.remote_accounts)
    assert found.receivers_per_inbound_status >= 1


def test_the_remote_accounts_followed_grow_slower_than_the_mau_and_stop_at_the_cap():
    small, middle, large = (profile.at(n) for n in profile.SIZES)
    assert small.remote_accounts < middle.remote_accounts < large.remote_accounts
    assert large.remote_accounts <= INPUTS.active_remote_accounts
    assert small.remote_accounts / 100 > middle.remote_accounts / 10_000 > \
        large.remote_accounts / 1_000_000
    # The cap: 500,000 accounts at 2.5 statuses a day are 37.5 deliveries per MAU a month at
    # 1,000,000 MAU, however many follow them.
    assert large.inbound_statuses <= 37.5
    assert large.inbound_statuses == pytest.approx(37.5, rel=0.02)
    # The receivers grow with the overlap, the local ones with the local follows.
    assert small.receivers_per_inbound_status < middle.receivers_per_inbound_status < \
        large.receivers_per_inbound_status
    assert middle.receivers_per_local_status == pytest.approx(150 * 0.35)


def test_distinct_accounts_are_the_occupancy_of_follows_drawn_by_popularity():
    # With every account equally popular the count is the classic occupancy A(1 - e^(-M/A)).
    even = Inputs(popularity_sigma=0.0)
    for follows in (1_000, 300_000, 5_000_000):
        expected = even.active_remote_accounts * -math.expm1(
            -follows / even.active_remote_accounts)
        assert profile.remote_accounts_followed(follows, even) == pytest.approx(expected)
    # Popular accounts draw many follows: fewer distinct ones than if all were equal.
    assert profile.remote_accounts_followed(300_000) < \
        profile.remote_accounts_followed(300_000, even)


def test_remote_reactions_come_with_local_statuses_not_with_follows():
    for mau in profile.SIZES:
        found = profile.at(mau)
        share = INPUTS.remote_share[mau]
        # A status gets as many likes as accounts give per status written; the remote share
        # of them comes from other servers.
        likes_per_status = INPUTS.actions["likes"] / found.local_statuses
        assert found.inbound["like"] == pytest.approx(
            found.local_statuses * likes_per_status * share)
        assert found.inbound["announce"] == pytest.approx(INPUTS.actions["boosts"] * share)
    more_follows = Inputs(follows=300)
    assert profile.at(10_000, more_follows).inbound["like"] == profile.at(10_000).inbound["like"]
    assert profile.at(10_000, more_follows).inbound["create"] > profile.at(10_000).inbound["create"]


def test_deletes_edits_and_gets_follow_what_causes_them():
    found = profile.at(10_000)
    assert found.inbound["delete"] == pytest.approx(found.inbound_statuses * 8 / 58)
    assert found.inbound["update"] == pytest.approx(found.inbound_statuses * 5 / 58)
    deliveries = sum(v for k, v in found.inbound.items() if k != "get")
    assert found.inbound["get"] == pytest.approx(0.02 * deliveries)
    assert found.inbound_requests == pytest.approx(deliveries * 1.02)


def test_untouched_statuses_and_busy_windows():
    small, middle, large = (profile.at(n) for n in profile.SIZES)
    # A receiver touches ~1 % of what its home gets; a status with more receivers is touched
    # more often.
    assert 0 < profile.touched_share(small) < profile.touched_share(middle) < \
        profile.touched_share(large) < 1
    chance = (90 + 15 + 12) / (150 * 75)
    assert profile.touched_share(middle) == pytest.approx(
        1 - (1 - chance) ** middle.receivers_per_inbound_status)
    # 100 MAU: under a request a second (quiet); 10,000: over ten in a batching window.
    assert profile.busy_factor(small) < 1 < 10 < profile.busy_factor(middle)
