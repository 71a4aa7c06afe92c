"""The OAuth authorization endpoint behind the consent pages (GET/POST /oauth/authorize):
check an authorization request, then issue a code when the user approves, or send them back
with `access_denied`. The browser is only ever sent to a redirect URI that passes the checks
again (`oauth.may_redirect_to`); the protocol itself is oauthlib's (api/oauth/oauth.py)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from stratus.api.oauth import oauth
from stratus.core.config import settings


class AuthorizationFailure(Exception):
    """An authorization request we cannot honour: redirect back with an error, or show it."""

    def __init__(self, message: str, redirect: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.redirect = redirect


class AuthorizationRequest:
    def __init__(self, params: list[tuple[str, str]], scopes: list[str], credentials: dict):
        self.params = params
        self.scopes = list(scopes)
        self.client_id = credentials["client_id"]
        self.redirect_uri = credentials.get("redirect_uri")
        self.state = credentials.get("state")
        self.app = oauth.get_app(self.client_id)


def _authorize_uri(params: list[tuple[str, str]]) -> str:
    return settings().base_url + "/oauth/authorize?" + urlencode(params)


def validate_authorization(params: list[tuple[str, str]]) -> AuthorizationRequest:
    from oauthlib.oauth2 import FatalClientError, OAuth2Error

    try:
        scopes, credentials = oauth.server().validate_authorization_request(
            _authorize_uri(params), "GET")
    except FatalClientError as exc:
        raise AuthorizationFailure(exc.description or exc.error) from exc
    except OAuth2Error as exc:
        redirect = exc.in_uri(exc.redirect_uri) \
            if oauth.may_redirect_to(exc.redirect_uri) else None
        raise AuthorizationFailure(exc.description or exc.error, redirect) from exc
    return AuthorizationRequest(params, scopes, credentials)


def approve(request: AuthorizationRequest, account_id: str) -> tuple[str | None, str | None]:
    """Issue a code: (redirect URL, None), or (None, code) for out-of-band apps."""
    if request.redirect_uri != oauth.OOB and not oauth.may_redirect_to(request.redirect_uri):
        raise AuthorizationFailure("The redirect uri included is not valid.")  # no code issued
    headers, _, _ = oauth.server().create_authorization_response(
        _authorize_uri(request.params), "GET", scopes=request.scopes,
        credentials={"user": account_id})
    location = headers["Location"]
    if request.redirect_uri == oauth.OOB:
        from urllib.parse import parse_qsl

        return None, dict(parse_qsl(urlsplit(location).query)).get("code", "")
    return location, None


def deny(request: AuthorizationRequest) -> str | None:
    """Where to send a user who said no (None for out-of-band apps)."""
    from oauthlib.oauth2 import AccessDeniedError

    if request.redirect_uri == oauth.OOB:
        return None
    if not oauth.may_redirect_to(request.redirect_uri):
        raise AuthorizationFailure("The redirect uri included is not valid.")
    return AccessDeniedError(state=request.state).in_uri(request.redirect_uri)
