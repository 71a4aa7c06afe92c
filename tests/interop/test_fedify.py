"""Issue 13, done when: a real peer on loopback — Fedify 2.3.6 on Node 22 — and our stack
(`stratus_live`: a real HTTP server, the background pipeline running) follow each other, post,
reply, boost, like, delete, update a note and a profile, each arriving on the other side.

Our side is driven and read with Mastodon.py as a client would; the peer through its control
API, and what it received from its inbox log (only what verified: Fedify checks our signatures).
Every wait is bounded (harness.WAIT) and fails with what it saw."""

from __future__ import annotations

from mastodon import MastodonNotFoundError

from tests.interop.harness import wait_for
from tests.rig import mastodon_py_users



def actor_of(stack, username: str) -> str:
    return f"{stack.base_url}/users/{username}"


def resolve_peer(api, peer):
    """Search with resolve=true for the peer's actor URL: its remote account on our side."""
    found = api.search_v2(peer.actor, resolve=True, result_type="accounts").accounts
    assert [a.acct for a in found] == [f"{peer.name}@127.0.0.1:{peer.port}"], found
    return found[0]


def notification(api, type_: str, where=lambda n: True):
    return wait_for(lambda: next((n for n in api.notifications(types=[type_]) if where(n)), None),
                    f"a {type_} notification", seen=lambda: [(n.type, n.account.acct)
                                                              for n in api.notifications()])


def following(api, account) -> None:
    wait_for(lambda: api.account_relationships(account.id)[0].following,
             f"following {account.acct}", seen=lambda: api.account_relationships(account.id)[0])


def in_home(api, uri: str):
    return wait_for(lambda: next((s for s in api.timeline_home() if s.uri == uri), None),
                    f"{uri} in the home timeline",
                    seen=lambda: [(s.uri, s.content) for s in api.timeline_home()])


def mutual_follow(stack, api, peer):
    """The peer follows our user (we Accept) and our user follows the peer (it auto-accepts)."""
    follow = peer.ctl("follow", target=actor_of(stack, api.me().username))
    peer.received("Accept", lambda e: e["object"] == follow["id"], "of the peer's Follow")
    account = resolve_peer(api, peer)
    api.account_follow(account.id)
    following(api, account)
    return account


def test_peer_follows_our_user_and_gets_our_posts_edits_deletes_and_profile(
        stratus_live, fedify_peer):
    [alice] = mastodon_py_users(stratus_live.base_url, "alice")
    alice_actor = actor_of(stratus_live, "alice")
    follow = fedify_peer.ctl("follow", target=alice_actor)
    fedify_peer.received("Accept", lambda e: e["object"] == follow["id"], "of the peer's Follow")
    assert fedify_peer.following() == {alice_actor: "accepted"}
    note = notification(alice, "follow")
    assert note.account.acct == f"peer@127.0.0.1:{fedify_peer.port}"
    assert [a.acct for a in alice.account_followers(alice.me().id)] == [note.account.acct]

    status = alice.status_post("hello fediverse, from Stratus")
    create = fedify_peer.received("Create", lambda e: e["object"] == status.uri, "of our post")
    assert "hello fediverse, from Stratus" in create["activity"]["object"]["content"]
    assert create["actor"] == alice_actor

    alice.status_update(status.id, "hello fediverse, edited")
    update = fedify_peer.received("Update", lambda e: e["object"] == status.uri, "of our edit")
    assert "hello fediverse, edited" in update["activity"]["object"]["content"]

    alice.status_delete(status.id)
    fedify_peer.received("Delete", lambda e: e["object"] == status.uri, "of our post")

    alice.account_update_credentials(display_name="Alice in Stratus")
    profile = fedify_peer.received("Update", lambda e: e["object"] == alice_actor, "of our actor")
    assert profile["activity"]["object"]["name"] == "Alice in Stratus"

    fedify_peer.ctl("unfollow", target=alice_actor)
    wait_for(lambda: alice.account_followers(alice.me().id) == [], "the peer's Undo(Follow)",
             seen=lambda: alice.account_followers(alice.me().id))


def test_our_user_follows_peer_and_gets_its_posts_edits_deletes_and_profile(
        stratus_live, fedify_peer):
    [alice] = mastodon_py_users(stratus_live.base_url, "alice")
    account = resolve_peer(alice, fedify_peer)
    # The same account by its address (WebFinger over http on loopback).
    by_acct = alice.search_v2(account.acct, resolve=True, result_type="accounts").accounts
    assert [a.id for a in by_acct] == [account.id]
    alice.account_follow(account.id)
    fedify_peer.received("Follow", lambda e: e["actor"] == actor_of(stratus_live, "alice"))
    following(alice, account)
    assert fedify_peer.followers() == [actor_of(stratus_live, "alice")]

    note = fedify_peer.ctl("post", content="<p>hello from Fedify</p>")["object"]
    status = in_home(alice, note)
    assert "hello from Fedify" in status.content and status.account.id == account.id

    fedify_peer.ctl("update-note", object=note, content="<p>hello from Fedify, edited</p>")
    wait_for(lambda: "edited" in alice.status(status.id).content, "the peer's edit",
             seen=lambda: alice.status(status.id).content)

    fedify_peer.ctl("update-profile", name="Renamed peer")
    wait_for(lambda: alice.account(account.id).display_name == "Renamed peer",
             "the peer's profile update", seen=lambda: alice.account(account.id).display_name)

    fedify_peer.ctl("delete", object=note)

    def gone():
        try:
            alice.status(status.id)
        except MastodonNotFoundError:
            return all(s.uri != note for s in alice.timeline_home())
        return False
    wait_for(gone, "the peer's Delete", seen=lambda: alice.status(status.id))


def test_replies_boosts_and_likes_both_ways(stratus_live, fedify_peer):
    [alice] = mastodon_py_users(stratus_live.base_url, "alice")
    account = mutual_follow(stratus_live, alice, fedify_peer)

    # The peer replies to, likes and boosts our post: notifications on our side.
    ours = alice.status_post("a post for the peer")
    fedify_peer.received("Create", lambda e: e["object"] == ours.uri, "of our post")
    reply_uri = fedify_peer.ctl("post", content="<p>a reply from Fedify</p>",
                                inReplyTo=ours.uri)["object"]
    mention = notification(alice, "mention", lambda n: n.status.uri == reply_uri)
    assert mention.status.in_reply_to_id == ours.id and mention.account.id == account.id
    assert [s.uri for s in alice.status_context(ours.id).descendants] == [reply_uri]
    like = fedify_peer.ctl("like", object=ours.uri)
    assert notification(alice, "favourite").account.id == account.id
    fedify_peer.ctl("announce", object=ours.uri)
    assert notification(alice, "reblog").account.id == account.id
    counts = lambda: (alice.status(ours.id).favourites_count,  # noqa: E731
                      alice.status(ours.id).reblogs_count)
    wait_for(lambda: counts() == (1, 1), "one like and one boost counted", seen=counts)
    fedify_peer.ctl("undo", activity=like["id"])
    wait_for(lambda: counts() == (0, 1), "the peer's Undo(Like)", seen=counts)

    # Our user replies to, likes and boosts the peer's post: the peer receives each.
    theirs_uri = fedify_peer.ctl("post", content="<p>a post from Fedify</p>")["object"]
    theirs = in_home(alice, theirs_uri)
    reply = alice.status_post("a reply from Stratus", in_reply_to_id=theirs.id)
    got = fedify_peer.received("Create", lambda e: e["object"] == reply.uri, "of our reply")
    assert got["activity"]["object"]["inReplyTo"] == theirs_uri
    alice.status_favourite(theirs.id)
    fedify_peer.received("Like", lambda e: e["object"] == theirs_uri, "of the peer's post")
    alice.status_reblog(theirs.id)
    fedify_peer.received("Announce", lambda e: e["object"] == theirs_uri, "of the peer's post")
    alice.status_unfavourite(theirs.id)
    undone = fedify_peer.received("Undo", lambda e: e["actor"] == actor_of(stratus_live, "alice"),
                                  "of our Like")
    assert undone["activity"]["object"]["type"] == "Like"
    assert undone["activity"]["object"]["object"] == theirs_uri
