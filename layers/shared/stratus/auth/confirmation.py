"""E-mail confirmation links: the token a link carries, derived from the instance secret, and
the mail that sends it. Sign-up and the operator make confirmations (api/accounts), the mail
worker sends them (workers/mail.py); only the token's hash is ever stored."""

from __future__ import annotations

import hashlib
import hmac

from stratus.core.config import settings
from stratus.read import secrets
from stratus.read import settings as settings_service
from stratus.repo import accounts as accounts_repo


def confirmation_token(account_id: str, nonce: str) -> str:
    """The confirmation link's token, derived from the instance secret: the mailer worker can
    rebuild it from the user item, and only its hash is stored."""
    key = secrets.session_key()
    return hmac.new(key, f"confirm:{account_id}:{nonce}".encode(), hashlib.sha256).hexdigest()


def confirmation_mail(account_id: str, nonce: str) -> tuple[str, str, str] | None:
    """(to, subject, body) for the current confirmation of an account, or None if it is stale."""
    user = accounts_repo.get_user(account_id)
    if user is None or user.get("confirmed_at") or user.get("confirmation_nonce") != nonce:
        return None
    profile = accounts_repo.get_profile(account_id) or {"username": ""}
    token = confirmation_token(account_id, nonce)
    link = f"{settings().base_url}/auth/confirmation?confirmation_token={token}"
    title = settings_service.current()["site_title"]
    body = (f"Hello @{profile['username']},\n\n"
            f"To finish signing up on {title} ({settings().domain}), confirm your e-mail "
            f"address by following this link:\n\n{link}\n\n"
            "If you did not sign up, you can ignore this message.\n")
    return user["email"], f"Confirm your e-mail address for {title}", body
