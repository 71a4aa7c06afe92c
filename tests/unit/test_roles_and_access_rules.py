"""Pure rules of the roles area: computed permissions and ranking, canonical e-mails, the
strictest IP block, and the warm cache's expiry."""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import replace

from stratus.api.admin import access_blocks
from stratus.core import warm
from stratus.model import roles
from stratus.model.roles import Permission as P
from stratus.read import access_blocks as ip_rules
from stratus.repo import base


def test_computed_permissions_include_everyone_and_administrator():
    custom = roles.Role("7", "Custom", "", 5, False, P.MANAGE_REPORTS, inherited=P.INVITE_USERS)
    assert custom.can(P.MANAGE_REPORTS) and custom.can(P.INVITE_USERS)
    assert not custom.can(P.MANAGE_USERS)
    assert not replace(custom, inherited=0).can(P.INVITE_USERS)
    root = roles.Role("8", "Root", "", 5, False, P.ADMINISTRATOR)
    assert root.computed == P.ALL and root.can(P.MANAGE_ROLES | P.DEVOPS)


def test_overrides_is_strictly_above():
    low, high = replace(roles.MODERATOR, position=10), replace(roles.ADMIN, position=100)
    assert high.overrides(low) and not low.overrides(high)
    assert not high.overrides(high) and high.overrides(None)
    assert roles.MODERATOR.overrides(roles.EVERYONE)


def test_canonical_email_as_mastodon():
    assert access_blocks.canonical_email(" Jane.Doe+News@Example.COM ") == "janedoe@example.com"
    assert access_blocks.canonical_email("a.b+c+d@x.y") == "ab@x.y"
    assert access_blocks.canonical_email_hash("J.D@x.org") == \
        hashlib.sha256(b"jd@x.org").hexdigest()


def test_the_strictest_covering_ip_block_applies(monkeypatch):
    blocks = [(ipaddress.ip_network("10.0.0.0/8"), 5000, None),
              (ipaddress.ip_network("10.1.0.0/16"), 9999, None),
              (ipaddress.ip_network("10.2.0.0/16"), 9999, 100),  # expired at 100
              (ipaddress.ip_network("2001:db8::/32"), 5500, None)]
    monkeypatch.setattr(ip_rules, "_ip_blocks", warm.Warm(lambda: blocks, 60))
    monkeypatch.setattr(base, "now_epoch", lambda: 200)
    assert ip_rules.ip_severity("10.1.2.3") == "no_access"
    assert ip_rules.ip_severity("10.2.0.1") == "sign_up_requires_approval"
    assert ip_rules.ip_severity("10.9.9.9") == "sign_up_requires_approval"
    assert ip_rules.ip_severity("2001:db8::5") == "sign_up_block"
    assert ip_rules.ip_severity("::ffff:10.1.0.1") == "no_access"
    assert ip_rules.ip_severity("192.0.2.1") is None
    assert ip_rules.ip_severity("testclient") is None
    assert ip_rules.denies_access("10.1.0.9") and not ip_rules.denies_access("10.0.0.1")


def test_a_warm_value_is_reloaded_after_its_ttl_or_when_forgotten(monkeypatch):
    loads = []
    clock = [1000.0]
    monkeypatch.setattr(warm.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(warm.parallel, "detached", lambda call: None)  # no renewal ahead
    cache = warm.Warm(lambda: loads.append(1) or len(loads), ttl=15)
    assert cache.get() == 1 and cache.get() == 1
    clock[0] += 14.9
    assert cache.get() == 1
    clock[0] += 0.2
    assert cache.get() == 2
    cache.forget()
    assert cache.get() == 3
    warm.forget_all()
    assert cache.get() == 4
