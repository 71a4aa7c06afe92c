"""Three people being social through Mastodon.py over real HTTP: they follow each other, post,
reply, boost, then one mutes and one blocks. After every step each home timeline is asserted
exactly — ids and order — as Mastodon's FeedManager would have it (filter_from_home?,
add_to_feed's boost aggregation, clear_from_home on mute and block, unmerge_from_home on the
unfollows a block makes), and so are the notifications each has.

Notifications are read from their records (`stratus.repo.effects.notifications`): the
notifications API is not on this branch yet. The records are what that API will list."""

from __future__ import annotations


from stratus.repo import effects
from tests.rig import mastodon_py_users

def test_three_people_follow_post_reply_boost_mute_and_block(live_server):
    base = live_server.base_url
    drain = live_server.pipeline.drain
    ann, ben, cat = mastodon_py_users(base, "ann", "ben", "cat", app="social test")
    people = {"ann": ann, "ben": ben, "cat": cat}
    ids = {name: api.me().id for name, api in people.items()}

    def homes():
        return {name: [s.id for s in api.timeline_home(limit=40)]
                for name, api in people.items()}

    def notifications():
        """Each person's notifications, newest first: (type, from, status id or None)."""
        names = {v: k for k, v in ids.items()}
        return {name: [(n["notification_type"], names[n["from_account_id"]], n.get("status_id"))
                       for n in effects.notifications(ids[name])]
                for name in people}

    # Everyone opens their home once: it is built (Mastodon answers 206 meanwhile), and from
    # then on they are active users whom fan-out feeds.
    assert homes() == {"ann": [], "ben": [], "cat": []}
    drain()

    # ann follows ben and cat; ben follows ann and cat; cat follows ann.
    for who, whom in (("ann", "ben"), ("ann", "cat"), ("ben", "ann"), ("ben", "cat"),
                      ("cat", "ann")):
        assert people[who].account_follow(ids[whom]).following is True
        drain()  # one at a time: notifications are then created in this order

    s1 = ann.status_post("Hello, I am ann").id
    s2 = ben.status_post("ben's first post").id
    s3 = cat.status_post("cat's first post").id
    drain()
    # Replies: ben to ann, ann to ben, cat to ben (whom she does not follow).
    s4 = ben.status_post("@ann welcome!", in_reply_to_id=s1).id
    s5 = ann.status_post("@ben thank you", in_reply_to_id=s2).id
    s6 = cat.status_post("@ben nice post", in_reply_to_id=s2).id
    drain()
    assert homes() == {
        "ann": [s6, s5, s4, s3, s2, s1],
        "ben": [s6, s5, s4, s3, s2, s1],
        # ann answering ben stays out: cat does not follow ben; cat's own reply is hers.
        "cat": [s6, s3, s1],
    }

    # Boosts. ann boosts ben's post: ann and ben have it already, cat gets the boost. ben
    # boosts cat's post: everyone who would get it has the original already.
    b1 = ann.status_reblog(s2).id
    drain()
    b2 = ben.status_reblog(s3).id
    drain()
    assert b1 != s2 and b2 != s3
    assert homes() == {
        "ann": [s6, s5, s4, s3, s2, s1],
        "ben": [s6, s5, s4, s3, s2, s1],
        "cat": [b1, s6, s3, s1],
    }

    # ben mutes cat (notifications muted too, the default): her statuses leave his home, and
    # what she says next reaches neither his home nor his notifications.
    assert ben.account_mute(ids["cat"]).muting is True
    drain()
    assert homes()["ben"] == [s5, s4, s2, s1]
    s7 = cat.status_post("cat again").id
    drain()
    s8 = cat.status_post("@ben @ann what do you think?", in_reply_to_id=s4).id
    drain()
    s10 = ben.status_post("@cat are you there?").id  # he may still mention her
    drain()
    assert homes() == {
        "ann": [s10, s8, s7, s6, s5, s4, s3, s2, s1],  # s8 answers ben, whom ann follows
        "ben": [s10, s5, s4, s2, s1],
        "cat": [s8, s7, b1, s6, s3, s1],  # she does not follow ben
    }

    # cat blocks ann: the follows between them end both ways. ann's home loses cat's own
    # statuses (ben's mention of cat stays, as the unfollow Mastodon makes leaves it); cat's
    # loses ann's, ann's boost, and her own reply that mentions ann.
    assert cat.account_block(ids["ann"]).blocking is True
    drain()
    [seen] = ann.account_relationships(ids["cat"])
    assert (seen.following, seen.followed_by, seen.blocked_by) == (False, False, True)
    s9 = ann.status_post("ann after the block").id
    drain()
    assert homes() == {
        "ann": [s9, s10, s5, s4, s2, s1],
        "ben": [s9, s10, s5, s4, s2, s1],
        "cat": [s7, s6, s3],
    }

    assert notifications() == {
        # cat's follow went with the block; her mention (made before it) stays.
        "ann": [("mention", "cat", s8), ("mention", "ben", s4), ("follow", "ben", None)],
        # nothing from cat after the mute; her earlier mention stays.
        "ben": [("reblog", "ann", s2), ("mention", "cat", s6), ("mention", "ann", s5),
                ("follow", "ann", None)],
        # ann's follow went with the block; ben's mute does not silence him towards her.
        "cat": [("mention", "ben", s10), ("reblog", "ben", s3), ("follow", "ben", None)],
    }
