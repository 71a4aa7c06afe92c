"""Issue 13, done when: two Stratus local stacks on two ports federate — a user on each
follows the other (found by searching `user@localhost:PORT` with resolve=true) and sees the
other's posts in home, with follow notifications. Both stacks are `python -m local.devserver`
processes (what `make dev` runs), driven with Mastodon.py."""

from __future__ import annotations


from tests.interop.harness import wait_for



def follow_remote(api, acct: str):
    """Search `acct` with resolve=true, follow the account found; wait until following."""
    found = api.search_v2(acct, resolve=True, result_type="accounts").accounts
    assert [a.acct for a in found] == [acct], found
    account = found[0]
    api.account_follow(account.id)
    wait_for(lambda: api.account_relationships(account.id)[0].following, f"following {acct}",
             seen=lambda: api.account_relationships(account.id)[0])
    return account


def post_reaches(poster, reader, text: str, poster_acct: str) -> None:
    status = poster.status_post(text)
    home = wait_for(lambda: next((s for s in reader.timeline_home() if s.uri == status.uri), None),
                    f"{poster_acct}'s post in the follower's home",
                    seen=lambda: [(s.account.acct, s.content) for s in reader.timeline_home()])
    assert text in home.content and home.account.acct == poster_acct


def follow_notification(api, acct: str) -> None:
    wait_for(lambda: [n for n in api.notifications(types=["follow"]) if n.account.acct == acct],
             f"a follow notification from {acct}",
             seen=lambda: [(n.type, n.account.acct) for n in api.notifications()])


def test_users_on_two_stacks_follow_each_other_and_see_posts(two_stacks):
    a, b = two_stacks
    assert a.domain != b.domain
    alice, bob = a.sign_up("alice"), b.sign_up("bob")
    alice_acct, bob_acct = f"alice@{a.domain}", f"bob@{b.domain}"
    # Separate state: neither has heard of the other's user yet.
    assert b.sign_up("probe").search_v2("alice", result_type="accounts").accounts == []

    follow_remote(alice, bob_acct)
    follow_notification(bob, alice_acct)
    assert [f.acct for f in bob.account_followers(bob.me().id)] == [alice_acct]
    post_reaches(bob, alice, "hello from stack B", bob_acct)

    follow_remote(bob, alice_acct)
    follow_notification(alice, bob_acct)
    post_reaches(alice, bob, "hello from stack A", alice_acct)
