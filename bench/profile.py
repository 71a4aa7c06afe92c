"""The usage profile of `python -m bench cost`: what a month of one monthly active user (MAU)
asks of the stack at each instance size, derived from a few stated inputs (docs/performance.md,
"The usage profile, argued", gives the reasons for each input and the resulting counts).

Inputs (`Inputs`): a MAU's month of client requests and writes; the accounts a MAU follows and
the share of them on other servers (by size: the bigger the instance, the more of the people
one follows are on it); how many statuses a day a followed remote account publishes; how many
accounts are active on other servers (the cap: a remote account is followed or not, however
many here follow it) and how popular they are (the follower distribution the bench's instance
uses, a lognormal); how much of a status's audience reacts to it.

Derived, per size (`at`):
- **remote accounts followed** (distinct): the MAU's follows of remote accounts, drawn by
  popularity from the active remote accounts (a follow lands on an account in proportion to its
  followers); an account is counted once however many here follow it, so the count grows
  slower than the MAU and never exceeds the cap;
- **inbound statuses** (Creates delivered to the shared inbox, one per status and server): each
  remote account followed, times its statuses a month, shared by the MAU;
- **local receivers per inbound status**: the local followers of its author, the remote follows
  over the remote accounts followed. A MAU's home then receives (follows of remote accounts ×
  statuses a month) remote entries however large the instance, bounded by `feed_ceiling`
  (follows × statuses a month);
- **local receivers per local status**: the MAU's follows of local accounts (each follow of a
  local account is a follower of one);
- **remote reactions to local statuses**: a status's likes, boosts and replies come from its
  audience, which is as local or remote as the follows are; across the fediverse a status gets
  as many likes as accounts give (likes given over statuses written), so a local status gets
  that many times the remote share from other servers;
- deletes and edits of remote statuses, follows from remote accounts, and the ActivityPub and
  WebFinger GETs other servers make, in proportion to what causes them.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

DAYS_PER_MONTH = 30
SIZES = (100, 10_000, 1_000_000)


@dataclass(frozen=True)
class Inputs:
    client_requests: float = 1500  # a MAU's client API requests a month
    # A MAU's writes a month (the rest of the client requests are reads).
    actions: dict[str, float] = field(default_factory=lambda: {
        "posts": 18, "replies": 12, "boosts": 15, "likes": 90, "unlikes": 5, "media": 9,
        "follows": 5, "markers": 30, "sign-ups": 0.05})
    connection_minutes: float = 900  # a MAU's WebSocket connection-minutes a month
    follows: float = 150  # accounts a MAU follows
    # Of a MAU's follows, the share on other servers, by instance size.
    remote_share: dict[int, float] = field(default_factory=lambda: {
        100: 0.90, 10_000: 0.65, 1_000_000: 0.35})
    remote_statuses_per_day: float = 2.5  # statuses (posts, replies, boosts) of a followed account
    active_remote_accounts: int = 500_000  # the cap: accounts active on other servers
    popularity_sigma: float = 1.5  # followers of an account: lognormal (the fixture's sigma)
    deleted_share: float = 8 / 58  # of remote statuses, deleted later
    edited_share: float = 5 / 58  # of remote statuses, edited
    gets_per_delivery: float = 0.02  # ActivityPub and WebFinger GETs per delivery received


INPUTS = Inputs()
_BINS = 2000  # quantile bins of the popularity distribution


def remote_accounts_followed(remote_follows: float, inputs: Inputs = INPUTS) -> float:
    """Distinct remote accounts `remote_follows` follows land on, each follow on an active
    remote account with a probability in proportion to its (lognormal) follower count: the
    expected number of accounts that get at least one, at most the cap."""
    normal = statistics.NormalDist()
    weights = [math.exp(inputs.popularity_sigma * normal.inv_cdf((i + 0.5) / _BINS))
               for i in range(_BINS)]
    total = sum(weights)
    per_bin = inputs.active_remote_accounts / _BINS
    # Follows landing on one account of a bin: Poisson with mean remote_follows * share.
    return sum(per_bin * -math.expm1(-remote_follows * w / total / per_bin) for w in weights)


@dataclass(frozen=True)
class Profile:
    """A month of one MAU on an instance of `mau` MAU (module docstring)."""

    mau: int
    remote_share: float
    remote_follows: float  # of the whole instance
    remote_accounts: float  # distinct remote accounts followed
    inbound_statuses: float  # per MAU a month
    receivers_per_inbound_status: float
    receivers_per_local_status: float
    local_statuses: float  # per MAU a month (posts and replies)
    inbound: dict[str, float]  # per MAU a month, by kind
    client_requests: float
    connection_minutes: float
    actions: dict[str, float]

    @property
    def inbound_requests(self) -> float:
        return sum(self.inbound.values())

    @property
    def remote_feed_entries(self) -> float:
        """Home entries a MAU gets from other servers a month."""
        return self.inbound_statuses * self.receivers_per_inbound_status

    @property
    def local_feed_entries(self) -> float:
        """Home entries of local statuses a MAU gets a month (as many as local statuses get)."""
        return self.local_statuses * self.receivers_per_local_status

    def as_json(self) -> dict[str, object]:
        return {"remote_share": self.remote_share,
                "remote_accounts_followed": round(self.remote_accounts),
                "remote_accounts_followed_per_mau": round(self.remote_accounts / self.mau, 3),
                "inbound_statuses": round(self.inbound_statuses, 2),
                "receivers_per_inbound_status": round(self.receivers_per_inbound_status, 3),
                "receivers_per_local_status": round(self.receivers_per_local_status, 2),
                "remote_feed_entries": round(self.remote_feed_entries, 1),
                "local_feed_entries": round(self.local_feed_entries, 1),
                "inbound": {k: round(v, 3) for k, v in self.inbound.items()},
                "inbound_requests": round(self.inbound_requests, 2),
                "client_requests": self.client_requests,
                "connection_minutes": self.connection_minutes}


def feed_ceiling(inputs: Inputs = INPUTS) -> float:
    """Home entries a MAU can get a month at most: every follow publishing at the remote rate."""
    return inputs.follows * inputs.remote_statuses_per_day * DAYS_PER_MONTH


def at(mau: int, inputs: Inputs = INPUTS) -> Profile:
    share = inputs.remote_share[mau]
    a = inputs.actions
    remote_follows = mau * inputs.follows * share
    accounts = min(remote_accounts_followed(remote_follows, inputs),
                   float(inputs.active_remote_accounts), remote_follows)
    statuses = accounts * inputs.remote_statuses_per_day * DAYS_PER_MONTH / mau
    local_statuses = a["posts"] + a["replies"]
    inbound = {
        "create": statuses,
        "like": a["likes"] * share,  # likes given per status written x statuses, remote share
        "announce": a["boosts"] * share,
        "delete": statuses * inputs.deleted_share,
        "update": statuses * inputs.edited_share,
        "follow": a["follows"] * share,
    }
    inbound["get"] = inputs.gets_per_delivery * sum(inbound.values())
    return Profile(mau, share, remote_follows, accounts, statuses,
                   remote_follows / accounts if accounts else 0.0,
                   inputs.follows * (1 - share), local_statuses, inbound,
                   inputs.client_requests, inputs.connection_minutes, dict(a))


def touched_share(profile: Profile, inputs: Inputs = INPUTS) -> float:
    """Of remote statuses, the share some local account likes, boosts or replies to: each
    receiver touches a status in its home with the chance (its likes, boosts and replies of
    remote statuses) / (the remote entries its home gets), independently of the others."""
    a = inputs.actions
    touches = (a["likes"] + a["boosts"] + a["replies"]) * profile.remote_share
    entries = profile.remote_feed_entries
    if entries <= 0:
        return 0.0
    chance = min(touches / entries, 1.0)
    return 1 - (1 - chance) ** profile.receivers_per_inbound_status


def busy_factor(profile: Profile, window_seconds: float = 1.0) -> float:
    """Requests an instance of this size receives in one stream batching window (the Dispatch
    mapping's MaximumBatchingWindowInSeconds): how many requests' records share a batch."""
    per_second = profile.mau * (profile.client_requests + profile.inbound_requests) / (
        DAYS_PER_MONTH * 86400)
    return per_second * window_seconds
