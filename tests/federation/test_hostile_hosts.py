"""Hosts spelt another way by a hostile server (docs/security.md, "Federation threats"): one host
normaliser (stratus/core/hosts.py: IDNA UTS #46, the WHATWG IPv4 parser) and one URL parser
(stratus/core/urls.py: the WHATWG URL Standard) decide every origin check, every domain policy
check and what every outbound request connects to, so a host cannot be one thing to policy and
another to the resolver or to a reader's browser.

The peers here go by names a production resolver would answer: the `dns` fixture
(tests/rig/hostile.py) resolves them to 127.0.0.1 as getaddrinfo would (a Unicode name through
Python's IDNA codec, numbers as inet_aton reads them), instead of the test stack's shortcut that
only ever asks for loopback names."""

from __future__ import annotations

import json

import pytest

from tests.rig.accounts import auth, make_app, make_user, staff_headers, user_token
from tests.rig.hostile import Resolver, named_peer
from tests.rig.peers import AP, PUBLIC


# --- helpers --------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def warm_inbox(client):
    """The inbox function imported before an attack: a cold start counts against the
    invocation's time, so on a loaded machine it could leave an activity's key fetches no
    budget (a 401 that says nothing of the attack)."""
    assert client.post("/inbox", content=b"{}").status_code in (400, 401)


def suspend_domain(client, domain: str) -> None:
    response = client.post("/api/v1/admin/domain_blocks", headers=staff_headers(client),
                           data={"domain": domain, "severity": "suspend"})
    assert response.status_code == 200, response.text


def create(peer, number: int = 1) -> dict:
    note = {"id": f"{peer.uri}/statuses/{number}", "type": "Note", "attributedTo": peer.uri,
            "content": f"<p>status {number}</p>", "published": "2026-01-01T00:00:00Z",
            "to": [PUBLIC], "cc": [peer.followers]}
    return peer.activity("Create", note)


def fetched(site) -> list[str]:
    """The paths a site was asked for (a key fetch, a WebFinger lookup)."""
    return [path for path, _ in site.requests]


def ascii_key(peer, ascii_host: str):
    """Sign with the key id spelt in ASCII (an HTTP header is ASCII; the actor document and the
    activity, UTF-8 JSON, keep the Unicode host), as the actor document names it."""
    peer.key_id = peer.key_id.replace(peer.site.name, ascii_host)
    peer.serve(publicKey={**peer.document["publicKey"], "id": peer.key_id})
    return peer


# --- issue 5: IDNA ------------------------------------------------------------------------------------
def test_attack_actor_on_a_unicode_host_is_fetched_in_punycode(client, drain, dns):
    """An actor on `пример.рф`: the actor is fetched from the host in punycode, named so in
    the Host header (a non-Latin-1 Host header raised UnicodeEncodeError: the fetch failed, the
    actor was never believed), and the account is stored under that one spelling."""
    site = named_peer(dns, "пример.рф")
    try:
        mallory = ascii_key(site.actor("mallory"), "xn--e1afmkfd.xn--p1ai")
        response = mallory.post(client, create(mallory))
        assert response.status_code == 202, response.text
        drain()
        assert "xn--e1afmkfd.xn--p1ai" in dns.asked and "пример.рф" not in dns.asked
        host_headers = {headers.get("host") for _, headers in site.requests}
        assert host_headers == {f"xn--e1afmkfd.xn--p1ai:{site.port}"}
        from stratus.federation import remote_accounts

        profile = remote_accounts.find(mallory.uri)
        assert profile["domain"] == f"xn--e1afmkfd.xn--p1ai:{site.port}"
    finally:
        site.close()


def test_attack_suspended_domain_spelt_with_an_ideographic_full_stop(client, drain, dns):
    """Staff suspend `evil.example`; an account of an allowed host names its inbox on
    `evil。example` (U+3002: a dot to UTS #46 and to the resolver, but not to IDNA 2003's label
    split, so policy checked `xn--evilexample-7e3j` while the request went to evil.example).
    The Accept of its Follow is not delivered, evil.example is never looked up, and every
    spelling of the suspended domain is refused."""
    from stratus.read import domain_blocks

    dns.add("evil.example")
    site = named_peer(dns, "localhost")
    try:
        inbox = f"http://evil。example:{site.port}/inbox"
        mallory = site.actor("mallory", inbox=inbox, endpoints={"sharedInbox": inbox})
        make_user("alice")
        suspend_domain(client, "evil.example")
        follow = mallory.activity("Follow", "http://localhost:8000/users/alice")
        assert mallory.post(client, follow).status_code == 202
        drain()
        assert site.posts == []
        assert not any(Resolver.question(h).startswith("evil") for h in dns.asked)
        spellings = ["evil。example", "evil．example:8443", "ＥＶＩＬ.example", "a.evil｡example"]
        assert domain_blocks.refused(spellings) == set(spellings)
    finally:
        site.close()


def test_attack_a_mention_of_a_non_latin1_host(client, drain, dns):
    """`@mallory@localhoſt:port` in a local post (U+017F matches the mention pattern's letters
    and folds to `s`): the address is normalised first, WebFinger is asked of `localhost`,
    the mention resolves. It went out as a non-Latin-1 Host header (UnicodeEncodeError: the
    mention was lost, and past a resolver that answers, the request raised)."""
    site = named_peer(dns, "localhost")
    try:
        mallory = site.actor("mallory")
        acct = f"mallory@localhost:{site.port}"
        site.serve(f"/.well-known/webfinger?resource=acct:{acct}", json.dumps({
            "subject": f"acct:{acct}",
            "links": [{"rel": "self", "type": AP, "href": mallory.uri}]}),
            "application/jrd+json")
        app = make_app(client)
        headers = auth(user_token(app, make_user("alice")))
        response = client.post("/api/v1/statuses", headers=headers,
                               data={"status": f"hi @mallory@localhoſt:{site.port}"})
        assert response.status_code == 200, response.text
        assert [m["acct"] for m in response.json()["mentions"]] == [acct]
        assert all(h.isascii() for h in dns.asked)
    finally:
        site.close()


def test_a_host_that_cannot_be_encoded_is_refused_cleanly(client, drain, dns):
    """A host IDNA refuses (`a\u200db`: a joiner out of context) is no host: the inbox answers
    403 (it was a 500: IDNA 2003 drops the joiner, policy passed, the key fetch's Host header
    raised UnicodeEncodeError), nothing is looked up; a search for a Unicode address asks the
    resolver in punycode and answers."""
    site = named_peer(dns, "a\u200db.example")
    try:
        mallory = ascii_key(site.actor("mallory"), "ab.example")
        assert mallory.post(client, create(mallory)).status_code == 403
        app = make_app(client)
        headers = auth(user_token(app, make_user("alice")))
        found = client.get("/api/v2/search", headers=headers,
                           params={"q": f"@mallory@пример.рф:{site.port}", "resolve": "true"})
        assert found.status_code == 200 and found.json()["accounts"] == []
        assert dns.asked == ["xn--e1afmkfd.xn--p1ai"]  # the search's WebFinger, in punycode
    finally:
        site.close()


# --- issue 7: IP spellings ----------------------------------------------------------------------------
@pytest.mark.parametrize("spelling", ["2130706433", "0x7f000001", "0x7f.1", "127.1", "0177.0.0.1"])
def test_attack_suspended_address_spelt_as_a_number(client, drain, dns, spelling):
    """Staff suspend 127.0.0.1; the attacker's ids name it `2130706433` (or hex, or octal, or
    short): getaddrinfo connects to 127.0.0.1 all the same, so policy compares the address in
    its one spelling. 403, and the key is never fetched."""
    suspend_domain(client, "127.0.0.1")
    site = named_peer(dns, spelling)
    try:
        mallory = site.actor("mallory")
        response = mallory.post(client, create(mallory))
        assert response.status_code == 403, response.text
        assert fetched(site) == []
    finally:
        site.close()


def test_attack_ipv4_mapped_inbox_of_a_suspended_address(client, drain, dns):
    """An account of an allowed host names its inbox `[::ffff:127.0.0.1]`; staff suspend
    127.0.0.1. `refused` let that inbox through (its normaliser refused the IPv6 form, so no
    block applied): the Accept of its Follow was delivered to the suspended address. Now the
    IPv6 form is compared as the IPv4 address it carries, and nothing is delivered."""
    from stratus.read import domain_blocks

    site = named_peer(dns, "localhost")
    try:
        inbox = f"http://[::ffff:127.0.0.1]:{site.port}/inbox"
        mallory = site.actor("mallory", inbox=inbox, endpoints={"sharedInbox": inbox})
        make_user("alice")
        suspend_domain(client, "127.0.0.1")
        follow = mallory.activity("Follow", "http://localhost:8000/users/alice")
        assert mallory.post(client, follow).status_code == 202
        drain()
        assert site.posts == []  # no Accept reached the suspended address
        assert domain_blocks.refused(["[::ffff:127.0.0.1]", "[::ffff:7f00:1]:8443",
                                      "0x7f.1", "2130706433"]) == {
            "[::ffff:127.0.0.1]", "[::ffff:7f00:1]:8443", "0x7f.1", "2130706433"}
    finally:
        site.close()


def test_refused_and_allowed_are_one_rule(client):
    """`allowed` and `refused` answer alike for every spelling, and a host the normaliser
    refuses is refused by both (an IPv6 literal was allowed by one, refused by the other)."""
    from stratus.read import domain_blocks

    suspend_domain(client, "1.2.3.4")
    for host in ("[::ffff:1.2.3.4]", "[2001:db8::1]", "16909060", "1.2.3.5", "a..b",
                 "evil。example", "victim.example\\@evil.example", ""):
        assert domain_blocks.allowed(host) == (host not in domain_blocks.refused([host])), host
    assert not domain_blocks.allowed("[::ffff:1.2.3.4]")
    assert domain_blocks.allowed("[2001:db8::1]")
    assert not domain_blocks.allowed("a..b")


# --- issue 11: URLs as browsers read them -------------------------------------------------------------
def test_attack_profile_url_with_a_backslash_opens_another_host(client, hostile, victim_site):
    """`http://victim\\@attacker/@bob`: Python's urlsplit reads user `victim\\` at the
    attacker's host (so the origin check passed), a browser opens the victim's host (a
    backslash is a slash). Read as the browser reads it, it is another host: not kept."""
    from stratus.federation import remote_accounts

    bob = victim_site.actor("bob")
    spoof = f"http://{victim_site.host}\\@{hostile.host}/@bob"
    mallory = hostile.actor("mallory", url=spoof)
    profile = remote_accounts.resolve(mallory.uri)
    assert profile["url"] == mallory.uri
    assert client.get(f"/api/v1/accounts/{profile['id']}").json()["url"] == mallory.uri
    assert bob.uri


def test_attack_status_url_with_a_backslash_opens_another_host(client, drain, hostile,
                                                               victim_site):
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    mallory = hostile.actor("mallory")
    activity = create(mallory)
    activity["object"]["url"] = f"http://{victim_site.host}\\@{hostile.host}/@bob/1"
    assert mallory.post(client, activity).status_code == 202
    drain()
    found = uris.find(activity["object"]["id"])
    assert statuses_repo.get(found[1])["url"] == activity["object"]["id"]


def test_a_url_on_the_objects_host_is_kept_as_a_browser_writes_it(client, hostile):
    """A `url` on the actor's own host is kept, in the form a browser opens."""
    from stratus.federation import remote_accounts

    mallory = hostile.actor("mallory", url=f"http://{hostile.host}/a/../@mallory")
    assert remote_accounts.resolve(mallory.uri)["url"] == hostile.url("/@mallory")


def test_attack_relative_links_in_remote_content(client, drain, hostile):
    """A remote status linking `/settings` (it would open on our domain, under the post of
    another server) or `//evil.example` (a host the text does not show): the links become
    their text, as Mastodon's UNSUPPORTED_HREF_TRANSFORMER makes them."""
    from stratus.repo import statuses as statuses_repo
    from stratus.repo import uris

    mallory = hostile.actor("mallory")
    activity = create(mallory)
    activity["object"]["content"] = ('<p><a href="/settings">your settings</a> '
                                     '<a href="//evil.example/x">news</a> '
                                     '<a href="https://ok.example/">ok</a></p>')
    response = mallory.post(client, activity)
    assert response.status_code == 202, response.text
    drain()
    status = statuses_repo.get(uris.find(activity["object"]["id"])[1])
    assert status["content"] == ('<p>your settings news <a href="https://ok.example/" '
                                 'target="_blank" rel="nofollow noopener">ok</a></p>')
