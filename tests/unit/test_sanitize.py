"""The remote-HTML sanitiser (stratus/text/sanitize.clean_remote) against Mastodon's
Sanitize::Config::MASTODON_STRICT: a link keeps its element only with an href of Mastodon's
LINK_PROTOCOLS; a relative one (which would open on our own domain, or `//evil` on a host the
text does not show), one of another scheme, or none, becomes its text."""

from __future__ import annotations

import pytest
from stratus.text.sanitize import clean_remote

KEPT = ' target="_blank" rel="nofollow noopener"'


@pytest.mark.parametrize("href", [
    "/settings", "//evil.example/phish", "evil.html", "?q=1", "#top", "../x",
    "javascript:alert(1)", "mailto:a@b.example", "foo://bar", " https://google.fr", "data:,x",
    "",
])
def test_a_link_without_a_link_protocol_becomes_its_text(href):
    assert clean_remote(f'<p>see <a href="{href}">this <b>page</b></a>!</p>') == \
        "<p>see this <b>page</b>!</p>"


def test_a_link_without_href_becomes_its_text():
    assert clean_remote('<a><span class="invisible">foo&amp;</span><span>Test</span></a>') == \
        '<span class="invisible">foo&amp;</span><span>Test</span>'


@pytest.mark.parametrize("href", [
    "https://example.com/", "http://example.com", "HTTPS://EXAMPLE.com/", "dweb:/a/foo",
    "ipfs://x", "gemini://g.example/", "magnet:?xt=urn:x", "xmpp:a@b.example",
])
def test_a_link_of_mastodons_protocols_is_kept(href):
    assert clean_remote(f'<a href="{href}">Test</a>') == f'<a href="{href}"{KEPT}>Test</a>'


def test_text_is_not_reinterpreted_when_a_link_is_dropped():
    markup = '<a href="foo://bar">Test&lt;a href="https://example.com"&gt;test&lt;/a&gt;</a>'
    assert clean_remote(markup) == 'Test&lt;a href="https://example.com"&gt;test&lt;/a&gt;'


def test_blanks_around_a_dropped_link_stay():
    assert clean_remote('  lead <a href="/x">x</a> tail ') == "  lead x tail "
