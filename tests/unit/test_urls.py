"""URLs read as browsers read them (stratus/core/urls.py, the WHATWG URL Standard through Ada):
the host of every origin check and every outbound request, normalised by core/hosts.py."""

from __future__ import annotations

import pytest
from stratus.core import hosts, urls


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
    ("https://evil。example/", "evil.example"),
    ("https://16909060/", "1.2.3.4"),
    ("https://0x7f.1:8443/", "127.0.0.1:8443"),
    ("https://ex%61mple.example/", "example.example"),  # the Standard decodes a host first
    ("https://victim.example\\@evil.example/", "victim.example"),  # `\` is `/`: what opens
    ("https://victim.example\\evil.example/", "victim.example"),
    ("https://evil.example@victim.example/", "victim.example"),
    ("  https://evil.example/  ", "evil.example"),
    ("ftp://evil.example/", ""),
    ("not a url", ""),
    ("//evil.example/", ""),
    ("https://a..b/", ""),
    ("https://evil.example:99999/", ""),
    (None, ""),
])
def test_host_of(url, host):
    assert urls.host_of(url) == host


def test_a_url_is_read_once_for_what_is_requested():
    found = urls.parse("HTTP://Пример.РФ:8080/a/../b%7e?q=1 2#frag")
    assert (found.scheme, found.host, found.name, found.address, found.port) == \
        ("http", "xn--e1afmkfd.xn--p1ai:8080", "xn--e1afmkfd.xn--p1ai",
         "xn--e1afmkfd.xn--p1ai", 8080)
    assert found.target == "/b%7e?q=1%202"  # no fragment: it never leaves us
    assert found.href == "http://xn--e1afmkfd.xn--p1ai:8080/b%7e?q=1%202#frag"
    assert urls.parse("http://[::1]/").address == "::1"
    assert urls.parse("https://u:p@evil.example/").credentials


def test_join_resolves_as_a_browser_does():
    assert urls.join("https://a.example/x/y", "//evil.example/z") == "https://evil.example/z"
    assert urls.join("https://a.example/x/y", "../z") == "https://a.example/z"
    assert urls.join("https://a.example/x/y", "\\\\evil.example\\z") == "https://evil.example/z"
    assert urls.join("https://a.example/", "javascript:alert(1)") is None


def test_same_origin_is_the_host_a_browser_opens():
    assert urls.same_origin("https://evil.example/a", "https://EVIL.example:443/b")
    assert not urls.same_origin("https://victim.example\\@evil.example/", "https://evil.example/")
    assert not urls.same_origin("https://evil.example/", "https://evil.example:8443/")
    assert not urls.same_origin("not a url", "not a url")


@pytest.mark.parametrize("raw", [
    "evil。example", "ＥＶＩＬ.example", "пример.рф", "Straße.de", "faß.de", "ⓔⓧ.example",
    "16909060", "0x7f.1", "1.2.3.4.", "１.２.３.４", "0x", "[::FFFF:1.2.3.4]", "[1:0:0:2:0:0:0:3]",
    "evil.example.", "xn--bcher-kva.example", "a..b", "a_b.example", "foo.123", "☃.example",
])
def test_a_urls_host_and_the_same_host_alone_are_one(raw):
    """No second reading can differ: the host of `https://<raw>/` (Ada's parse, then the
    normaliser) is the normaliser's answer for `<raw>` alone, or both are refused."""
    assert urls.host_of(f"https://{raw}/") == hosts.normalize(raw)
