"""Accounts function: sign-up, credentials, profiles, lookups, notes, preferences, e-mails."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.accounts import accounts
from stratus.api.search import search
from stratus.api.tags import featured_tags
from stratus.auth.deps import Viewer, optional, require
from stratus.core.observability import http_handler
from stratus.http import ratelimit
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.client import client_ip
from stratus.http.deprecation import deprecated
from stratus.http.forms import request_params
from stratus.read import accounts as accounts_read

router = APIRouter()


@router.post("/api/v1/accounts")
async def accounts_create(request: Request):
    # Like rack-attack, every attempt counts, before anything else is looked at.
    limit_headers = accounts.count_sign_up(client_ip(request))
    viewer = require("write:accounts", user=False)(request)
    token = accounts.sign_up(viewer, await request_params(request), client_ip(request))
    return JSONResponse(token, headers=limit_headers)


@router.get("/api/v1/accounts/verify_credentials")
def accounts_verify_credentials(viewer: Viewer = Depends(require("read:accounts", "profile"))):
    return accounts.verify_credentials(viewer)


@router.patch("/api/v1/accounts/update_credentials")
async def accounts_update_credentials(request: Request,
                                      viewer: Viewer = Depends(require("write:accounts"))):
    return accounts.update_credentials(viewer, await request_params(request))


@router.get("/api/v1/accounts/lookup")
def accounts_lookup(request: Request, response: Response,
                    viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return accounts.lookup(request.query_params.get("acct", ""))


# search (api/search/search.py): declared before /{account_id}, which would take "search" for an id
@router.get("/api/v1/accounts/search")
async def accounts_search(request: Request,
                          viewer: Viewer = Depends(require("read:accounts"))):
    return search.account_search(viewer, await request_params(request))


@router.get("/api/v1/accounts")
def accounts_many(request: Request, response: Response,
                  viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return accounts.get_accounts(request.query_params.getlist("id[]")
                                 or request.query_params.getlist("id"))


@router.get("/api/v1/accounts/{account_id}")
def accounts_show(account_id: str, request: Request, response: Response,
                  viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return accounts_read.get_account(account_id)


@router.get("/api/v1/accounts/{account_id}/identity_proofs", **deprecated("2022-03-30"))
def accounts_identity_proofs(account_id: str, viewer: Viewer = Depends(require())):
    return accounts.identity_proofs(account_id)


@router.post("/api/v1/accounts/{account_id}/note")
async def accounts_note(account_id: str, request: Request,
                        viewer: Viewer = Depends(require("write:accounts"))):
    params = await request_params(request)
    return accounts.set_note(viewer, account_id, params.get("comment"))


@router.get("/api/v1/preferences")
def preferences(viewer: Viewer = Depends(require("read:accounts"))):
    return accounts.preferences(viewer)


@router.post("/api/v1/emails/confirmations")
async def emails_confirmations(request: Request,
                               viewer: Viewer = Depends(require("write:accounts",
                                                                allow_unconfirmed=True))):
    ip = ratelimit.ip_key(client_ip(request))
    ratelimit.check(ratelimit.CONFIRMATION_RESEND_IP, ip)
    ratelimit.check(ratelimit.CONFIRMATION_RESEND_USER, viewer.account_id)
    params = await request_params(request)
    email = params.get("email") if isinstance(params.get("email"), str) else None
    accounts.resend_confirmation(viewer, email)
    return {}


@router.get("/api/v1/emails/check_confirmation")
def emails_check_confirmation(viewer: Viewer = Depends(require("read:accounts",
                                                               allow_unconfirmed=True))):
    return bool(viewer.user.get("confirmed_at"))


@router.get("/api/v1/accounts/{account_id}/featured_tags")
def accounts_featured_tags(account_id: str, request: Request, response: Response,
                           viewer: Viewer | None = Depends(optional("read:accounts"))):
    # profiles: public, like Mastodon's Api::V1::Accounts::FeaturedTagsController
    cache_if_unauthenticated(response, request)
    return featured_tags.of_account(account_id)


app = create_app([router], name="accounts")
handler = http_handler(app)
