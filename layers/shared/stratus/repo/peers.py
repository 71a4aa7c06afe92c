"""What we learnt about peer servers while talking to them: that we know one (its host in the
`PEERS` partition, `PEERS/<domain>`: the instance's peer list, and how a domain block finds a
domain's subdomains), and the HTTP signature scheme a host accepted (federation/http.py's double
knock), one small item per host, `HOST#<host>/SIGNING`.

A peer is noted when the first account of its domain is stored (federation/remote_accounts.py),
*outside* that account's transaction and before it: every new actor of one server used to put the
same `PEERS/<domain>` item in its own transaction, so a burst of new actors from one server
cancelled each other's transactions (DynamoDB cancels concurrent transactions on one item) and
spent two write units each on one item (docs/data-model.md, "Hot keys"). Now the item is read
(eventually consistent) and put only when missing, conditionally, and a process remembers the
domains it found or wrote, so it asks at most once per domain; concurrent actors of one server
never conflict. Written before the account, a crash in between leaves a peer without accounts
(harmless: a domain block pages its empty partition), never an account whose domain a block of
its parent domain could not find."""

from __future__ import annotations

from stratus.core import memo
from stratus.repo import base, keys

SIGNING = "signing_scheme"
PEER = "peer"

_known = memo.Done()  # domains whose PEERS item this process found or wrote


def signing_scheme(host: str) -> str | None:
    found = base.get(keys.signing_scheme(host))
    return found.get("scheme") if found else None


def set_signing_scheme(host: str, scheme: str, updated_at: str) -> None:
    base.put({**keys.signing_scheme(host), "type": SIGNING, "host": host.lower(),
              "scheme": scheme, "updated_at": updated_at})


def remember(domain: str) -> bool:
    """Note `domain` (an account's domain, with its port if any) in the peers partition, once:
    True when this call wrote it. No transaction: concurrent callers never conflict; a process
    asks at most once per domain."""
    domain = domain.lower()
    if domain in _known:
        return False
    item = keys.peer(domain)
    wrote = False
    if base.get(item) is None:
        wrote = base.put({**item, "type": PEER, "domain": domain},
                         condition="attribute_not_exists(PK)")
    _known.add(domain)
    return wrote
