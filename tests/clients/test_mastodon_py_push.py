"""Mastodon.py and web push: subscribing with keys it made (`push_subscription_generate_keys`),
reading and changing the subscription, and decrypting, with its own helper, the push the server
sent to a push service on loopback."""

from __future__ import annotations

import pytest
from mastodon import Mastodon
from mastodon.errors import MastodonNotFoundError

from tests.rig import make_user
from tests.rig.push_receiver import PushReceiver


def test_web_push_with_mastodon_py(live_server):
    base = live_server.base_url
    for name in ("writer", "fan"):
        make_user(name, f"{name}@example.org", f"{name} password")
    scopes = ["read", "write", "follow", "push"]
    client_id, secret = Mastodon.create_app("push test", api_base_url=base, scopes=scopes)

    def login(name):
        api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base)
        api.log_in(f"{name}@example.org", f"{name} password", scopes=scopes, allow_http=True)
        return api

    writer, fan = login("writer"), login("fan")
    receiver = PushReceiver()  # only its HTTP side: the keys are Mastodon.py's
    try:
        private, public = writer.push_subscription_generate_keys()
        endpoint = receiver.endpoint
        subscription = writer.push_subscription_set(endpoint, public, favourite_events=True,
                                                    mention_events=True, policy="all")
        assert subscription.endpoint == endpoint
        assert subscription.alerts.favourite is True and subscription.alerts.follow is False
        assert subscription.server_key == writer.instance().configuration.vapid.public_key
        assert writer.push_subscription().id == subscription.id

        status = writer.status_post("Clouds are nice")
        fan.status_favourite(status)
        live_server.pipeline.drain()

        [push] = receiver.received
        payload = writer.push_subscription_decrypt_push(
            push.body, private, push.headers["encryption"], push.headers["crypto-key"])
        assert payload.notification_type == "favourite"
        assert payload.title == "fan favorited your post" and payload.body == "Clouds are nice"
        assert payload.access_token == writer.access_token
        assert writer.notifications(id=payload.notification_id).type == "favourite"

        # Mastodon.py sends the policy at the top level; it is honoured.
        changed = writer.push_subscription_update(mention_events=True, policy="none")
        assert changed.policy == "none" and changed.alerts.favourite is False
        fan.status_post("@writer hello")
        live_server.pipeline.drain()
        assert len(receiver.received) == 1

        writer.push_subscription_delete()
        with pytest.raises(MastodonNotFoundError):
            writer.push_subscription()
    finally:
        receiver.close()
