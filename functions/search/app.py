"""Search function: accounts, hashtags and statuses (GET /api/v2/search)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from stratus.api.search import search
from stratus.auth.deps import Viewer, optional
from stratus.core.observability import http_handler
from stratus.http.app import create_app
from stratus.http.forms import request_params

router = APIRouter()


@router.get("/api/v2/search")
async def search_v2(request: Request, viewer: Viewer | None = Depends(optional("read:search"))):
    return search.search(viewer, await request_params(request))


app = create_app([router], name="search")
handler = http_handler(app)
