"""Web function: public HTML pages (profiles, about), default avatar/header images, and the
API's catch-all (`$default`), which answers unknown routes with Mastodon's JSON 404. `/@:name`
reaches it through `$default` (API Gateway cannot route a path variable inside a segment), so
it also answers servers asking for the actor there (docs/federation.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from stratus.http.app import create_app
from stratus.http.cache import ACTIVITYPUB_3_MIN, PUBLIC_15_S
from stratus.http.negotiation import activity_json, wants_activitypub
from stratus.observability import http_handler
from stratus.services import activitypub, pages

router = APIRouter()


@router.get("/@{username}")
def profile_page(username: str, request: Request):
    """The profile page, or for servers (`Accept: application/activity+json`) the actor, as
    Mastodon negotiates `/@:username`. This function only reads: an actor whose key pair is
    not made yet is sent to `/users/:name`, where it is made."""
    if wants_activitypub(request.headers.get("accept")):
        document = activitypub.actor(username, may_write=False)
        if document is None:
            return RedirectResponse(activitypub.local_account(username).uri, status_code=302,
                                    headers={"Vary": "Accept"})
        return activity_json(document, cache=ACTIVITYPUB_3_MIN, vary="Accept")
    html = pages.profile(username)
    if html is None:
        return HTMLResponse(pages.not_found(), status_code=404, headers={"Vary": "Accept"})
    return HTMLResponse(html, headers={"Cache-Control": PUBLIC_15_S, "Vary": "Accept"})


@router.get("/about")
def about_page():
    return HTMLResponse(pages.about(), headers={"Cache-Control": PUBLIC_15_S})


@router.get("/avatars/original/missing.png")
def default_avatar():
    return Response(pages.placeholder_image(400, 400), media_type="image/png",
                    headers={"Cache-Control": "max-age=31536000, public, immutable"})


@router.get("/headers/original/missing.png")
def default_header():
    return Response(pages.placeholder_image(1500, 500), media_type="image/png",
                    headers={"Cache-Control": "max-age=31536000, public, immutable"})


app = create_app([router], name="web")
handler = http_handler(app)
