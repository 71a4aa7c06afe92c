"""RSA-2048 key pairs of ActivityPub actors (docs/federation.md, "Keys").

Every local account's actor, and the instance actor, has one key pair. It is made by the
effects worker when a user item is inserted (the outbox's `GenerateActorKey` job), so sign-up
does not pay ~100 ms of key generation, and lazily by whoever needs it first (an actor fetch)
if that job has not run yet. Either way the write is conditional: the first key stored wins,
a redelivered job or a race with the lazy path keeps it.

The private key is sealed at rest (`secrets.seal`, AES-GCM under a key derived from the
instance secret) with the item's identity as the authenticated context, so a sealed key
copied to another item does not open; no API returns it. The public key PEM is stored in
clear: actor documents read it without the instance secret.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from stratus.core import clock
from stratus.read import secrets
from stratus.repo import actor_keys as repo

if TYPE_CHECKING:  # the job classes are ~25 ms of INIT that the actor documents do not need
    from stratus.jobs import messages as jobs

KEY_SIZE = 2048
PUBLIC_EXPONENT = 65537


def _context(account_id: str | None) -> bytes:
    """What a sealed private key is bound to: the identity of the item that holds it."""
    return f"actor_key/{account_id if account_id is not None else 'instance'}".encode()


def new_key_pair() -> tuple[bytes, str]:
    """(private key PKCS#8 PEM, public key SubjectPublicKeyInfo PEM) — what Mastodon's
    `publicKeyPem` carries."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=PUBLIC_EXPONENT, key_size=KEY_SIZE)
    private_pem = private.private_bytes(serialization.Encoding.PEM,
                                        serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption())
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private_pem, public_pem.decode("ascii")


def _new_item(account_id: str | None) -> dict[str, Any]:
    private_pem, public_pem = new_key_pair()
    return repo.item(account_id, public_pem, secrets.seal(private_pem, _context(account_id)),
                     clock.iso(clock.now()))


def ensure(account_id: str | None) -> dict[str, Any]:
    """The actor's key item, made now if it has none (None: the instance actor). Whoever
    stores first wins; a loser reads the winner's key."""
    found = repo.get(account_id)
    if found is not None:
        return found
    made = _new_item(account_id)
    if repo.put_if_absent(made):
        return made
    return repo.get(account_id, consistent=True) or made


def public_key_pem(account_id: str | None) -> str | None:
    """The stored public key, without making one (readers that may not write)."""
    found = repo.get(account_id)
    return found["public_key_pem"] if found else None


def private_key(account_id: str | None):
    """The actor's private key (a `cryptography` RSA key) for signing; made if missing."""
    found = ensure(account_id)
    return _opened(account_id, found["sealed_private_key"])


@functools.lru_cache(maxsize=256)
def _opened(account_id: str | None, sealed: str):
    """A sealed key, unsealed and loaded once per process (loading checks the RSA key: several
    ms of every delivery's time). Keyed by the sealed text, so a rotated key is a new entry."""
    from cryptography.hazmat.primitives import serialization

    pem = secrets.unseal(sealed, _context(account_id))
    return serialization.load_pem_private_key(pem, password=None)


def rotate(account_id: str | None) -> dict[str, Any]:
    """Replace the actor's key pair (docs/federation.md, "Key rotation")."""
    made = _new_item(account_id)
    repo.replace(made)
    return made


def generate(job: jobs.GenerateActorKey) -> int:
    """The effects job for a new user: 1 if it made the key, 0 if there was one (or the
    account is gone: a rejected sign-up)."""
    from stratus.repo import accounts as accounts_repo

    if repo.get(job.account_id) is not None or accounts_repo.get_profile(job.account_id) is None:
        return 0
    made = _new_item(job.account_id)
    return 1 if repo.put_if_absent(made) else 0
