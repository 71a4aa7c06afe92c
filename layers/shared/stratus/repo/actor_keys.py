"""Actor key pairs (one item per local account, one for the instance actor): the public key
PEM in clear, the private key sealed (federation/actor_keys.py)."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys

ACTOR_KEY = "actor_key"


def item(account_id: str | None, public_key_pem: str, sealed_private_key: str,
         created_at: str) -> dict[str, Any]:
    return {**keys.actor_key(account_id), "type": ACTOR_KEY,
            "account_id": account_id if account_id is not None else "instance",
            "public_key_pem": public_key_pem, "sealed_private_key": sealed_private_key,
            "created_at": created_at}


def get(account_id: str | None, *, consistent: bool = False) -> dict[str, Any] | None:
    return base.get(keys.actor_key(account_id), consistent=consistent)


def put_if_absent(new: dict[str, Any]) -> bool:
    """Store a key pair unless the actor has one: False when another writer was first."""
    return base.put(new, condition="attribute_not_exists(PK)")


def replace(new: dict[str, Any]) -> None:
    """Store a key pair in place of the actor's current one (a rotation)."""
    base.put(new)
SK = keys.ACTOR_KEY_SK  # in an account bundle (repo.accounts.get_bundle)
