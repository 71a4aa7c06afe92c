"""Keys derived from the instance secret: the session signing key and the VAPID key pair.

The VAPID private key is derived deterministically (HKDF-SHA256 → P-256 scalar) from the
secret Secrets Manager generated at deploy time, so every function computes the same key with
no extra storage and no race on first use.
"""

from __future__ import annotations

import base64
from functools import lru_cache

from stratus.repo import secrets as repo


def session_key() -> bytes:
    return repo.instance_secret()["session_key"].encode("utf-8")


@lru_cache(maxsize=4)
def _vapid(seed: bytes):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    material = HKDF(algorithm=hashes.SHA256(), length=48, salt=b"stratus",
                    info=b"vapid p-256").derive(seed)
    scalar = int.from_bytes(material, "big") % (order - 1) + 1
    private = ec.derive_private_key(scalar, ec.SECP256R1())
    public = private.public_key().public_bytes(serialization.Encoding.X962,
                                               serialization.PublicFormat.UncompressedPoint)
    return private, base64.urlsafe_b64encode(public).rstrip(b"=").decode("ascii")


def vapid_public_key() -> str:
    return _vapid(session_key())[1]


def vapid_private_key():
    return _vapid(session_key())[0]


def _sealing_key() -> bytes:
    """An AES-256 key for values kept encrypted at rest (HKDF from the instance secret)."""
    return _derive(session_key(), b"sealed values")


@lru_cache(maxsize=4)
def _derive(seed: bytes, info: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"stratus", info=info).derive(seed)


def seal(plain: bytes, context: bytes) -> str:
    """`plain` encrypted and authenticated (AES-GCM) for storage, bound to `context` (e.g. the
    id of the item it is stored in): a sealed value copied elsewhere does not open."""
    import os

    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(12)
    sealed = nonce + AESGCM(_sealing_key()).encrypt(nonce, plain, context)
    return base64.urlsafe_b64encode(sealed).decode("ascii")


def unseal(sealed: str, context: bytes) -> bytes:
    """What `seal` sealed; ValueError if it was changed or sealed for another context."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = base64.urlsafe_b64decode(sealed.encode("ascii"))
    try:
        return AESGCM(_sealing_key()).decrypt(raw[:12], raw[12:], context)
    except InvalidTag as exc:
        raise ValueError("sealed value does not open") from exc
