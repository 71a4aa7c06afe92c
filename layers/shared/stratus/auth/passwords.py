"""Password hashing with Argon2id (argon2-cffi)."""

from __future__ import annotations

_hasher = None


def _ph():
    global _hasher
    if _hasher is None:
        from argon2 import PasswordHasher

        _hasher = PasswordHasher()
    return _hasher


def hash_password(password: str) -> str:
    return _ph().hash(password)


def verify(password_hash: str | None, password: str) -> bool:
    if not password_hash:
        # Spend the same time as a real check so timing does not reveal unknown e-mails.
        _ph().hash(password)
        return False
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return _ph().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
