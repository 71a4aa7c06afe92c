"""The visibility policy on its own: Mastodon's StatusPolicy#show? (`can_see`) and
StatusFilter#filtered? (`hidden`), read from a viewer's relationship view."""

from __future__ import annotations

import pytest
from stratus.model.relationships import FollowOptions, Mute, Relationships
from stratus.policy import visibility

AUTHOR, VIEWER = "1", "2"


def status(visibility_: str = "public", **extra) -> dict:
    return {"id": "10", "account_id": AUTHOR, "visibility": visibility_, **extra}


def view(**fields) -> Relationships:
    return Relationships(VIEWER, known={AUTHOR}, **fields)


@pytest.mark.parametrize("visibility_, relations, seen", [
    ("public", view(), True),
    ("unlisted", view(), True),
    ("public", view(blocked_by={AUTHOR}), False),  # the author blocks the viewer
    ("public", view(blocking={AUTHOR}), True),  # a direct read still shows the blocked's
    ("public", view(muting={AUTHOR: Mute()}), True),
    ("private", view(), False),
    ("private", view(following={AUTHOR: FollowOptions()}), True),
    ("private", view(requested={AUTHOR: FollowOptions()}), False),  # a request is no follow
    ("direct", view(following={AUTHOR: FollowOptions()}), False),
    ("limited", view(following={AUTHOR: FollowOptions()}), False),
])
def test_can_see(visibility_, relations, seen):
    assert visibility.can_see(status(visibility_), relations) is seen


def test_anonymous_viewers_see_public_and_unlisted_only():
    nobody = Relationships(None)
    assert [visibility.can_see(status(v), nobody)
            for v in ("public", "unlisted", "private", "direct")] == [True, True, False, False]


def test_mentioned_viewers_see_private_and_direct_statuses():
    for kind in ("private", "direct", "limited"):
        assert visibility.can_see(status(kind, mention_ids=[VIEWER]), view())


@pytest.mark.parametrize("relations, hidden", [
    (view(), False),
    (view(blocking={AUTHOR}), True),
    (view(blocked_by={AUTHOR}), True),
    (view(muting={AUTHOR: Mute(notifications=False)}), True),
    (view(domain_blocking={"remote.example"}), True),
    (view(domain_blocking={"elsewhere.example"}), False),
])
def test_lists_and_threads_leave_out_blocked_muted_and_domain_blocked_authors(relations, hidden):
    remote = status(account_domain="Remote.Example")
    assert visibility.hidden(remote, relations) is hidden


def test_own_statuses_are_never_hidden():
    mine = {"id": "10", "account_id": VIEWER, "visibility": "direct"}
    assert not visibility.hidden(mine, view(blocking={VIEWER}))


def test_boosts_of_excluded_accounts_are_left_out_of_an_account_page():
    boost = {"id": "11", "account_id": AUTHOR, "reblog_of_id": "5",
             "reblog_of_account_id": "3", "visibility": "public"}
    assert visibility.boosts_excluded(boost, view(muting={"3": Mute()}))
    assert not visibility.boosts_excluded(boost, view())
    assert not visibility.boosts_excluded(status(), view(blocking={AUTHOR}))


def test_reblog_and_favourite_rules():
    assert visibility.can_reblog(status(), view())
    assert not visibility.can_reblog(status(), view(blocking={AUTHOR}))
    assert not visibility.can_reblog(status("private"),
                                     view(following={AUTHOR: FollowOptions()}))
    own_private = {"id": "10", "account_id": VIEWER, "visibility": "private"}
    assert visibility.can_reblog(own_private, view())
    assert visibility.can_favourite(status(), view())
    assert not visibility.can_favourite(status(), view(blocking={AUTHOR}))
    assert not visibility.can_favourite(status(), view(blocked_by={AUTHOR}))
