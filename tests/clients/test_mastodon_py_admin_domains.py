"""Mastodon.py as a staff client: domain blocks and allows through its admin_* methods, and the
public list of moderated servers, against the stack over HTTP."""

from __future__ import annotations

import pytest
from mastodon import Mastodon
from mastodon.errors import MastodonAPIError, MastodonNotFoundError
from stratus.read import settings

from tests.rig import make_user

SCOPES = ["read", "write", "follow", "admin:read", "admin:write"]


def _staff(base_url: str) -> Mastodon:
    make_user("boss", "boss@example.org", "boss password long", role="Admin")
    client_id, secret = Mastodon.create_app("staff tool", api_base_url=base_url, scopes=SCOPES)
    api = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base_url)
    api.log_in("boss@example.org", "boss password long", scopes=SCOPES, allow_http=True)
    return api


def test_staff_manage_domain_blocks_and_allows(live_server):
    api = _staff(live_server.base_url)
    silenced = api.admin_create_domain_block("Loud.Example", severity="silence",
                                             public_comment="too loud")
    assert silenced.domain == "loud.example" and silenced.severity == "silence"
    assert silenced.reject_media is False and silenced.obfuscate is False
    suspended = api.admin_create_domain_block("spam.example", severity="suspend",
                                              reject_media=True, obfuscate=True,
                                              private_comment="staff only")
    assert suspended.reject_media is True and suspended.private_comment == "staff only"

    with pytest.raises(MastodonAPIError) as conflict:
        api.admin_create_domain_block("sub.spam.example", severity="silence")
    assert conflict.value.args[1] == 422
    assert "stricter limits on spam.example" in conflict.value.args[-1]

    listed = api.admin_domain_blocks()
    assert [b.id for b in listed] == [suspended.id, silenced.id]
    assert api.admin_domain_blocks(id=silenced.id).domain == "loud.example"
    # (Mastodon.py leaves `limit` out of this request; the cursors it sends.)
    assert [b.id for b in api.admin_domain_blocks(max_id=suspended.id)] == [silenced.id]
    assert [b.id for b in api.admin_domain_blocks(min_id=silenced.id)] == [suspended.id]

    updated = api.admin_update_domain_block(silenced.id, severity="suspend",
                                            reject_reports=True)
    assert updated.severity == "suspend" and updated.reject_reports is True
    assert updated.public_comment == "too loud"  # what the update did not name is kept

    settings.set_value("show_domain_blocks", "all")
    settings.set_value("show_domain_blocks_rationale", "all")
    public = api.instance_domain_blocks()
    assert [(b.domain, b.severity) for b in public] == [("loud.example", "suspend"),
                                                         ("spam.****ple", "suspend")]
    assert public[0].comment == "too loud"

    api.admin_delete_domain_block(silenced.id)
    with pytest.raises(MastodonNotFoundError):
        api.admin_domain_blocks(id=silenced.id)
    assert [b.domain for b in api.instance_domain_blocks()] == ["spam.****ple"]

    allow = api.admin_create_domain_allow("friends.example")
    assert allow.domain == "friends.example"
    assert api.admin_create_domain_allow("FRIENDS.example").id == allow.id
    pals = api.admin_create_domain_allow("pals.example")
    page = api.admin_domain_allows(limit=1)
    assert [a.id for a in page] == [pals.id]
    assert [a.id for a in api.fetch_next(page)] == [allow.id]
    api.admin_delete_domain_allow(pals.id)
    assert api.admin_domain_allow(allow.id).domain == "friends.example"
    api.admin_delete_domain_allow(allow.id)
    assert api.admin_domain_allows() == []
