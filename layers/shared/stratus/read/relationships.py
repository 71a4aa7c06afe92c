"""Relationship views: loading a viewer's relationships with many accounts in one batched read,
the Relationship entity, `GET /api/v1/accounts/relationships`, familiar followers, and which
recipients a notification must not reach (blocks, mutes with notifications, domain blocks).

`Loader` is the per-request cache the visibility policy reads: a request builds one, and every
page it checks asks it about the statuses' authors; accounts already known are not read again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from stratus.convert import accounts as convert
from stratus.core import hosts, ids
from stratus.core.errors import NotFound, Unprocessable
from stratus.model.relationships import Relationships
from stratus.model.viewer import Viewer
from stratus.read import accounts as accounts_read
from stratus.read import roles as roles_read
from stratus.repo import accounts as accounts_repo
from stratus.repo import relationships as repo

MAX_RELATIONSHIP_IDS = 100


class Loader:
    """The viewer's relationships, loaded as a request needs them, each account once."""

    def __init__(self, viewer_id: str | None) -> None:
        self.view = Relationships(viewer_id)

    @property
    def viewer_id(self) -> str | None:
        return self.view.viewer_id

    def accounts(self, account_ids: Iterable[str], domains: Iterable[str] = ()) -> Relationships:
        """The view, extended to `account_ids` and `domains` (one batched read for the new)."""
        viewer_id = self.view.viewer_id
        if viewer_id is None:
            return self.view
        missing = [a for a in dict.fromkeys(account_ids)
                   if a and a != viewer_id and a not in self.view.known]
        named = [hosts.hostname(d) for d in dict.fromkeys(domains) if d]
        new_domains = [d for d in dict.fromkeys(named) if d and d not in self.view.known_domains]
        if missing or new_domains:
            loaded, _ = repo.load(viewer_id, missing, domains=new_domains, full=False)
            self.view.merge(loaded)
        return self.view

    def statuses(self, statuses: Iterable[dict[str, Any] | None]) -> Relationships:
        """The view, extended to the authors of `statuses` (and of what they boost)."""
        found = [s for s in statuses if s]
        return self.accounts([a for s in found
                              for a in (s["account_id"], s.get("reblog_of_account_id"))],
                             [s["account_domain"] for s in found if s.get("account_domain")])


def loader(viewer_id: str | None) -> Loader:
    return Loader(viewer_id)


def relationships(viewer: Viewer, account_ids: list[str], with_suspended: bool
                  ) -> list[dict[str, Any]]:
    """GET /api/v1/accounts/relationships: one Relationship per existing account, in the order
    asked; suspended accounts only `with_suspended`. One batched read for the accounts and
    every edge between them and the viewer, both ways (a second one only for the domain
    blocks of remote accounts)."""
    wanted = [a for a in dict.fromkeys(account_ids) if ids.is_id(a)]
    if len(wanted) > MAX_RELATIONSHIP_IDS:
        raise Unprocessable(f"Too many ids requested (maximum is {MAX_RELATIONSHIP_IDS})")
    relations, alongside = repo.load(viewer.account_id, wanted, accounts=wanted,
                                     parts=(accounts_repo.PROFILE, accounts_repo.USER))
    bundles = alongside.accounts
    shown = [a for a in wanted if a in bundles and accounts_read.is_visible(bundles[a])
             and (with_suspended or not bundles[a][accounts_repo.PROFILE].get("suspended_at"))]
    domains = {a: bundles[a][accounts_repo.PROFILE].get("domain") for a in shown}
    if any(domains.values()):
        more, _ = repo.load(viewer.account_id, [], domains=[d for d in domains.values() if d])
        relations.merge(more)
    return [convert.relationship(a, relations, domains[a]) for a in shown]


def of(viewer: Viewer, target_id: str) -> dict[str, Any]:
    """The Relationship between the viewer and one account, read consistently (after an
    action); 404 for an account that is not shown."""
    return subject(viewer, target_id).entity()


@dataclass
class Subject:
    """An account an action applies to, with the viewer's whole relationship with it (read
    consistently: it decides the write). The action updates `relations` as it writes, so the
    Relationship it answers needs no second read."""

    id: str
    profile: dict[str, Any]
    relations: Relationships

    @property
    def domain(self) -> str | None:
        return self.profile.get("domain")

    def entity(self) -> dict[str, Any]:
        return convert.relationship(self.id, self.relations, self.domain)


def subject(viewer: Viewer, target_id: str) -> Subject:
    """The account behind `target_id` and the viewer's relationship with it; 404 when it does
    not exist or is not shown."""
    if not ids.is_id(str(target_id)):
        raise NotFound()
    relations, alongside = repo.load(viewer.account_id, [target_id], consistent=True,
                                     accounts=[str(target_id)],
                                     parts=(accounts_repo.PROFILE, accounts_repo.USER))
    bundle = alongside.accounts.get(str(target_id), {})
    if not accounts_read.is_visible(bundle):
        raise NotFound()
    profile = bundle[accounts_repo.PROFILE]
    if profile.get("domain"):
        more, _ = repo.load(viewer.account_id, [], domains=[profile["domain"]], consistent=True)
        relations.merge(more)
    return Subject(str(target_id), profile, relations)


def familiar_followers(viewer: Viewer, account_ids: list[str]) -> list[dict[str, Any]]:
    """GET /api/v1/accounts/familiar_followers: for each account, the accounts the viewer
    follows that follow it (Mastodon: none for an account that hides its collections, and
    followers who hide theirs are left out). Per account the cheaper side is read: its
    followers when it has fewer than the viewer follows, else the viewer's followings'
    follow edges to it (one batched read of deterministic keys)."""
    wanted = [a for a in dict.fromkeys(account_ids) if ids.is_id(a)]
    if len(wanted) > MAX_RELATIONSHIP_IDS:
        raise Unprocessable(f"Too many ids requested (maximum is {MAX_RELATIONSHIP_IDS})")
    found = accounts_repo.get_many(wanted, (accounts_repo.PROFILE, accounts_repo.STATS,
                                            accounts_repo.USER))
    targets = [a for a in wanted if a in found and accounts_read.is_visible(found[a])
               and not found[a][accounts_repo.PROFILE].get("suspended_at")]
    mine = repo.following_ids(viewer.account_id) if targets else []
    familiar: dict[str, list[str]] = {}
    for target in targets:
        if found[target][accounts_repo.PROFILE].get("hide_collections") or not mine:
            familiar[target] = []
            continue
        followers = int((found[target].get(accounts_repo.STATS) or {}).get("followers_count", 0))
        if followers < len(mine):
            following = set(mine)
            familiar[target] = [a for a in repo.follower_ids(target) if a in following]
        else:
            edges = repo.follows_of(mine, target)
            order = {f: i for i, f in enumerate(mine)}
            familiar[target] = sorted((e["account_id"] for e in edges), key=order.__getitem__)
    people = accounts_read.render_many(
        [a for accounts in familiar.values() for a in accounts],
        keep=lambda bundle: not bundle[accounts_repo.PROFILE].get("hide_collections"))
    return [{"id": t, "accounts": [people[a] for a in familiar.get(t, []) if a in people]}
            for t in targets]


def silenced(recipient_ids: list[str], actor_id: str, kind: str) -> set[str]:
    """Recipients who must not be notified by the actor: they block it or its domain, or mute
    it with notifications (Mastodon's NotifyService: mentions by staff still reach them)."""
    if not recipient_ids:
        return set()
    bundle = accounts_repo.get_bundle(actor_id, (accounts_repo.PROFILE, accounts_repo.USER))
    domain = (bundle.get(accounts_repo.PROFILE) or {}).get("domain")
    found = repo.recipients_silencing(recipient_ids, actor_id, domain)
    if kind == "mention" and roles_read.role_for((bundle.get(accounts_repo.USER) or {})
                                               .get("role_id")).staff:
        return set()
    return found["blocking"] | found["muting"] | found["domain_blocking"]
