"""Directory function: the profile directory and follow suggestions."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.directory import directory, suggestions
from stratus.auth.deps import Viewer, optional, require
from stratus.core.observability import http_handler
from stratus.http.app import create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.deprecation import deprecated

router = APIRouter()


@router.get("/api/v1/directory")
def directory_index(request: Request, response: Response,
                    viewer: Viewer | None = Depends(optional("read:accounts"))):
    cache_if_unauthenticated(response, request)
    return directory.listing(viewer, dict(request.query_params))


@router.get("/api/v2/suggestions")
def suggestions_v2(request: Request, viewer: Viewer = Depends(require("read"))):
    return suggestions.v2(viewer, dict(request.query_params))


@router.get("/api/v1/suggestions", **deprecated("2021-05-16"))
def suggestions_v1(request: Request, viewer: Viewer = Depends(require("read"))):
    return suggestions.v1(viewer, dict(request.query_params))


@router.delete("/api/v1/suggestions/{account_id}")
def suggestions_dismiss(account_id: str, viewer: Viewer = Depends(require("read"))):
    return suggestions.dismiss(viewer, account_id)


app = create_app([router], name="directory")
handler = http_handler(app)
