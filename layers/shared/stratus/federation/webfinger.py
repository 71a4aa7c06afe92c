"""WebFinger lookups of other servers' handles, and whether a handle is an actor's own
(docs/federation.md, "Remote accounts"; Mastodon's Webfinger, ResolveAccountService and
ActivityPub::ProcessAccountService#check_webfinger!).

An actor document names its own username (`preferredUsername`); only the server's WebFinger
says whom `username@domain` is. A remote account is stored under a handle only when WebFinger,
asked for that handle, answers with a `self` link to exactly that actor's id (`confirm`), so an
actor cannot take another's handle by naming it, first or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from stratus.core import addresses, hosts, jsondoc, outbound, urls
from stratus.core.config import settings
from stratus.federation import actor_documents as documents

MAX_BYTES = 64 * 1024
SECONDS = 10.0
JRD_ACCEPT = "application/jrd+json, application/json"
ACTIVITY_TYPES = ("application/activity+json", "application/ld+json")


@dataclass(frozen=True)
class Answer:
    """What WebFinger answered for `acct:<asked>`: its `subject` (user, domain), and the href of
    its ActivityPub `self` link (None when it has none)."""
    asked: tuple[str, str]
    subject: tuple[str, str] | None
    actor: str | None


def _loopback(host: str) -> bool:
    return addresses.loopback_name(documents.hostname_of(host).strip("[]"))


def webfinger_url(username: str, domain: str) -> str:
    """https, or http for a loopback host outside production (test peers); `domain` as
    `split_acct` normalised it."""
    scheme = "http" if _loopback(domain) and not settings().is_production else "https"
    resource = quote(f"acct:{username}@{domain}", safe=":@")
    return f"{scheme}://{domain}/.well-known/webfinger?resource={resource}"


def split_acct(acct: str) -> tuple[str, str | None]:
    """`@user@host`, `user@host`, `acct:user@host` → (user, host or None), the host as the one
    normaliser writes it (`пример.рф` is `xn--e1afmkfd.xn--p1ai`): what WebFinger is asked
    and what the account is stored under. None for a host it cannot write (nothing is asked)."""
    text = (acct or "").strip().removeprefix("acct:").removeprefix("@")
    username, _, domain = text.partition("@")
    return username, (hosts.normalize(domain) or None)


def _actor_link(document: dict[str, Any]) -> str | None:
    for link in documents.as_list(document.get("links")):
        if (isinstance(link, dict) and link.get("rel") == "self"
                and isinstance(link.get("href"), str)
                and str(link.get("type", "")).split(";")[0].strip() in ACTIVITY_TYPES):
            return link["href"]
    return None


def _subject(document: dict[str, Any]) -> tuple[str, str] | None:
    subject = document.get("subject")
    if not isinstance(subject, str) or not subject.startswith("acct:"):
        return None
    username, domain = split_acct(subject)
    if not username or not domain or subject.count("@") != 1:
        return None
    return username, domain


def lookup(username: str, domain: str) -> Answer | None:
    """Ask `domain`'s WebFinger about `acct:username@domain`; None when it does not answer 200
    with a JSON object (unreachable, refused by the outbound rules, unknown, not JSON)."""
    try:
        response = outbound.request("GET", webfinger_url(username, domain), accept=JRD_ACCEPT,
                                    max_bytes=MAX_BYTES, deadline=outbound.Deadline(SECONDS),
                                    follow_redirects=True)
        document = jsondoc.loads(response.body) if response.status == 200 else None
    except (outbound.Refused, ValueError):
        return None
    if not isinstance(document, dict):
        return None
    return Answer((username, domain), _subject(document), _actor_link(document))


def _same(one: tuple[str, str], other: tuple[str, str]) -> bool:
    return one[0].lower() == other[0].lower() and \
        hosts.normalize(one[1]) == hosts.normalize(other[1])


def _same_actor(link: str | None, actor_id: str) -> bool:
    """Whether a `self` link names the actor: one URL as browsers read them (a host in
    Unicode or punycode is one host)."""
    found, actor = urls.parse(link), urls.parse(actor_id)
    return found is not None and actor is not None and found.href == actor.href


def confirm(username: str, domain: str, actor_id: str, *,
            known: Answer | None = None) -> str | None:
    """The username `actor_id` may be stored under on `domain` (its actor's host), or None when
    WebFinger does not confirm it is this actor's (Mastodon's `check_webfinger!`):

    - `acct:username@domain` answered with that subject (any case) and a `self` link that is
      exactly `actor_id`: `username`;
    - answered with another subject (a handle elsewhere, the apex-domain setup): that subject
      asked once more must answer itself, with a `self` link that is exactly `actor_id` (one
      redirect at most, as Mastodon); then the subject's username when it is on `domain`, else
      `username` (here an account's domain is always its actor's host: its statuses' origin
      and its domain policy).

    `known`: an answer the caller already has (ResolveAccount asked WebFinger first)."""
    asked = (username, domain)
    first = known if known is not None and _same(known.asked, asked) else lookup(*asked)
    if first is None or first.subject is None:
        return None
    if _same(first.subject, asked):
        return username if _same_actor(first.actor, actor_id) else None
    second = lookup(*first.subject)
    if second is None or second.subject is None or not _same(second.subject, first.subject) \
            or not _same_actor(second.actor, actor_id):
        return None
    confirmed_user, confirmed_domain = first.subject
    if not documents.USERNAME.match(confirmed_user):
        return None
    return confirmed_user if hosts.normalize(confirmed_domain) == hosts.normalize(domain) \
        else username
