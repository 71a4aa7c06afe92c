"""The text report of `python -m bench cost` (bench/cost.py): the kinds of the mix as measured
quiet and busy, the activities, the profile and the bill at each size, the storage line, and
where the money of the 10,000-MAU mix goes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import activities
from . import instance as fixture
from .costs import Invocation
from .mix import CLIENT_MIX, CONNECT, INBOUND_MIX
from .pricing import HEADLINE, PerEvent
from .result import ANCHORS, MIX_SIZE, Result

GOALS = {"100": 0.05, "10000": 0.025, "1000000": 0.02}  # $ per MAU a month, pay-per-request


def report(result: Result, out: Any) -> None:
    def line(text: str = "") -> None:
        print(text, file=out)

    line(f"\nCost of a realistic mix (issue #22): "
         f"{fixture.REGULAR_MEMBERS + len(fixture.BIG_FOLLOWERS)} members (followers: median "
         f"{fixture.FOLLOWERS_MEDIAN}, lognormal sigma {fixture.FOLLOWERS_SIGMA}, and "
         f"{', '.join(f'{n:,}' for n in fixture.BIG_FOLLOWERS)}), "
         f"{fixture.LISTENERS + fixture.PUBLIC_LISTENERS} WebSockets, {fixture.REMOTE_POSTERS} "
         f"remote posters with {fixture.POSTER_RECEIVERS} local receivers each")
    for mode, found in (("quiet: a drain after each request", result.quiet),
                        (f"busy: {result.options.get('busy')} requests a drain, "
                         f"{result.options.get('shards')} stream shards", result.busy)):
        if not found:
            continue
        events = result.events("busy" if found is result.busy else "quiet")
        line(f"\n{mode}")
        line(f"{'request (per request: it and all it causes)':58} {'weight':>6} {'n':>3} "
             f"{'Lambda':>6} {'ms':>7} {'RRU':>8} {'WRU':>7} {'SQS':>5} {'WS':>4} {'$/M':>9}")
        for kind in CLIENT_MIX + [None] + INBOUND_MIX:
            if kind is None:
                line()
                continue
            if kind.label not in events:
                continue
            measured, event = found[kind.label], events[kind.label]
            n = max(measured.samples, 1)
            lambda_ms = sum(math.ceil(Invocation.corrected(i, cpu_scaled=True) * 1000)
                            for i in measured.invocations) / n
            line(f"{kind.label[:58]:58} {kind.weight:6.3f} {measured.samples:3d} "
                 f"{sum(event.invocations.values()):6.2f} {lambda_ms:7.0f} "
                 f"{event.read_units:8.1f} {event.write_units:7.1f} "
                 f"{measured.counts['sqs'] / n:5.2f} {measured.counts['ws_messages'] / n:4.1f} "
                 f"{_dollars(event) * 1e6:9.2f}")
        if CONNECT in events:
            line(f"{CONNECT:58} {'':6} {found[CONNECT].samples:3d} "
                 f"{sum(events[CONNECT].invocations.values()):6.2f}")
    acts = activities.as_json(result.activities)
    line("\nActivities, one at a time (invocations, SQS requests, read and write units):")
    for name, figures in acts.items():
        extra = figures.get("per_further_receiver")
        line(f"  {name:15} {figures['invocations']:6.2f} {figures['sqs']:6.2f} "
             f"{figures['read_units']:8.1f} {figures['write_units']:8.1f}  "
             f"({figures['receivers']:.0f} local receivers)"
             + (f"; each further receiver {extra['read_units']:.2f} read, "
                f"{extra['write_units']:.2f} write units, {extra['invocations']:.3f} invocations"
                if extra else ""))
    line("\nThe profile, per MAU a month (bench/profile.py):")
    line(f"{'MAU':>10} {'remote':>7} {'remote accts':>12} {'inbound':>9} {'of it Creates':>13} "
         f"{'receivers':>9} {'local rcv':>9} {'home entries':>12} {'mode':>6}")
    for key, size in result.sizes.items():
        p = size.profile
        line(f"{p.mau:10,} {p.remote_share:7.0%} {p.remote_accounts:12,.0f} "
             f"{p.inbound_requests:9,.1f} {p.inbound_statuses:13,.1f} "
             f"{p.receivers_per_inbound_status:9.2f} {p.receivers_per_local_status:9.1f} "
             f"{p.remote_feed_entries + p.local_feed_entries:12,.0f} {size.mode:>6}")
    line(f"\nPer MAU a month (a year-old instance: variable + idle ({result.idle_source}) + the "
         f"12th month's storage):")
    line(f"{'MAU':>10} {'requests':>14} {'variable $':>11} {'idle $':>7} {'storage $':>10} "
         f"{'total $':>11} {'$/MAU':>8} {'provisioned $/MAU':>17} {'goal':>6}")
    for key, size in result.sizes.items():
        m = size.month
        idle = "-" if m.idle is None else f"{m.idle:.2f}"
        line(f"{m.mau:10,} {m.requests:14,.0f} {m.variable:11,.2f} {idle:>7} "
             f"{sum(m.storage.values()):10,.2f} {m.total:11,.2f} {m.total / m.mau:8.4f} "
             f"{m.provisioned_total / m.mau:17.4f} {GOALS.get(key, 0):6.3f}")
        prov = m.provisioned()
        free = m.provisioned(free_tier=True)
        line(f"{'':10} provisioned: {prov['rcu']:,.1f} RCU, {prov['wcu']:,.1f} WCU at 70 % "
             f"(${prov['dollars']:,.2f} a month; ${free['dollars']:,.2f} after the free tier's "
             f"25 WCU/25 RCU)")
    for name, note in ANCHORS.items():
        line(f"  {name}: {note}")
    line(f"\nStorage after 12 months (expiry of untouched remote statuses after "
         f"{result.options.get('expire_days')} days):")
    for key, size in result.sizes.items():
        for name, storage_line in size.storage.items():
            gb = storage_line.as_json()["gb_at_12_months"]
            line(f"  {int(key):>9,} MAU {name:15} tables {gb['tables']:9,.2f} GB, indexes "
                 f"{gb['indexes']:9,.2f} GB, S3 {gb['s3']:8,.2f} GB: "
                 f"${sum(storage_line.last.values()):10,.2f} in month 12")
        line(f"  {'':13} remote statuses a local account touched: {size.touched:.1%}")
    _where(result, line)
    line(f"({result.seconds:.0f} s)")


def _dollars(event: PerEvent) -> float:
    return sum(event.dollars.values()) + event.compute[HEADLINE]


def _where(result: Result, line: Callable[[str], None]) -> None:
    headline = result.headline
    size = result.sizes[MIX_SIZE]
    total = headline.variable / headline.requests * 1e6
    share = headline.inbound / headline.requests
    prov = headline.provisioned()["variable"] / headline.requests * 1e6
    line(f"\nDollars per million API requests: the {int(MIX_SIZE):,}-MAU instance's mix "
         f"({1 - share:.0%} client requests, {share:.0%} from other servers; {size.mode})")
    for service, dollars in result.by_service().items():
        line(f"  {service:44} {dollars:8.3f}")
    quiet = result.options.get("quiet_per_million")
    line(f"  {'total':44} {total:8.3f}   (goal $10: "
         f"{'met' if total <= 10 else f'missed by ${total - 10:.2f}'}; provisioned ${prov:.2f}, "
         f"goal $6" + (f"; quiet, a drain after each request: ${quiet:.2f}" if quiet else "")
         + ")")
    requests = headline.requests
    client_share, inbound_share = headline.client / requests, headline.inbound / requests
    functions = set(size.client.lambda_by_function) | set(size.inbound.lambda_by_function)
    rows = []
    for function in functions:
        def mixed(get: Callable[[PerEvent], dict[str, Any]]) -> float:
            return client_share * get(size.client).get(function, 0.0) + \
                inbound_share * get(size.inbound).get(function, 0.0)
        rows.append((function, mixed(lambda e: e.invocations) * 1000,
                     mixed(lambda e: e.lambda_by_function) * 1e6,
                     mixed(lambda e: e.dynamodb_by_function) * 1e6))
    line(f"  {'function':28} {'invocations':>11} {'Lambda $':>9} {'DynamoDB $':>10}  "
         f"(per 1,000 requests; $ per million)")
    for function, invocations, lam, ddb in sorted(rows, key=lambda r: -(r[2] + r[3]))[:14]:
        line(f"  {function:28} {invocations:11.0f} {lam:9.2f} {ddb:10.2f}")
    variants = ", ".join(f"{k} ${v / requests * 1e6:.2f}"
                         for k, v in headline.compute_variants.items())
    line(f"  Lambda compute by duration: {variants} (the total uses {HEADLINE})")
