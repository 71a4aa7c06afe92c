"""Mastodon.py reading and managing notifications: the list and its filters, one notification,
grouped notifications (partial avatars, one group, its accounts), unread counts, markers, the
notification policy and requests, dismissing and clearing."""

from __future__ import annotations


from tests.rig import mastodon_py_users


def test_notifications_with_mastodon_py(live_server):
    base = live_server.base_url
    drain = live_server.pipeline.drain
    writer, fan, pal, stranger = mastodon_py_users(base, "writer", "fan", "pal", "stranger",
                                                   app="notifications test")
    status = writer.status_post("Clouds are nice")
    fan.status_favourite(status)
    pal.status_favourite(status)
    pal.status_reblog(status)
    pal.status_post("@writer indeed")
    drain()

    listed = writer.notifications()
    assert [n.type for n in listed] == ["mention", "reblog", "favourite", "favourite"]
    assert listed[2].account.acct == "pal" and listed[2].status.id == status.id
    assert [n.type for n in writer.notifications(types=["favourite"])] == ["favourite"] * 2
    assert [n.type for n in writer.notifications(exclude_types=["favourite", "reblog"])] == \
        ["mention"]
    assert [n.type for n in writer.notifications(mentions_only=True)] == ["mention"]
    assert writer.notifications(account_id=fan.me().id)[0].type == "favourite"
    assert writer.notifications(id=listed[1].id).type == "reblog"
    page = writer.notifications(limit=2)
    assert [n.id for n in writer.fetch_next(page)] == [listed[2].id, listed[3].id]

    grouped = writer.grouped_notifications()
    assert [(g.type, g.notifications_count) for g in grouped.notification_groups] == \
        [("mention", 1), ("reblog", 1), ("favourite", 2)]
    likes = grouped.notification_groups[2]
    assert likes.status_id == status.id and len(likes.sample_account_ids) == 2
    assert {a.acct for a in grouped.accounts} | {a.acct for a in grouped.partial_accounts} == \
        {"fan", "pal"}
    assert writer.grouped_notification(likes.group_key).notification_groups[0]\
        .notifications_count == 2
    assert [a.acct for a in writer.grouped_notification_accounts(likes.group_key)] == \
        ["pal", "fan"]
    assert writer.unread_grouped_notifications_count() == 3
    assert writer.notifications_unread_count().count == 4

    writer.markers_set(["notifications"], [listed[1].id])
    markers = writer.markers_get(["notifications"])
    assert markers["notifications"].last_read_id == listed[1].id
    assert markers["notifications"].version == 0
    assert writer.notifications_unread_count().count == 1
    writer.markers_set("home", status.id)
    assert writer.markers_get("home")["home"].last_read_id == status.id

    policy = writer.update_notifications_policy(for_not_following="filter")
    assert policy.for_not_following == "filter" and writer.notifications_policy()\
        .for_private_mentions == "filter"
    stranger.status_post("@writer hello from afar")
    drain()
    [request] = writer.notification_requests()
    assert request.account.acct == "stranger" and request.notifications_count == "1"
    assert writer.notification_request(request.id).id == request.id
    writer.accept_notification_request(request.id)
    drain()
    assert writer.notifications_merged() is True
    assert writer.notifications()[0].account.acct == "stranger"

    writer.notifications_dismiss(listed[0].id)
    assert listed[0].id not in [n.id for n in writer.notifications()]
    writer.dismiss_grouped_notification(likes.group_key)
    assert "favourite" not in [n.type for n in writer.notifications()]
    writer.notifications_clear()
    assert writer.notifications() == []
