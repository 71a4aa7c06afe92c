"""Actor key pairs (one item per local account, one for the instance actor): the public key
PEM in clear, the private key sealed (federation/actor_keys.py)."""

from __future__ import annotations

from typing import Any

from stratus.repo import base, keys

ACTOR_KEY = "actor_key"


INSTANCE = "instance"  # the `account_id` of the instance actor's key pair


def item(account_id: str | None, public_key_pem: str, sealed_private_key: str,
         created_at: str) -> dict[str, Any]:
    """A key pair record (None: the instance actor's), to store with `put_if_absent` or
    `replace`."""
    return {"type": ACTOR_KEY, "account_id": account_id if account_id is not None else INSTANCE,
            "public_key_pem": public_key_pem, "sealed_private_key": sealed_private_key,
            "created_at": created_at}


def _item(record: dict[str, Any]) -> dict[str, Any]:
    """The stored item of a key pair record: keyed by the actor it names."""
    owner = record["account_id"]
    return {**keys.actor_key(None if owner == INSTANCE else owner), **record}


def get(account_id: str | None, *, consistent: bool = False) -> dict[str, Any] | None:
    return base.record(base.get(keys.actor_key(account_id), consistent=consistent))


def put_if_absent(new: dict[str, Any]) -> bool:
    """Store a key pair (an `item` record) unless the actor has one: False when another
    writer was first."""
    return base.put(_item(new), condition="attribute_not_exists(PK)")


def replace(new: dict[str, Any]) -> None:
    """Store a key pair (an `item` record) in place of the actor's current one (a rotation)."""
    base.put(_item(new))
SK = keys.ACTOR_KEY_SK  # in an account bundle (repo.accounts.get_bundle)
