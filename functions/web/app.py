"""Web function: public HTML pages (profiles, about), default avatar/header images, and the
API's catch-all (`$default`), which answers unknown routes with Mastodon's JSON 404. `/@:name`
reaches it through `$default` (API Gateway cannot route a path variable inside a segment), so
it also answers servers asking for the actor there (docs/federation.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from stratus.api.web import pages
from stratus.core.errors import NotFound
from stratus.core.observability import http_handler
from stratus.federation import activitypub, authorized_fetch
from stratus.http.app import create_app
from stratus.http.cache import ACTIVITYPUB_3_MIN, PUBLIC_15_S
from stratus.http.negotiation import activity_json, wants_activitypub

router = APIRouter()
# Pages show what users wrote: no script runs, whatever gets through (styles are inline in
# base.html; images come from this host or the media distribution).
CONTENT_SECURITY_POLICY = ("default-src 'none'; img-src 'self' https: data:; "
                           "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
                           "frame-ancestors 'none'")


def _page(page: pages.Page) -> HTMLResponse:
    headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY,
               "X-Content-Type-Options": "nosniff"}
    if page.status == 200:
        headers["Cache-Control"] = PUBLIC_15_S
    return HTMLResponse(page.html, status_code=page.status, headers=headers)


@router.get("/@{username}")
def profile_page(username: str, request: Request):
    """The profile page, or for servers (`Accept: application/activity+json`) the actor, as
    Mastodon negotiates `/@:username`. This function only reads: an actor whose key pair is
    not made yet is sent to `/users/:name`, where it is made, and so is every server while
    authorized fetch is on (ActivityPubFunction checks signatures)."""
    if wants_activitypub(request.headers.get("accept")):
        # With authorized fetch on, the signature is checked where the actor lives (this
        # function holds no key to fetch the signer's with): a peer re-signs for the redirect.
        document = None if authorized_fetch.enabled() else \
            activitypub.actor(username, may_write=False)
        if document is None:
            return RedirectResponse(activitypub.local_account(username).uri, status_code=302,
                                    headers={"Vary": "Accept"})
        return activity_json(document, cache=ACTIVITYPUB_3_MIN, vary="Accept")
    response = _page(pages.profile(username, max_id=request.query_params.get("max_id")))
    response.headers["Vary"] = "Accept"
    return response


@router.get("/@{username}/tagged/{hashtag}")
def profile_tagged_page(username: str, hashtag: str, request: Request):
    return _page(pages.profile(username, hashtag, max_id=request.query_params.get("max_id")))


@router.get("/@{username}/{status_id}")
def status_at_url(username: str, status_id: str, request: Request):
    """A status's `url`: for servers, the Note (Mastodon's StatusesController renders it there
    too, so a pasted status link resolves); a boost redirects to what it boosted. Browsers get
    the JSON 404 of every unknown page: there is no HTML status page yet."""
    if not status_id.isdigit() or not wants_activitypub(request.headers.get("accept")):
        raise NotFound()
    if authorized_fetch.enabled():  # the signature is checked where the Note lives
        account = activitypub.local_account(username)
        return RedirectResponse(f"{account.uri}/statuses/{status_id}", status_code=302,
                                headers={"Vary": "Accept"})
    document = activitypub.status_object(username, status_id)
    if isinstance(document, str):
        return RedirectResponse(document, status_code=302, headers={"Vary": "Accept"})
    return activity_json(document, cache=ACTIVITYPUB_3_MIN, vary="Accept")


@router.get("/about")
def about_page():
    return _page(pages.Page(200, pages.about()))


@router.get("/privacy-policy")
def privacy_policy_page():
    return _page(pages.privacy_policy())


@router.get("/terms-of-service")
def terms_of_service_page():
    return _page(pages.terms_of_service())


@router.get("/terms-of-service/{effective_date}")
def terms_of_service_version_page(effective_date: str):
    return _page(pages.terms_of_service(effective_date))


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
