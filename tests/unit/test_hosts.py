"""The one host normaliser (stratus/core/hosts.py): every comparison of domains goes through it, so a
host written another way (a default port, capitals, a trailing dot, Unicode) is the same host."""

from __future__ import annotations

import pytest
from stratus.core import hosts
from stratus.read import domain_blocks
from stratus.workers import moderation as domain_moderation


@pytest.mark.parametrize("url, host", [
    ("https://evil.example/users/x", "evil.example"),
    ("HTTPS://Evil.Example:443/users/x", "evil.example"),
    ("http://evil.example:80/", "evil.example"),
    ("https://evil.example./", "evil.example"),
    ("https://bücher.example/", "xn--bcher-kva.example"),
    ("https://user:pw@evil.example/", "evil.example"),
    ("https://evil.example:8443/", "evil.example:8443"),
    ("http://evil.example:443/", "evil.example:443"),  # 443 is not http's default
    ("http://127.0.0.1:3001/users/bob", "127.0.0.1:3001"),
    ("https://[::1]:443/", "[::1]"),
    ("ftp://evil.example/", ""),
    ("not a url", ""),
    (None, ""),
])
def test_of_url(url, host):
    assert hosts.of_url(url) == host


def test_hostname_drops_any_port():
    assert hosts.hostname("evil.example:8443") == "evil.example"
    assert hosts.hostname("Evil.Example:443") == "evil.example"
    assert hosts.hostname("[::1]:3000") == "[::1]"


def test_covers_ignores_ports_and_needs_a_label_boundary():
    assert hosts.covers("evil.example", "evil.example:443")
    assert hosts.covers("evil.example", "media.evil.example:8443")
    assert hosts.covers("Evil.Example.", "EVIL.example")
    assert not hosts.covers("evil.example", "notevil.example")
    assert not hosts.covers("", "evil.example")


def test_domain_block_normalize_drops_a_port():
    """A block typed with a port, or a domain stored with one, names the host (Mastodon:
    Addressable's normalized host)."""
    assert domain_blocks.normalize("Evil.Example:443") == "evil.example"
    assert domain_blocks.normalize("evil.example:8443/") == "evil.example"


def test_domain_moderation_covers_a_host_stored_with_a_port():
    assert domain_moderation.covers("evil.example", "evil.example:443")
    assert domain_moderation.covers("evil.example", "sub.evil.example:8443")

