"""Mastodon.py, a real client, reads the instance metadata from the stack over HTTP."""

from __future__ import annotations

from mastodon import Mastodon


def test_mastodon_py_reads_instance_metadata(live_server):
    api = Mastodon(api_base_url=live_server.base_url, version_check_mode="created")
    version = api.retrieve_mastodon_version()
    assert str(version).startswith("4.3")
    assert api.mastodon_api_version == 2
    v2 = api.instance_v2()
    assert v2.domain == live_server.base_url.split("://")[1]
    assert v2.configuration.statuses.max_characters == 500
    v1 = api.instance_v1()
    assert v1.uri == v2.domain
    assert api.instance().title == "Stratus"
    nodeinfo = api.instance_nodeinfo()
    assert nodeinfo.software.name == "stratus"
    assert nodeinfo.metadata.upstream.name == "mastodon"
    assert api.custom_emojis() == []
    assert api.instance_rules() == []
    assert len(api.instance_activity()) == 12
    assert api.instance_peers() == []
