"""OAuth function: apps, the token and revocation endpoints, the sign-in and consent pages,
e-mail confirmation links, RFC 8414 discovery and OpenID Connect's UserInfo."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from stratus.api.accounts import accounts
from stratus.api.accounts import sign_in as sign_in_service
from stratus.api.oauth import authorize, oauth
from stratus.auth.deps import Viewer, require
from stratus.convert import accounts as convert
from stratus.core.errors import NotFound
from stratus.core.observability import http_handler
from stratus.core.params import truthy
from stratus.http import ratelimit
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import PUBLIC_5_MIN
from stratus.http.client import client_ip
from stratus.http.forms import request_params
from stratus.web import session as web_session
from stratus.web.render import render

router = APIRouter()


# --- apps ------------------------------------------------------------------------------------
@router.post("/api/v1/apps")
async def apps_create(request: Request):
    params = await request_params(request)
    app, secret = oauth.create_app(params.get("client_name"), params.get("redirect_uris"),
                                   params.get("scopes"), params.get("website"))
    return convert.application(app, oauth.vapid_key(), secret=secret)


@router.get("/api/v1/apps/verify_credentials")
def apps_verify_credentials(viewer: Viewer = Depends(require(user=False))):
    app = oauth.get_app(viewer.token["client_id"])
    if app is None:
        raise NotFound()
    return convert.application(app, oauth.vapid_key())


# --- tokens ---------------------------------------------------------------------------------
@router.post("/oauth/token")
async def oauth_token(request: Request):
    params = await request_params(request)
    return JSONResponse(oauth.token(params, dict(request.headers)),
                        headers={"Pragma": "no-cache"})


@router.post("/oauth/revoke")
async def oauth_revoke(request: Request):
    oauth.revoke(await request_params(request), dict(request.headers))
    return {}


# OpenID Connect's UserInfo (Mastodon 4.4), GET or POST as the specification says; only a
# token with the `profile` scope, of a usable user.
@router.get("/oauth/userinfo")
@router.post("/oauth/userinfo")
def oauth_userinfo(viewer: Viewer = Depends(require("profile"))):
    return convert.oauth_userinfo(viewer.account)


@router.get("/.well-known/oauth-authorization-server")
def oauth_metadata():
    return JSONResponse(oauth.metadata(), headers={"Cache-Control": PUBLIC_5_MIN})


# --- authorization code flow pages ----------------------------------------------------------
def _page(html: str, status: int = 200, session: dict | None = None):
    response = HTMLResponse(html, status_code=status)
    if session is not None:
        web_session.save(response, session)
    return response


def _message(heading: str, message: str, *, status: int = 200, error: bool = False,
             code: str | None = None, session: dict | None = None):
    return _page(render("message.html", heading=heading, message=message, error=error,
                        code=code), status, session)


def _validate(params: list[tuple[str, str]]):
    """(authorization request, None) or (None, the response that explains the failure)."""
    try:
        return authorize.validate_authorization(params), None
    except authorize.AuthorizationFailure as exc:
        if exc.redirect:
            return None, RedirectResponse(exc.redirect, status_code=302)
        return None, _message("Authorization failed", exc.message, status=400, error=True)


def _signed_in(session: dict) -> dict | None:
    return sign_in_service.session_profile(session.get("account_id"))


@router.get("/oauth/authorize")
@router.get("/oauth/authorize/", include_in_schema=False)
def oauth_authorize(request: Request):
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "force_login"]
    auth, failure = _validate(params)
    if failure is not None:
        return failure
    session = web_session.load(request)
    app = auth.app
    profile = _signed_in(session)
    if profile is None or truthy(request.query_params.get("force_login")):
        session.pop("account_id", None)
        return _page(render("sign_in.html", csrf=web_session.csrf_token(session),
                            return_to="/oauth/authorize?" + urlencode(params),
                            app_name=app["name"]), session=session)
    return _page(render("authorize.html", csrf=web_session.csrf_token(session),
                        app_name=app["name"], app_website=app.get("website"),
                        username=profile["username"], scopes=auth.scopes, params=params),
                 session=session)


@router.post("/oauth/authorize")
async def oauth_authorize_decision(request: Request):
    form = await request.form()
    session = web_session.load(request)
    if not web_session.csrf_ok(session, form.get("authenticity_token")):
        return _message("Authorization failed", "Your session expired. Go back and try again.",
                        status=422, error=True)
    profile = _signed_in(session)
    if profile is None:
        return _message("Authorization failed", "You are not signed in.", status=401,
                        error=True)
    params = [(k, v) for k, v in form.multi_items()
              if k not in ("authenticity_token", "decision") and isinstance(v, str)]
    auth, failure = _validate(params)
    if failure is not None:
        return failure
    try:
        if form.get("decision") != "approve":
            location = authorize.deny(auth)
            if location is None:
                return _message("Authorization denied", "You denied the application access.")
            return RedirectResponse(location, status_code=302)
        location, code = authorize.approve(auth, profile["id"])
    except authorize.AuthorizationFailure as exc:
        return _message("Authorization failed", exc.message, status=400, error=True)
    if code is not None:
        return _message("Authorization code", "", code=code)
    return RedirectResponse(location, status_code=302)


@router.post("/auth/sign_in")
async def sign_in(request: Request):
    form = await request.form()
    session = web_session.load(request)
    return_to = form.get("return_to") or ""
    if not isinstance(return_to, str) or not return_to.startswith("/oauth/authorize?"):
        return_to = "/oauth/authorize"
    if not web_session.csrf_ok(session, form.get("authenticity_token")):
        return _page(render("sign_in.html", csrf=web_session.csrf_token(session),
                            return_to=return_to, error="Your session expired. Please try again."),
                     status=422, session=session)
    ratelimit.check(ratelimit.SIGN_IN, ratelimit.ip_key(client_ip(request)))
    email = form.get("email") if isinstance(form.get("email"), str) else ""
    password = form.get("password") if isinstance(form.get("password"), str) else ""
    account_id, reason = sign_in_service.check_credentials(email, password)
    if account_id is None:
        return _page(render("sign_in.html", csrf=web_session.csrf_token(session),
                            return_to=return_to, email=email, error=reason),
                     status=422, session=session)
    # A new session id on sign-in (no session fixation).
    response = RedirectResponse(return_to, status_code=303)
    web_session.save(response, web_session.fresh(account_id))
    return response


@router.get("/auth/confirmation")
def confirmation(request: Request):
    token = request.query_params.get("confirmation_token", "")
    try:
        redirect = accounts.confirm(token)
    except NotFound:
        return _message("Confirmation failed", "This confirmation link is invalid or was "
                        "already used.", status=404, error=True)
    if redirect:
        return RedirectResponse(redirect, status_code=302)
    return _message("E-mail address confirmed",
                    "Your e-mail address has been confirmed. You can now sign in.")


app = create_app([router], name="oauth")
handler = http_handler(app)
