"""OAuth 2.0: applications, and the grants, on oauthlib's server core (the consent pages'
authorization endpoint: api/oauth/authorize.py).

oauthlib runs the protocol (parameter checks, PKCE verification, error codes); `_Validator`
answers its questions from DynamoDB. We keep Mastodon's token response (no `expires_in`:
tokens live until revoked; `created_at` added) and issue refresh tokens for user grants.
"""

from __future__ import annotations

import base64
import hmac
import json
import os
import re
import time
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

from stratus.auth import identity
from stratus.auth import scopes as scope_rules
from stratus.auth.tokens import digest, generate
from stratus.core import clock, ids
from stratus.core.config import settings
from stratus.core.errors import OAuthError, ValidationFailed
from stratus.read import secrets
from stratus.repo import oauth as repo
from stratus.repo import transaction

OOB = "urn:ietf:wg:oauth:2.0:oob"
GRANT_TYPES = ("authorization_code", "client_credentials", "password", "refresh_token")
CODE_TTL = 600
APP_NAME_LIMIT = 60
URL_LENGTH_LIMIT = 2000


# --- applications -----------------------------------------------------------------------
# Doorkeeper's redirect URI checks, with Mastodon's `forbid_redirect_uri` (schemes a browser
# runs or reads locally; `file:` added). Apps may use web URLs, their own scheme
# (`com.example.app:/callback`, `toot://`) or the out-of-band URN.
FORBIDDEN_SCHEMES = frozenset({"javascript", "vbscript", "data", "file"})
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


def redirect_uri_errors(uri: str) -> list[str]:
    """What is wrong with one redirect URI (Doorkeeper's messages); empty when it is fine."""
    if uri == OOB:
        return []
    if any(ord(c) <= 0x20 or ord(c) >= 0x7F for c in uri):
        # Browsers drop control characters and spaces (so "\x01javascript:" runs as script);
        # Ruby's URI parser, and so Mastodon, refuses them.
        return ["must be a valid URI."]
    scheme, colon, rest = uri.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme):
        return ["must be an absolute URI."]
    errors = []
    if scheme.lower() in FORBIDDEN_SCHEMES:
        errors.append("is forbidden by the server.")
    if "#" in rest:
        errors.append("cannot contain a fragment.")
    if not rest.startswith("/"):
        errors.append("must specify a scheme.")  # opaque, like `mailto:` or `about:blank`
    elif scheme.lower() in ("http", "https"):
        try:
            host = urlsplit(uri).hostname
        except ValueError:  # e.g. an unclosed IPv6 bracket
            return [*errors, "must be a valid URI."]
        if not host:
            errors.append("must be an absolute URI.")
    return errors


def may_redirect_to(uri: str | None) -> bool:
    """Whether a browser may be sent to `uri`: checked again on every redirect, so an app
    stored before these checks (or written around the API) can never send one to a script."""
    return bool(uri) and uri != OOB and not redirect_uri_errors(uri)


def _redirect_uris(raw: Any) -> list[str]:
    """Mastodon joins an array with newlines and splits the string on any whitespace."""
    if isinstance(raw, list):
        raw = "\n".join(str(u) for u in raw)
    return raw.split() if isinstance(raw, str) else []


def create_app(name: Any, redirect_uris: Any, scopes: Any, website: Any) -> tuple[dict, str]:
    """Register an app; returns (app item, client secret). Raises Mastodon's 422 on bad input."""
    details: dict[str, list[tuple[str, str]]] = {}
    name = (name or "").strip() if isinstance(name, str) else ""
    if not name:
        details["name"] = [("ERR_BLANK", "can't be blank")]
    elif len(name) > APP_NAME_LIMIT:
        details["name"] = [("ERR_TOO_LONG", f"is too long (maximum is {APP_NAME_LIMIT} characters)")]
    uris = _redirect_uris(redirect_uris)
    if not uris:
        details["redirect_uri"] = [("ERR_BLANK", "can't be blank")]
    elif any(len(u) > URL_LENGTH_LIMIT for u in uris):
        details["redirect_uri"] = [("ERR_TOO_LONG", f"is too long (maximum is {URL_LENGTH_LIMIT} characters)")]
    else:
        problems = list(dict.fromkeys(e for u in uris for e in redirect_uri_errors(u)))
        if problems:
            details["redirect_uri"] = [("ERR_INVALID", e) for e in problems]
    requested = scope_rules.parse(scopes) or list(scope_rules.DEFAULT)
    bad = scope_rules.unknown(requested)
    if bad:
        details["scopes"] = [("ERR_INVALID", "must only contain known scopes: " + ", ".join(bad))]
    website = website.strip() if isinstance(website, str) and website.strip() else None
    if website is not None:
        if len(website) > URL_LENGTH_LIMIT:
            details["website"] = [("ERR_TOO_LONG", f"is too long (maximum is {URL_LENGTH_LIMIT} characters)")]
        elif urlsplit(website).scheme not in ("http", "https") or not urlsplit(website).netloc:
            details["website"] = [("ERR_INVALID", "is not a valid URL")]
    if details:
        raise ValidationFailed(details)
    secret = generate()
    app = {"id": ids.new_id(), "client_id": generate(), "secret_hash": digest(secret),
           "name": name, "website": website, "redirect_uris": uris, "scopes": requested,
           "created_at": clock.iso(clock.now())}
    repo.put_app(app)
    return app, secret


def get_app(client_id: str) -> dict | None:
    return repo.get_app(client_id) if client_id else None


def vapid_key() -> str:
    return secrets.vapid_public_key()


# --- token issuance shared with sign-up --------------------------------------------------
def new_token(app: dict, account_id: str | None, scopes: list[str], *, raw: str | None = None
              ) -> tuple[dict, str]:
    """A token item and the raw token it is the hash of; nothing is written."""
    raw = raw or generate()
    token = {"id": ids.new_id(), "token_hash": digest(raw), "client_id": app["client_id"],
             "app_id": app["id"], "account_id": account_id, "scopes": scopes,
             "created_at": clock.iso(clock.now()), "created_epoch": int(time.time())}
    return token, raw


def token_response(token: dict, raw: str) -> dict:
    """Mastodon's Token entity for a token we issued outside oauthlib (sign-up)."""
    return {"access_token": raw, "token_type": "Bearer", "scope": " ".join(token["scopes"]),
            "created_at": int(token["created_epoch"])}


# --- oauthlib glue ----------------------------------------------------------------------
class _Client:
    def __init__(self, app: dict) -> None:
        self.app = app
        self.client_id = app["client_id"]


def _client_credentials(request: Any) -> tuple[str | None, str | None]:
    header = (request.headers or {}).get("Authorization", "")
    if header.lower().startswith("basic "):
        try:
            decoded = base64.b64decode(header[6:]).decode("utf-8")
            client_id, _, secret = decoded.partition(":")
            return unquote(client_id), unquote(secret)
        except (ValueError, UnicodeDecodeError):
            return None, None
    return request.client_id, getattr(request, "client_secret", None)


@lru_cache(maxsize=1)
def _validator_class():
    from oauthlib.oauth2 import RequestValidator

    class Validator(RequestValidator):
        def _app(self, client_id: str | None) -> dict | None:
            return get_app(client_id) if client_id else None

        def client_authentication_required(self, request, *args, **kwargs):
            return True

        def authenticate_client(self, request, *args, **kwargs):
            client_id, secret = _client_credentials(request)
            app = self._app(client_id)
            if app is None or not secret or not hmac.compare_digest(digest(secret), app["secret_hash"]):
                return False
            request.client = _Client(app)
            request.client_id = client_id
            return True

        def authenticate_client_id(self, client_id, request, *args, **kwargs):
            return False  # Mastodon apps are all confidential

        def validate_client_id(self, client_id, request, *args, **kwargs):
            app = self._app(client_id)
            if app is None:
                return False
            request.client = _Client(app)
            return True

        def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
            app = self._app(client_id)
            return bool(app) and redirect_uri in app["redirect_uris"] and \
                not redirect_uri_errors(redirect_uri)

        def get_default_redirect_uri(self, client_id, request, *args, **kwargs):
            app = self._app(client_id)
            if not app or len(app["redirect_uris"]) != 1:
                return None
            uri = app["redirect_uris"][0]
            return None if redirect_uri_errors(uri) else uri

        def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
            return response_type == "code"

        def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
            app = client.app if isinstance(client, _Client) else self._app(client_id)
            return bool(app) and not scope_rules.unknown(list(scopes)) and \
                scope_rules.all_covered(app["scopes"], list(scopes))

        def get_default_scopes(self, client_id, request, *args, **kwargs):
            return list(scope_rules.DEFAULT)

        def is_pkce_required(self, client_id, request):
            return False

        def save_authorization_code(self, client_id, code, request, *args, **kwargs):
            challenge = getattr(request, "code_challenge", None)
            repo.put_code(digest(code["code"]), {
                "client_id": client_id, "account_id": request.user,
                "scopes": list(request.scopes), "redirect_uri": request.redirect_uri,
                "code_challenge": challenge,
                "code_challenge_method": (getattr(request, "code_challenge_method", None)
                                          or ("plain" if challenge else None)),
                "ttl": int(time.time()) + CODE_TTL})

        def validate_code(self, client_id, code, client, request, *args, **kwargs):
            item = repo.get_code(digest(code))
            if item is None or item["client_id"] != client_id or int(item["ttl"]) <= time.time():
                return False
            request.user = item["account_id"]
            request.scopes = list(item["scopes"])
            request.stratus_code = item
            request.stratus_code_hash = digest(code)
            return True

        def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
            item = getattr(request, "stratus_code", None)
            return item is not None and item.get("redirect_uri") == redirect_uri

        def get_code_challenge(self, code, request):
            item = getattr(request, "stratus_code", None)
            return item.get("code_challenge") if item else None

        def get_code_challenge_method(self, code, request):
            item = getattr(request, "stratus_code", None)
            return item.get("code_challenge_method") if item else None

        def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
            pass  # done atomically with the token write in save_bearer_token

        def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
            return grant_type in GRANT_TYPES

        def validate_user(self, username, password, client, request, *args, **kwargs):
            from stratus.api.accounts import sign_in

            account_id = sign_in.authenticate(username, password)
            if account_id is None:
                return False
            request.user = account_id
            return True

        def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
            item = repo.get_refresh(digest(refresh_token))
            if item is None or item["client_id"] != client.client_id:
                return False
            request.user = item.get("account_id")
            request.stratus_refresh = item
            return True

        def get_original_scopes(self, refresh_token, request, *args, **kwargs):
            item = getattr(request, "stratus_refresh", None) or repo.get_refresh(digest(refresh_token))
            return list(item["scopes"]) if item else []

        def rotate_refresh_token(self, request):
            return True

        def save_bearer_token(self, token, request, *args, **kwargs):
            app = request.client.app
            account_id = request.user
            raw_refresh = token.get("refresh_token") if account_id else None
            item, _ = new_token(app, account_id, list(request.scopes),
                                raw=token["access_token"])
            refresh_hash = digest(raw_refresh) if raw_refresh else None
            ops = repo.put_token_ops(item, refresh_hash)
            if request.grant_type == "authorization_code":
                ops = [*repo.redeem_code_ops(request.stratus_code_hash, int(time.time())), *ops]
            elif request.grant_type == "refresh_token":
                old_refresh = request.stratus_refresh
                old = {"token_hash": old_refresh["token_hash"],
                       "refresh_hash": digest(request.refresh_token),
                       "account_id": old_refresh.get("account_id")}
                ops = repo.rotate_ops(old, item, refresh_hash)
            transaction.write(ops)
            # What Mastodon answers: no expiry (tokens live until revoked), `created_at` added.
            token.pop("expires_in", None)
            if not raw_refresh:
                token.pop("refresh_token", None)
            token["scope"] = " ".join(item["scopes"])
            token["created_at"] = int(item["created_epoch"])

    return Validator


_server = None


def server():
    global _server
    if _server is None:
        from oauthlib.oauth2 import Server

        _server = Server(_validator_class()(), token_generator=lambda request: generate(),
                         refresh_token_generator=lambda request: generate())
    if settings().scheme == "http":
        os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"  # local stack only
    return _server


def _oauth_error(body: str, status: int) -> OAuthError:
    data = json.loads(body) if body else {}
    code = data.get("error", "invalid_request")
    description = data.get("error_description") or DESCRIPTIONS.get(code, code)
    return OAuthError(code, description, 401 if code == "invalid_client" else status)


DESCRIPTIONS = {
    "invalid_grant": "The provided authorization grant is invalid, expired, revoked, does not "
                     "match the redirection URI used in the authorization request, or was "
                     "issued to another client.",
    "invalid_client": "Client authentication failed due to unknown client, no client "
                      "authentication included, or unsupported authentication method.",
    "invalid_scope": "The requested scope is invalid, unknown, or malformed.",
    "unsupported_grant_type": "The authorization grant type is not supported by the "
                              "authorization server.",
    "invalid_request": "The request is missing a required parameter, includes an unsupported "
                       "parameter value, or is otherwise malformed.",
    "unauthorized_client": "You are not authorized to revoke this token",
}


def token(params: dict[str, Any], headers: dict[str, str]) -> dict:
    """POST /oauth/token: run the grant and return Mastodon's token JSON."""
    flat = {k: v for k, v in params.items() if isinstance(v, str)}
    request_headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if "authorization" in headers:
        request_headers["Authorization"] = headers["authorization"]
    try:
        _, body, status = server().create_token_response(
            settings().base_url + "/oauth/token", "POST", urlencode(flat), request_headers)
    except transaction.ConditionFailed as exc:
        # A code redeemed twice at once, or a refresh token used twice: only one wins.
        raise OAuthError("invalid_grant", DESCRIPTIONS["invalid_grant"]) from exc
    if status != 200:
        raise _oauth_error(body, status)
    data = json.loads(body)
    data["token_type"] = "Bearer"
    return data


def authenticate_client(params: dict[str, Any], headers: dict[str, str]) -> dict:
    """Client authentication for /oauth/revoke (basic or post), as for the token endpoint."""
    from oauthlib.common import Request

    request = Request(settings().base_url + "/oauth/revoke", "POST", None,
                      {"Authorization": headers.get("authorization", "")})
    request.client_id = params.get("client_id") if isinstance(params.get("client_id"), str) else None
    request.client_secret = params.get("client_secret") if isinstance(params.get("client_secret"), str) else None
    if not _validator_class()().authenticate_client(request):
        raise OAuthError("invalid_client", DESCRIPTIONS["invalid_client"], 401)
    return request.client.app


def revoke(params: dict[str, Any], headers: dict[str, str]) -> None:
    """POST /oauth/revoke: idempotent; someone else's token is 403 unauthorized_client."""
    app = authenticate_client(params, headers)
    raw = params.get("token")
    if not isinstance(raw, str) or not raw:
        raise OAuthError("invalid_request", DESCRIPTIONS["invalid_request"])
    item = repo.get_token(digest(raw))
    if item is None:
        refresh = repo.get_refresh(digest(raw))
        item = repo.get_token(refresh["token_hash"]) if refresh else None
    if item is None:
        return
    if item["client_id"] != app["client_id"]:
        raise OAuthError("unauthorized_client", DESCRIPTIONS["unauthorized_client"], 403)
    repo.delete_token(item)
    identity.forget()


def revoke_all(account_id: str) -> int:
    """Revoke every token of an account (password change, disable, rejection)."""
    tokens = repo.account_tokens(account_id)
    for item in tokens:
        repo.delete_token(item)
    identity.forget()
    return len(tokens)


def metadata() -> dict:
    """RFC 8414 authorization server metadata, listing every grant we support."""
    base_url = settings().base_url
    return {
        "issuer": base_url + "/",
        "service_documentation": "https://docs.joinmastodon.org/",
        "authorization_endpoint": base_url + "/oauth/authorize",
        "token_endpoint": base_url + "/oauth/token",
        "app_registration_endpoint": base_url + "/api/v1/apps",
        "revocation_endpoint": base_url + "/oauth/revoke",
        "userinfo_endpoint": base_url + "/oauth/userinfo",
        "scopes_supported": list(scope_rules.ALL),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query", "fragment", "form_post"],
        "code_challenge_methods_supported": ["S256", "plain"],
        "grant_types_supported": list(GRANT_TYPES),
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
    }
