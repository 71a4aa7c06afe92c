"""The instance's domain policy as federation and the use cases read it: whether a domain is
blocked, silenced or suspended, its media or reports rejected (`policy_for`, `policies_for`:
Mastodon's DomainBlock.rule_for), whether the instance federates with it (`allowed`,
`refused`: DomainControlHelper, limited federation mode's allowlist included), and the domain
names as Mastodon normalises them. Managing the blocks and allows is the admin API's
(api/admin/domain_blocks.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stratus.core import hosts
from stratus.core.errors import Unprocessable, ValidationFailed
from stratus.read import settings as settings_service
from stratus.repo import domain_blocks as repo

MAX_DOMAIN_LENGTH = 256  # Mastodon's DomainValidator: the normalised host is shorter than this
INVALID = "Validation failed: Domain is invalid"


# --- domains ----------------------------------------------------------------------------------
def normalize(raw: Any) -> str | None:
    """A domain as staff or a user enter it, normalised by the one host normaliser
    (core/hosts.py, `hostname`), so that it names exactly what an id's host is compared as:
    trimmed, one trailing slash dropped, a port dropped (domain blocks name hosts), IDNA
    (UTS #46: `evil。example` is `evil.example`), an IP address in its one spelling
    (`16909060` is `1.2.3.4`). None when blank; Unprocessable when it is no host name
    (Mastodon's DomainValidator: labels of 1–63 letters, digits and inner hyphens, under 256
    characters; a hyphen may not start or end a label either, as no DNS name's may)."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)  # a JSON number, as Rails would store it
    text = raw.strip() if isinstance(raw, str) else ""
    text = text.removesuffix("/").strip()
    if not text:
        return None
    name = hosts.hostname(text)
    if not name or len(name) >= MAX_DOMAIN_LENGTH:
        raise Unprocessable(INVALID)
    return name


def validated(raw: Any) -> str:
    """`normalize`, for a form's `domain` attribute: 422 with the attribute's error when it is
    blank (ERR_BLANK) or not a domain (ERR_INVALID)."""
    try:
        domain = normalize(raw)
    except Unprocessable:
        raise ValidationFailed({"domain": [("ERR_INVALID", "is invalid")]}) from None
    if domain is None:
        raise ValidationFailed({"domain": [("ERR_BLANK", "can't be blank")]})
    return domain


def variants(domain: str) -> list[str]:
    """What a block covering `domain` may name, most specific first: the domain and each
    parent (`a.b.example` → `a.b.example`, `b.example`, `example`: DomainBlock.rule_for); an
    IP address itself, an IPv6 address also the IPv4 address it carries (core/hosts.py)."""
    return hosts.block_names(domain)


# --- lookups ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DomainPolicy:
    """What the instance's domain blocks say about one domain: the most specific block
    covering it (itself or a parent domain), as Mastodon's `DomainBlock.rule_for`."""

    domain: str
    block_domain: str | None = None  # the domain of the block that applies, if any
    severity: str | None = None  # silence | suspend | noop, None without a block
    reject_media: bool = False
    reject_reports: bool = False

    @property
    def blocked(self) -> bool:
        return self.block_domain is not None

    @property
    def suspended(self) -> bool:
        return self.severity == "suspend"

    @property
    def silenced(self) -> bool:
        return self.severity == "silence"


def _policy(domain: str, found: dict[str, dict[str, Any]]) -> DomainPolicy:
    for candidate in variants(domain):
        item = found.get(candidate)
        if item is not None:
            return DomainPolicy(domain, item["domain"], item["severity"],
                                bool(item.get("reject_media")),
                                bool(item.get("reject_reports")))
    return DomainPolicy(domain)


def policies_for(domains: list[str]) -> dict[str, DomainPolicy]:
    """Policies of many domains in one batched read (BatchGetItem of every domain's variants),
    keyed by the domains as given. A blank or invalid domain has no block (Mastodon's rule_for
    answers nil for it)."""
    normalised: dict[str, str | None] = {}
    for raw in domains:
        try:
            normalised[raw] = normalize(raw)
        except Unprocessable:
            normalised[raw] = None
    wanted = {v for d in normalised.values() if d for v in variants(d)}
    found = {item["domain"]: item for item in repo.blocks_for(sorted(wanted))} if wanted else {}
    return {raw: _policy(d, found) if d else DomainPolicy(str(raw or "")) for raw, d in
            normalised.items()}


def policy_for(domain: str) -> DomainPolicy:
    """Is `domain` blocked, silenced, suspended, are its media or reports rejected: one
    BatchGetItem (the domain and its parents)."""
    return policies_for([domain])[domain]


def limited_federation() -> bool:
    return bool(settings_service.current()["limited_federation_mode"])


def allowed(domain: str) -> bool:
    """May the instance federate with `domain` (Mastodon's DomainControlHelper
    #domain_not_allowed?, negated): in limited federation mode only domains with an allow
    (exactly that domain, as DomainAllow.rule_for), otherwise any domain not suspended by a
    block of it or a parent. The one rule is `refused`'s, which federation asks about many
    hosts at once."""
    return not refused([domain])


def refused(names: list[str]) -> set[str]:
    """Which of these hosts (an account's domain, an inbox URL's host: any case, port, IDN or
    IP spelling, compared as stratus/core/hosts.py normalises them) the instance does not
    federate with: suspended by a block of the host or a parent domain (or, for an IPv6
    address carrying an IPv4 one, of that address), or in limited federation mode not allowed.
    A host that is not one (blank, or what the normaliser refuses) is refused. One batched
    read of the blocks (an allow read per host in limited federation mode)."""
    named = {raw: hosts.hostname(raw) for raw in dict.fromkeys(names)}
    valid = sorted({h for h in named.values() if h})
    if limited_federation():
        ok = {h for h in valid if repo.allow(h) is not None}
    else:
        ok = {h for h, p in policies_for(valid).items() if not p.suspended}
    return {raw for raw, host in named.items() if host not in ok}
