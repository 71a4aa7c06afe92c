"""The one host normaliser (stratus/core/hosts.py): every comparison of domains goes through it, so a
host written another way (a default port, capitals, a trailing dot, Unicode, another spelling of
an IP address) is the same host, and what cannot be written as a host is none. URLs' hosts:
tests/unit/test_urls.py."""

from __future__ import annotations

import pytest
from stratus.core import hosts
from stratus.core.errors import Unprocessable
from stratus.read import domain_blocks
from stratus.workers import moderation as domain_moderation


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



# --- IDNA (UTS #46, non-transitional) and IP spellings: one spelling each ------------------------
@pytest.mark.parametrize("raw, host", [
    ("evil。example", "evil.example"),  # U+3002, a dot to UTS #46 and to the resolver
    ("evil．example", "evil.example"),  # U+FF0E
    ("evil｡example", "evil.example"),  # U+FF61
    ("ＥＶＩＬ.example", "evil.example"),  # full-width letters fold
    ("пример.рф", "xn--e1afmkfd.xn--p1ai"),
    ("ПРИМЕР.РФ:8443", "xn--e1afmkfd.xn--p1ai:8443"),
    ("Straße.de", "xn--strae-oqa.de"),  # non-transitional, as browsers: ß stays ß
    ("xn--strae-oqa.de", "xn--strae-oqa.de"),
    ("evil.example.", "evil.example"),
    ("16909060", "1.2.3.4"),  # the WHATWG IPv4 parser (and getaddrinfo's inet_aton)
    ("0x01020304", "1.2.3.4"),
    ("0x1.2.3.4", "1.2.3.4"),
    ("01.02.03.04", "1.2.3.4"),  # octal parts
    ("1.2.0x304", "1.2.3.4"),
    ("1.131844", "1.2.3.4"),
    ("0x7f.1", "127.0.0.1"),
    ("1.2.3.4.", "1.2.3.4"),
    ("１.２.３.４", "1.2.3.4"),  # full-width digits map first
    ("16909060:8443", "1.2.3.4:8443"),
    ("[::FFFF:1.2.3.4]", "[::ffff:102:304]"),  # IPv6 compressed, as the Standard writes it
    ("[0:0:0:0:0:0:0:1]:443", "[::1]"),
    ("[1:0:0:2:0:0:0:3]", "[1:0:0:2::3]"),
    ("[1:0:2:0:3:0:4:0]", "[1:0:2:0:3:0:4:0]"),
    ("0x", "0.0.0.0"),  # the Standard's, as a browser reads `https://0x/`
    ("Evil.Example:0443", "evil.example"),
])
def test_each_host_has_one_spelling(raw, host):
    assert hosts.normalize(raw) == host


@pytest.mark.parametrize("raw", [
    "a..b", ".", "exa mple.example", "victim.example\\@evil.example", "victim@evil.example",
    "evil.example/", "1.2.3.256", "1.2.3.4.5", "256.1", "foo.123", "example.0x", "[::1",
    "[::1%eth0]", "[::1]x", "::1", "xn--zz.example", "a_b.example", "-a.example", "a-.example",
    "a\u200db.example", "evil.example:99999", "evil.example:x", "evil.example:１２",
    "☃.example",  # IDNA 2008 refuses symbols (browsers take them; we never federate so)
    "a" * 64 + ".example", ("a" * 63 + ".") * 4 + "example",
])
def test_what_is_not_a_host_is_refused(raw):
    """'' (no host): never compared equal to one, refused by domain policy."""
    assert hosts.normalize(raw) == ""
    assert hosts.hostname(raw) == ""


def test_domain_blocks_name_what_the_normaliser_writes():
    """Staff and users entering a domain get the same answer as an id's host."""
    for raw, name in (("evil。example", "evil.example"), ("16909060", "1.2.3.4"),
                      ("0x01020304", "1.2.3.4"), ("Пример.РФ:8443/", "xn--e1afmkfd.xn--p1ai"),
                      ("[::FFFF:1.2.3.4]", "[::ffff:102:304]")):
        assert domain_blocks.normalize(raw) == name == hosts.hostname(raw.removesuffix("/"))
    for raw in ("a..b", "1.2.3.256", "a_b.example", "victim.example\\@evil.example"):
        with pytest.raises(Unprocessable):
            domain_blocks.normalize(raw)


def test_an_ip_block_covers_every_spelling_of_the_address():
    for host in ("1.2.3.4", "16909060", "0x01020304:8443", "[::ffff:1.2.3.4]", "[::ffff:102:304]",
                 "[64:ff9b::1.2.3.4]"):
        assert hosts.covers("1.2.3.4", host), host
        assert domain_moderation.covers("1.2.3.4", host), host
    assert domain_blocks.variants("[::ffff:1.2.3.4]") == ["[::ffff:102:304]", "1.2.3.4"]


def test_an_ip_block_is_no_parent_domain():
    """`3.4` is not a parent of 1.2.3.4 (labels of a name, not of an address)."""
    assert not hosts.covers("3.4", "1.2.3.4")
    assert domain_blocks.variants("1.2.3.4") == ["1.2.3.4"]
