"""What `python -m bench cost` found, priced size by size (`price`), and its `--json` object.

For each instance size of the profile (bench/profile.py): the events are the busy pass's when
that size receives at least `busy` requests in a stream batching window (the 10,000- and
1,000,000-MAU instances), else the quiet pass's (100 MAU); an inbound status is priced at the
size's local receivers and a regular local post at the size's local followers (the measured
event plus the difference times the measured cost of one more receiver: bench/activities.py);
the inbound kinds are weighed by the size's counts. The storage line (bench/storage.py) adds
its 12th month to the month's bill: the headline, $ per MAU a month, is a year-old instance's
month (variable, idle, storage), pay-per-request and with provisioned capacity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import activities, profile, storage
from .mix import CLIENT_MIX, CONNECT, INBOUND_CREATE, INBOUND_MIX, REGULAR_POST, SIGN_UP, Measured
from .pricing import HEADLINE, Deployment, Month, PerEvent, blend, combine, month

MIX_SIZE = "10000"  # the per-million figure is this instance's mix and rates
REMOTE_KINDS = ("create", "update", "delete")  # what a remote status stores, and what expiry drops
ANCHORS = {
    "GoToSocial on a $5 VPS": "$5 a month whatever the traffic it can carry (one small server: "
                              "$0.05 per MAU at 100 MAU; it does not reach 10,000)",
    "hachyderm": "~$0.16 per MAU a month (issue #22's anchor)",
}


@dataclass
class Size:
    """One instance size, priced."""

    profile: profile.Profile
    mode: str  # "quiet" or "busy"
    client: PerEvent
    inbound: PerEvent
    month: Month
    storage: dict[str, storage.Line]  # "without_expiry", "with_expiry"
    touched: float


@dataclass
class Result:
    quiet: dict[str, Measured]
    busy: dict[str, Measured]
    activities: dict[str, Measured]
    sizes: dict[str, Size]
    deployment: Deployment
    idle_source: str
    seconds: float
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def headline(self) -> Month:
        return self.sizes[MIX_SIZE].month

    def events(self, mode: str) -> dict[str, PerEvent]:
        found = self.busy if mode == "busy" and self.busy else self.quiet
        return {label: PerEvent.of(m) for label, m in found.items() if m.samples}

    def by_service(self) -> dict[str, float]:
        return dict(sorted(self.headline.per_million().items(), key=lambda kv: -kv[1]))

    def as_json(self) -> dict[str, Any]:
        def rounded(values: dict[str, float], digits: int = 4) -> dict[str, float]:
            return {k: round(v, digits) for k, v in values.items()}

        headline = self.headline
        provisioned = headline.provisioned()
        kinds = {}
        for mode in ("quiet", "busy"):
            events = self.events(mode) if (mode == "quiet" or self.busy) else {}
            for kind in CLIENT_MIX + INBOUND_MIX:
                if kind.label not in events:
                    continue
                event = events[kind.label]
                kinds.setdefault(kind.label, {})[mode] = {
                    "dollars_per_million": round(
                        (sum(event.dollars.values()) + event.compute[HEADLINE]) * 1e6, 3),
                    "invocations": round(sum(event.invocations.values()), 3),
                    "read_units": round(event.read_units, 2),
                    "write_units": round(event.write_units, 2)}
        for label, measured in self.busy.items():
            if measured.stored and measured.samples and label in kinds:
                stores: dict[str, float] = {}
                for (store, _), size in measured.stored.items():
                    stores[store] = stores.get(store, 0.0) + size / measured.samples
                kinds[label]["stored_bytes_per_request"] = {k: round(v) for k, v in
                                                            sorted(stores.items())}
        return {
            "per_mau_month": {k: {"pay_per_request": round(s.month.total / s.month.mau, 5),
                                  "provisioned": round(s.month.provisioned_total / s.month.mau,
                                                       5)}
                              for k, s in self.sizes.items()},
            "per_million_requests": {
                "pay_per_request": round(headline.variable / headline.requests * 1e6, 4),
                "provisioned": round(provisioned["variable"] / headline.requests * 1e6, 4)},
            "by_service": rounded(self.by_service()),
            "activities": activities.as_json(self.activities),
            "storage_12_months": {
                k: {"expire_days": self.options.get("expire_days"),
                    "touched_share": round(s.touched, 4),
                    **{name: line.as_json() for name, line in s.storage.items()}}
                for k, s in self.sizes.items()},
            "sizes": {k: {"mode": s.mode, "profile": s.profile.as_json(),
                          "requests": round(s.month.requests),
                          "variable": round(s.month.variable, 2),
                          "idle": None if s.month.idle is None else round(s.month.idle, 2),
                          "storage_month_12": round(sum(s.month.storage.values()), 2),
                          "total": round(s.month.total, 2),
                          "provisioned": rounded(s.month.provisioned(), 3),
                          "provisioned_free_tier": rounded(s.month.provisioned(free_tier=True),
                                                           3),
                          "per_million_requests": round(
                              s.month.variable / s.month.requests * 1e6, 4)}
                      for k, s in self.sizes.items()},
            "per_million_requests_quiet": self.options.get("quiet_per_million"),
            "lambda_compute_per_million": rounded(
                {k: v / headline.requests * 1e6 for k, v in headline.compute_variants.items()}),
            "kinds": kinds,
            "tracing": {f: t for f, t in self.deployment.traced.items() if t} or "off",
            "idle_source": self.idle_source,
            "options": {k: v for k, v in self.options.items() if k != "quiet_per_million"},
            "seconds": round(self.seconds),
        }


def _stored_per_request(found: dict[str, Measured], label: str) -> dict[tuple[str, int], float]:
    m = found.get(label)
    if m is None or not m.samples:
        return {}
    return {k: v / m.samples for k, v in m.stored.items()}


def _add(into: dict[tuple[str, int], float], stored: dict[tuple[str, int], float],
         times: float) -> None:
    for key, size in stored.items():
        into[key] = into.get(key, 0.0) + size * times


def price(quiet: dict[str, Measured], busy: dict[str, Measured], acts: dict[str, Any],
          deployment: Deployment, pitr: set[str], idle: float | None, idle_source: str,
          seconds: float, *, k: int = 1, expire_days: int = 30) -> Result:
    """Every size of the profile priced from the passes (module docstring); `pitr`: the tables
    with point-in-time recovery."""
    result = Result(quiet, busy, acts.get("measured", {}), {}, deployment, idle_source, seconds,
                    {"busy": k, "expire_days": expire_days})
    pricer = _Pricer(result, acts, pitr, idle, expire_days)
    for mau in profile.SIZES:
        prof = profile.at(mau)
        busy_enough = busy and k > 1 and profile.busy_factor(prof) >= k
        result.sizes[str(mau)] = pricer.size(prof, "busy" if busy_enough else "quiet")
    if result.sizes[MIX_SIZE].mode == "busy":  # what the drain after every request would say
        quiet_month = pricer.size(profile.at(int(MIX_SIZE)), "quiet").month
        result.options["quiet_per_million"] = round(
            quiet_month.variable / quiet_month.requests * 1e6, 4)
    return result


class _Pricer:
    def __init__(self, result: Result, acts: dict[str, Any], pitr: set[str],
                 idle: float | None, expire_days: int) -> None:
        self.result, self.pitr, self.idle, self.expire_days = result, pitr, idle, expire_days
        self.marginal = activities.per_receiver(result.activities)
        self.receiver_bytes = activities.stored_per_receiver(result.activities)
        self.remote_account = acts.get("remote_account_bytes", {})
        # Storage per request: the busy pass brackets each writing kind with scans.
        self.stored_from = result.busy or result.quiet

    def size(self, prof: profile.Profile, mode: str) -> Size:
        result = self.result
        events = result.events(mode)
        measured = result.busy if mode == "busy" else result.quiet

        def at_receivers(label: str, receivers: float) -> PerEvent:
            if self.marginal is None:
                return events[label]
            extra = receivers - measured[label].mean_receivers
            return combine([(1.0, events[label]), (extra, self.marginal)])

        client = blend([(kind.weight, at_receivers(kind.label, prof.receivers_per_local_status)
                         if kind.label == REGULAR_POST else events[kind.label])
                        for kind in CLIENT_MIX if kind.label in events])
        inbound = blend([(prof.inbound[kind.key],
                          at_receivers(kind.label, prof.receivers_per_inbound_status)
                          if kind.label == INBOUND_CREATE else events[kind.label])
                         for kind in INBOUND_MIX if kind.label in events])
        kept, remote, accounts = self.stored(prof)
        touched = profile.touched_share(prof)
        lines = {"without_expiry": storage.line(_merged(kept, remote), accounts, self.pitr),
                 "with_expiry": storage.line(_merged(kept, storage.expiring(
                     remote, 1 - touched, self.expire_days)), accounts, self.pitr)}
        connect = events.get(CONNECT) or result.events("quiet")[CONNECT]
        bill = month(prof, client, inbound, connect, result.deployment, self.idle,
                     storage=lines["without_expiry"].last)
        return Size(prof, mode, client, inbound, bill, lines, touched)

    def stored(self, prof: profile.Profile) -> tuple[dict, dict, dict]:
        """What a month of this size stores (kept apart: what remote statuses store, which an
        expiry would drop), and the accounts it holds from the start; the statuses' home
        entries at this size's receivers."""
        mau, found = prof.mau, self.stored_from
        kept: dict[tuple[str, int], float] = {}
        remote: dict[tuple[str, int], float] = {}

        def receivers_extra(label: str, receivers: float) -> float:
            return receivers - found[label].mean_receivers if label in found else 0.0

        for kind in CLIENT_MIX:
            count = kind.weight / 100 * prof.client_requests * mau
            _add(kept, _stored_per_request(found, kind.label), count)
            if kind.label == REGULAR_POST:
                _add(kept, self.receiver_bytes,
                     count * receivers_extra(kind.label, prof.receivers_per_local_status))
        for kind in INBOUND_MIX:
            count = prof.inbound[kind.key] * mau
            into = remote if kind.key in REMOTE_KINDS else kept
            _add(into, _stored_per_request(found, kind.label), count)
            if kind.label == INBOUND_CREATE:
                _add(into, self.receiver_bytes,
                     count * receivers_extra(kind.label, prof.receivers_per_inbound_status))
        accounts: dict[tuple[str, int], float] = {}
        _add(accounts, _stored_per_request(found, SIGN_UP), mau)
        _add(accounts, self.remote_account, prof.remote_accounts)
        return kept, remote, accounts


def _merged(a: dict[tuple[str, int], float], b: dict[tuple[str, int], float]
            ) -> dict[tuple[str, int], float]:
    found = dict(a)
    _add(found, b, 1.0)
    return found
