"""A domain block's effect on the accounts of the domain and its subdomains, as steps of the
`domain_block` state machine (statemachines/domain_block.asl.json).

Mastodon's BlockDomainService and UnblockDomainService, in bounded steps: undo what the block's
previous severity did (only where the account's timestamp is the block's own, so a moderator's
separate action on one account stays), then apply the new severity to accounts not already so
limited. Each step handles one page and returns the state the next step starts from; a step run
twice (a retry after a timeout, a redelivered start) changes nothing more, because every
per-account change is conditional on the account's current state.
"""

from __future__ import annotations

from typing import Any

from stratus.core import hosts
from stratus.repo import accounts as repo
from stratus.repo import moderation

HOSTS_PER_STEP = 1000
ACCOUNTS_PER_STEP = 100


def covers(block_domain: str, host: str) -> bool:
    return hosts.covers(block_domain, host)


def step(state: dict[str, Any]) -> dict[str, Any]:
    """One step: first the hosts the block covers (the domain and the subdomains we know),
    then a page of one host's accounts. `done` once every host's accounts were handled."""
    domain = state["domain"].lower()
    if not state.get("hosts_done"):
        found = repo.known_domains(after=state.get("hosts_after"), limit=HOSTS_PER_STEP)
        hosts = [h for h in state.get("hosts") or [domain]]
        hosts += [h for h in found if covers(domain, h) and h not in hosts]
        done = len(found) < HOSTS_PER_STEP
        return {**state, "hosts": hosts, "hosts_after": found[-1] if found else None,
                "hosts_done": done, "host_index": 0, "after": None, "done": False}
    hosts, index = state["hosts"], int(state.get("host_index", 0))
    if index >= len(hosts):
        return {**state, "done": True}
    ids = repo.domain_account_ids(hosts[index], after=state.get("after"),
                                  limit=ACCOUNTS_PER_STEP)
    for account_id in ids:
        apply(account_id, severity=state.get("severity"), previous=state.get("previous"),
              at=state["at"])
    if len(ids) < ACCOUNTS_PER_STEP:
        return {**state, "host_index": index + 1, "after": None,
                "done": index + 1 >= len(hosts)}
    return {**state, "after": ids[-1], "done": False}


def apply(account_id: str, *, severity: str | None, previous: str | None, at: str) -> None:
    """Undo the previous severity's effect (where it was this block's), then apply the new one.
    `severity` None: the block was deleted."""
    if previous == "suspend" and severity != "suspend":
        moderation.unsuspend(account_id, at=at)
    if previous == "silence" and severity != "silence":
        moderation.unsilence(account_id, at=at)
    if severity == "suspend":
        moderation.suspend(account_id, at=at, origin="local")
    elif severity == "silence":
        moderation.silence(account_id, at=at)
