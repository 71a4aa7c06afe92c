"""Outbound fetching for preview cards (stratus/core/outbound.py): in production only public
addresses, redirects re-checked, bodies and content types bounded, robots.txt honoured; the
tests' own site on loopback is reachable only because the tests are not production."""

from __future__ import annotations

import pytest
from stratus.core import addresses, config, outbound

HTML = ("text/html",)


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("INSTANCE_DOMAIN", "social.example")
    monkeypatch.setenv("INSTANCE_SCHEME", "https")
    monkeypatch.setenv("STRATUS_ENVIRONMENT", "test")
    config.reset()
    yield monkeypatch
    config.reset()


@pytest.fixture
def production(env):
    env.setenv("STRATUS_ENVIRONMENT", "production")
    config.reset()
    return env


def deadline() -> outbound.Deadline:
    return outbound.Deadline(30)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.8.8", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "240.0.0.1", "255.255.255.255", "192.0.2.1",
    "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "fec0::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::7f00:1", "64:ff9b::a9fe:a9fe",
    "2002:c0a8:101::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:db8::1",
])
def test_private_and_reserved_addresses_are_refused_in_production(address):
    assert addresses.allowed_address(address, production=True) is False


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700:4700::1111",
                                     "::ffff:93.184.215.14"])
def test_public_addresses_are_allowed(address):
    assert addresses.allowed_address(address, production=True) is True


def test_only_loopback_is_relaxed_outside_production():
    assert addresses.allowed_address("127.0.0.1", production=False)
    assert addresses.allowed_address("::1", production=False)
    assert not addresses.allowed_address("10.0.0.1", production=False)
    assert not addresses.allowed_address("169.254.169.254", production=False)


def test_the_test_stack_asks_nothing_of_the_network(env, monkeypatch):
    looked_up = []
    monkeypatch.setattr(outbound.socket, "getaddrinfo", lambda *a, **k: looked_up.append(a))
    with pytest.raises(outbound.Refused, match="loopback"):
        outbound.resolve("example.com", 443)
    assert looked_up == []


def test_a_host_with_any_private_address_is_refused(production, monkeypatch):
    answers = [(2, 1, 6, "", ("93.184.215.14", 80)), (2, 1, 6, "", ("10.0.0.7", 80))]
    monkeypatch.setattr(outbound.socket, "getaddrinfo", lambda *a, **k: answers)
    with pytest.raises(outbound.NotAllowed, match="not public"):
        outbound.resolve("rebind.example", 80)


def test_an_ipv4_address_is_preferred(monkeypatch):
    """Local servers (a second stack, a test peer) listen on 127.0.0.1: `localhost` resolving
    to ::1 first must still reach them."""
    answers = [(10, 1, 6, "", ("::1", 80, 0, 0)), (2, 1, 6, "", ("127.0.0.1", 80))]
    monkeypatch.setattr(outbound.socket, "getaddrinfo", lambda *a, **k: answers)
    assert outbound.resolve("localhost", 80, production=False) == "127.0.0.1"


def test_loopback_is_refused_in_production_before_any_request(production, site):
    url = site.serve("/page", "<title>secret</title>")
    with pytest.raises(outbound.NotAllowed, match="not public"):
        outbound.fetch(url, types=HTML, max_bytes=10_000, deadline=deadline())
    assert site.requests == []


def test_a_redirect_to_loopback_is_refused_in_production(
        production, site, monkeypatch):
    """A public page that redirects to 127.0.0.1: the new URL is checked like the first."""
    real_resolve = outbound.resolve

    def resolve(host, port, **kwargs):
        if host == "public.example":
            return "127.0.0.1"  # stands for a checked public address: the test site answers
        return real_resolve(host, port, **kwargs)

    monkeypatch.setattr(outbound, "resolve", resolve)
    site.serve("/robots.txt", "", "text/plain")
    site.redirect("/go", site.url("/secret"))
    site.serve("/secret", "<title>internal</title>")
    with pytest.raises(outbound.Refused, match="not public"):
        outbound.fetch(site.url("/go", host="public.example"), types=HTML, max_bytes=10_000,
                       deadline=deadline())
    assert site.hits("/go") == 1 and site.hits("/secret") == 0


def test_redirects_are_followed_at_most_three_times(env, site):
    for hop in range(4):
        site.redirect(f"/r{hop}", f"/r{hop + 1}")
    site.serve("/r4", "<title>end</title>")
    got = outbound.fetch(site.url("/r1"), types=HTML, max_bytes=10_000, deadline=deadline())
    assert got.url == site.url("/r4") and got.body == b"<title>end</title>"
    with pytest.raises(outbound.Refused, match="redirects"):
        outbound.fetch(site.url("/r0"), types=HTML, max_bytes=10_000, deadline=deadline())


@pytest.mark.parametrize("chunked", [False, True])
def test_oversized_bodies_are_refused(env, site, chunked):
    url = site.serve("/big", b"<p>" + b"x" * 200_000, chunked=chunked)
    with pytest.raises(outbound.Refused, match="larger than"):
        outbound.fetch(url, types=HTML, max_bytes=100_000, deadline=deadline())
    small = outbound.fetch(url, types=HTML, max_bytes=300_000, deadline=deadline())
    assert len(small.body) == 200_003


def test_only_the_content_types_asked_for(env, site):
    script = site.serve("/app.js", "alert(1)", "application/javascript")
    with pytest.raises(outbound.Refused, match="content type"):
        outbound.fetch(script, types=HTML, max_bytes=10_000, deadline=deadline())
    image = site.serve("/i.png", b"\x89PNG", "image/png")
    with pytest.raises(outbound.Refused, match="content type"):
        outbound.fetch(image, types=HTML, max_bytes=10_000, deadline=deadline())
    assert outbound.fetch(image, types=("image/*",), max_bytes=10_000,
                          deadline=deadline()).content_type == "image/png"
    data = site.serve("/o.json", "{}", "application/json+oembed")
    assert outbound.fetch(data, types=("+oembed",), max_bytes=10_000,
                          deadline=deadline()).body == b"{}"


def test_error_statuses_are_not_used(env, site):
    with pytest.raises(outbound.Refused, match="404"):
        outbound.fetch(site.url("/missing"), types=HTML, max_bytes=10_000, deadline=deadline())


def test_robots_txt_is_honoured(env, site):
    site.serve("/robots.txt", "User-agent: Stratus\nDisallow: /private/\n", "text/plain")
    site.serve("/private/page", "<title>no</title>")
    site.serve("/public", "<title>yes</title>")
    with pytest.raises(outbound.Refused, match="robots"):
        outbound.fetch(site.url("/private/page"), types=HTML, max_bytes=10_000,
                       deadline=deadline())
    assert site.hits("/private/page") == 0
    outbound.fetch(site.url("/public"), types=HTML, max_bytes=10_000, deadline=deadline())
    assert site.hits("/robots.txt") == 1  # read once per origin


def test_robots_txt_for_mastodon_applies_too(env, site):
    site.serve("/robots.txt", "User-agent: Mastodon\nDisallow: /\n", "text/plain")
    site.serve("/page", "<title>no</title>")
    with pytest.raises(outbound.Refused, match="robots"):
        outbound.fetch(site.url("/page"), types=HTML, max_bytes=10_000, deadline=deadline())


def test_a_missing_robots_txt_allows_and_a_failing_one_does_not(env, site):
    site.serve("/page", "<title>ok</title>")
    outbound.fetch(site.url("/page"), types=HTML, max_bytes=10_000, deadline=deadline())
    outbound.reset()
    site.serve("/robots.txt", "oops", "text/plain", status=503)
    with pytest.raises(outbound.Refused, match="robots"):
        outbound.fetch(site.url("/page"), types=HTML, max_bytes=10_000, deadline=deadline())


def test_requests_say_who_makes_them(env, site):
    site.serve("/page", "<title>ok</title>")
    outbound.fetch(site.url("/page"), types=HTML, max_bytes=10_000, deadline=deadline())
    agents = {headers["user-agent"] for _, headers in site.requests}
    assert agents == {"Stratus/0.1.0 (Mastodon/4.3.0; +https://social.example/)"}


def test_an_exhausted_deadline_stops_the_fetch(env, site):
    site.serve("/page", "<title>ok</title>")
    spent = outbound.Deadline(0)
    with pytest.raises(outbound.Refused, match="too long"):
        outbound.fetch(site.url("/page"), types=HTML, max_bytes=10_000, deadline=spent)


def test_only_http_and_https(env):
    for url in ("file:///etc/passwd", "gopher://a.example/", "ftp://a.example/x",
                "http://user:pw@a.example/"):
        with pytest.raises(outbound.NotAllowed):
            outbound.fetch(url, types=HTML, max_bytes=10_000, deadline=deadline())


def test_a_request_within_its_deadline_leaves_no_watchdog_behind(env, site):
    """The watchdog that ends a request at its deadline is stopped once the request is done:
    no timer is left waiting (until the deadline) to shut a socket down. Other threads may
    stay: the resolver's pool keeps its workers, a server thread may still be closing."""
    import threading

    def timers() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if isinstance(t, threading.Timer)}

    site.serve("/robots.txt", "", "text/plain")
    site.serve("/page", "<title>ok</title>")
    before = timers()
    outbound.fetch(site.url("/page"), types=HTML, max_bytes=10_000, deadline=deadline())
    left = timers() - before
    for timer in left:
        timer.join(2)  # a cancelled timer ends at once; a running one waits out its 15 s
    assert not [t for t in left if t.is_alive()]
