"""What we learnt about peer servers while talking to them: the HTTP signature scheme a host
accepted (federation/http.py's double knock), one small item per host, `HOST#<host>/SIGNING`."""

from __future__ import annotations

from stratus.repo import base, keys

SIGNING = "signing_scheme"


def signing_scheme(host: str) -> str | None:
    found = base.get(keys.signing_scheme(host))
    return found.get("scheme") if found else None


def set_signing_scheme(host: str, scheme: str, updated_at: str) -> None:
    base.put({**keys.signing_scheme(host), "type": SIGNING, "host": host.lower(),
              "scheme": scheme, "updated_at": updated_at})
