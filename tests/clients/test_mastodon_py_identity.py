"""Mastodon.py end to end: app, sign-up, e-mail confirmation, password login, credentials."""

from __future__ import annotations

import re
from email import message_from_bytes
from email.policy import default

import requests
from mastodon import Mastodon

from tests.rig import images

SCOPES = ["read", "write", "follow", "push"]


def test_register_confirm_log_in_and_edit_profile(live_server, tmp_path):
    base = live_server.base_url
    client_id, client_secret = Mastodon.create_app("pytest client", scopes=SCOPES,
                                                   api_base_url=base)
    api = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base)
    token = api.create_account("carol", "a very good password", "carol@example.org",
                               agreement=True, locale="en", scopes=SCOPES)
    assert token

    live_server.pipeline.drain()
    [mail] = live_server.mailbox.collect()
    body = message_from_bytes(mail.read_bytes(), policy=default).get_body(("plain",)).get_content()
    link = re.search(r"(http://\S+confirmation_token=\S+)", body).group(1)
    assert requests.get(link, timeout=10, allow_redirects=False).status_code in (200, 302)

    user = Mastodon(client_id=client_id, client_secret=client_secret, api_base_url=base)
    access = user.log_in("carol@example.org", "a very good password", scopes=SCOPES,
                         allow_http=True)
    assert access
    me = user.account_verify_credentials()
    assert me.username == "carol" and me.acct == "carol"
    assert me.source.privacy == "public"
    avatar = tmp_path / "avatar.png"
    from stratus.api.instance.instance import solid_png

    avatar.write_bytes(solid_png(16, 16, (200, 100, 50)))
    updated = user.account_update_credentials(display_name="Carol C.", note="Hi there",
                                              avatar=str(avatar), locked=True,
                                              fields=[("Home", "https://carol.example")])
    assert updated.display_name == "Carol C." and updated.locked is True
    assert "/system/accounts/avatars/" in updated.avatar
    served = requests.get(updated.avatar, timeout=10)
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    picture = images.opened(served.content)  # re-encoded, cropped to Mastodon's 400×400
    assert picture.size == (400, 400) and picture.getpixel((200, 200)) == (200, 100, 50)
    assert user.account(me.id).display_name == "Carol C."
    assert user.account_lookup("carol").id == me.id
    assert user.preferences()["posting:default:visibility"] == "public"
    assert user.app_verify_credentials().name == "pytest client"
    user.revoke_access_token(allow_http=True)
