"""Signing in with an e-mail address and a password: whether the pair is right and the user may
sign in (the OAuth password grant, the web sign-in form), and a browser session's profile."""

from __future__ import annotations

from typing import Any

from stratus.auth import passwords
from stratus.repo import accounts as repo


def check_credentials(email: str, password: str) -> tuple[str | None, str | None]:
    """(account id, None) when the pair is right and the user may sign in, else (None, reason)."""
    account_id = repo.id_by_email(email) if isinstance(email, str) and email.strip() else None
    user = repo.get_user(account_id) if account_id else None
    if not passwords.verify(user.get("password_hash") if user else None, password or ""):
        return None, "Invalid e-mail address or password."
    if not user.get("confirmed_at"):
        return None, "You have to confirm your e-mail address before continuing."
    if user.get("disabled"):
        return None, "Your account is disabled."
    return account_id, None


def session_profile(account_id: str | None) -> dict[str, Any] | None:
    """The profile of a browser session's user, if that user may still sign in."""
    if not account_id:
        return None
    bundle = repo.get_bundle(account_id)
    user, profile = bundle.get(repo.USER), bundle.get(repo.PROFILE)
    if not user or not profile or user.get("disabled") or not user.get("confirmed_at"):
        return None
    return profile


def authenticate(email: str, password: str) -> str | None:
    return check_credentials(email, password)[0]
