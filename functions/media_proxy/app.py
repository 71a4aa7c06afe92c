"""Media proxy function: our URL for a remote image until we hold a copy of it. Fetches the
copy on first use and redirects to it in the media bucket (Mastodon's MediaProxyController,
`/media_proxy/:id/:style`); an avatar or header that cannot be had redirects to the default
image, anything else is 404. No token: browsers load images without one; the URL's digest
of the remote URL is what makes it known only to those shown the item."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import RedirectResponse
from stratus.core.observability import http_handler
from stratus.federation import remote_media
from stratus.http.app import create_app

router = APIRouter()
# The copy's key never changes while it exists, but it expires (it is fetched again, under a
# new key, on the next use): a browser may keep the redirect for an hour.
REDIRECT_CACHE = "public, max-age=3600"


def _redirect(location: str) -> RedirectResponse:
    return RedirectResponse(location, status_code=302, headers={"Cache-Control": REDIRECT_CACHE})


@router.get("/media_proxy/{kind}/{owner_id}/{digest}")
def media_proxy(kind: str, owner_id: str, digest: str):
    return _redirect(remote_media.proxy(kind, owner_id, digest))


@router.get("/media_proxy/{kind}/{owner_id}/{digest}/{style}")
def media_proxy_style(kind: str, owner_id: str, digest: str, style: str):
    return _redirect(remote_media.proxy(kind, owner_id, digest, style))


app = create_app([router], name="media-proxy")
handler = http_handler(app)
