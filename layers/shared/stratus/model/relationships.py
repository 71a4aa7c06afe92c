"""What one viewer has to do with a set of accounts: follows both ways, follow requests both
ways, blocks both ways, mutes, user domain blocks, endorsements and private notes.

A `Relationships` value is loaded for a whole page at once (repo/relationships.py, one batched
read of deterministic keys) and then read by the visibility policy, the Relationship entity and
the lists that hide blocked and muted accounts. It only answers for the accounts it was loaded
for (`known`); a loader extends it with more accounts as a request needs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stratus.core import hosts


@dataclass(frozen=True)
class FollowOptions:
    """The options of a follow or a pending follow request."""

    reblogs: bool = True
    notify: bool = False
    languages: tuple[str, ...] | None = None  # None: every language


@dataclass(frozen=True)
class Mute:
    notifications: bool = True  # notifications from the account are muted too
    expires_at: str | None = None  # ISO 8601; None: until unmuted


@dataclass
class Relationships:
    viewer_id: str | None
    following: dict[str, FollowOptions] = field(default_factory=dict)
    requested: dict[str, FollowOptions] = field(default_factory=dict)  # the viewer asked them
    followed_by: set[str] = field(default_factory=set)
    requested_by: set[str] = field(default_factory=set)  # they asked the viewer
    blocking: set[str] = field(default_factory=set)
    blocked_by: set[str] = field(default_factory=set)
    muting: dict[str, Mute] = field(default_factory=dict)  # live mutes only
    endorsed: set[str] = field(default_factory=set)
    notes: dict[str, str] = field(default_factory=dict)
    domain_blocking: set[str] = field(default_factory=set)  # host names (core/hosts.py)
    known: set[str] = field(default_factory=set)  # accounts this view answers for
    known_domains: set[str] = field(default_factory=set)

    def excludes(self, account_id: str) -> bool:
        """Mastodon's `excluded_from_timeline_account_ids`: accounts the viewer blocks, is
        blocked by, or mutes — left out of lists, threads and timelines."""
        return (account_id in self.blocking or account_id in self.blocked_by
                or account_id in self.muting)

    def blocks_domain(self, domain: str | None) -> bool:
        """Whether the viewer blocks `domain` (an account's, which may carry a port): compared
        by host name (core/hosts.py), as the blocks are stored."""
        return bool(domain) and hosts.hostname(domain) in self.domain_blocking

    def merge(self, other: Relationships) -> None:
        """Add what `other` (loaded for more accounts, same viewer) knows."""
        self.following.update(other.following)
        self.requested.update(other.requested)
        self.followed_by |= other.followed_by
        self.requested_by |= other.requested_by
        self.blocking |= other.blocking
        self.blocked_by |= other.blocked_by
        self.muting.update(other.muting)
        self.endorsed |= other.endorsed
        self.notes.update(other.notes)
        self.domain_blocking |= other.domain_blocking
        self.known |= other.known
        self.known_domains |= other.known_domains
