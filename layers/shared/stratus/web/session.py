"""The browser session of the OAuth pages: a signed cookie (itsdangerous), HttpOnly,
SameSite=Lax, Secure over HTTPS, and CSRF tokens bound to the session id."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from stratus.core.config import settings
from stratus.read.secrets import session_key

COOKIE = "_stratus_session"
MAX_AGE = 14 * 86400


def _serializer():
    from itsdangerous import URLSafeTimedSerializer

    return URLSafeTimedSerializer(session_key(), salt="stratus.session")


def load(request: Any) -> dict[str, Any]:
    raw = request.cookies.get(COOKIE)
    if raw:
        from itsdangerous import BadSignature

        try:
            data = _serializer().loads(raw, max_age=MAX_AGE)
            if isinstance(data, dict) and data.get("sid"):
                return data
        except BadSignature:
            pass
    return {"sid": secrets.token_urlsafe(16)}


def fresh(account_id: str) -> dict[str, Any]:
    """A new session for a user who just signed in (a new id: no session fixation)."""
    return {"sid": secrets.token_urlsafe(16), "account_id": account_id}


def save(response: Any, data: dict[str, Any]) -> None:
    response.set_cookie(COOKIE, _serializer().dumps(data), max_age=MAX_AGE, path="/",
                        httponly=True, samesite="lax", secure=settings().scheme == "https")


def csrf_token(session: dict[str, Any]) -> str:
    return hmac.new(session_key(), f"csrf:{session['sid']}".encode(), hashlib.sha256).hexdigest()


def csrf_ok(session: dict[str, Any], token: Any) -> bool:
    return isinstance(token, str) and hmac.compare_digest(csrf_token(session), token)
