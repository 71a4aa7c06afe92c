"""Web function: the public HTML pages (profiles, statuses, hashtags, about), their RSS feeds,
the embed and oEmbed, the default avatar/header images, and the API's catch-all (`$default`),
which answers unknown routes with Mastodon's JSON 404. `/@:name` and `/@:name/:id` reach it
through `$default` (API Gateway cannot route a path variable inside a segment), so it also
answers servers asking for the actor or the Note there (docs/federation.md). The pages are
docs/web.md."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from stratus.api.web import feeds, oembed, pages, status_page, tag_page
from stratus.core import ids
from stratus.core.errors import NotFound
from stratus.core.observability import http_handler
from stratus.core.params import flag
from stratus.federation import activitypub, authorized_fetch
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import ACTIVITYPUB_3_MIN, PUBLIC_15_S
from stratus.http.negotiation import activity_json, wants_activitypub

router = APIRouter()
# Pages show what users wrote: no script runs, whatever gets through (styles are inline in
# the layout; images and media come from this host or the media distribution). Nothing frames
# a page but the embed, which other sites may frame.
_POLICY = ("default-src 'none'; img-src 'self' https: data:; media-src 'self' https:; "
           "style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")
CONTENT_SECURITY_POLICY = _POLICY + "; frame-ancestors 'none'"
EMBED_POLICY = _POLICY
RSS_SUFFIX = ".rss"


def _page(page: pages.Page, vary: bool = False) -> Response:
    headers = {"Content-Security-Policy": EMBED_POLICY if page.embeddable
               else CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff"}
    if not page.embeddable:
        headers["X-Frame-Options"] = "DENY"
    if page.cache:
        headers["Cache-Control"] = page.cache
    if vary:
        headers["Vary"] = "Accept"
    if page.links:
        headers["Link"] = ", ".join(page.links)
    if page.location:
        return RedirectResponse(page.location, status_code=page.status, headers=headers)
    return HTMLResponse(page.html, status_code=page.status, headers=headers,
                        media_type=page.media_type)


def _cursor(request: Request, name: str) -> str | None:
    value = request.query_params.get(name)
    return value if ids.is_id(value) else None


def _feed_name(name: str) -> str | None:
    return name[:-len(RSS_SUFFIX)] if name.endswith(RSS_SUFFIX) else None


@router.get("/@{username}")
def profile_page(username: str, request: Request):
    """The profile page (`.rss`: its feed), or for servers (`Accept: application/activity+json`)
    the actor, as Mastodon negotiates `/@:username`. This function only reads: an actor whose
    key pair is not made yet is sent to `/users/:name`, where it is made, and so is every server
    while authorized fetch is on (ActivityPubFunction checks signatures)."""
    feed = _feed_name(username)
    if feed is not None:
        return _page(feeds.account(feed, limit=request.query_params.get("limit")))
    if wants_activitypub(request.headers.get("accept")):
        # With authorized fetch on, the signature is checked where the actor lives (this
        # function holds no key to fetch the signer's with): a peer re-signs for the redirect.
        document = None if authorized_fetch.enabled() else \
            activitypub.actor(username, may_write=False)
        if document is None:
            return RedirectResponse(activitypub.local_account(username).uri, status_code=302,
                                    headers={"Vary": "Accept"})
        return activity_json(document, cache=ACTIVITYPUB_3_MIN, vary="Accept")
    return _page(pages.profile(username, max_id=_cursor(request, "max_id"),
                               min_id=_cursor(request, "min_id")), vary=True)


@router.get("/@{username}/tagged/{hashtag}")
def profile_tagged_page(username: str, hashtag: str, request: Request):
    feed = _feed_name(hashtag)
    if feed is not None:
        return _page(feeds.account(username, feed, limit=request.query_params.get("limit")))
    return _page(pages.profile(username, hashtag, max_id=_cursor(request, "max_id"),
                               min_id=_cursor(request, "min_id")))


@router.get("/@{username}/{status_id}")
def status_at_url(username: str, status_id: str, request: Request):
    """A status's `url`: its page for browsers; for servers, the Note (Mastodon's
    StatusesController renders it there too, so a pasted status link resolves). A boost
    redirects to what it boosts."""
    if not wants_activitypub(request.headers.get("accept")):
        return _page(status_page.page(username, status_id), vary=True)
    if not status_id.isdigit():
        raise NotFound()
    if authorized_fetch.enabled():  # the signature is checked where the Note lives
        account = activitypub.local_account(username)
        return RedirectResponse(f"{account.uri}/statuses/{status_id}", status_code=302,
                                headers={"Vary": "Accept"})
    document = activitypub.status_object(username, status_id)
    if isinstance(document, str):
        return RedirectResponse(document, status_code=302, headers={"Vary": "Accept"})
    return activity_json(document, cache=ACTIVITYPUB_3_MIN, vary="Accept")


@router.get("/@{username}/{status_id}/embed")
def status_embed(username: str, status_id: str):
    return _page(status_page.embed(username, status_id))


@router.get("/tags/{name}")
def hashtag_page(name: str, request: Request):
    """A hashtag's page (`.rss`: its feed; `?local=true`: only statuses from here)."""
    feed = _feed_name(name)
    if feed is not None:
        return _page(feeds.tag(feed, limit=request.query_params.get("limit"),
                               local=flag(request.query_params.get("local"))))
    return _page(tag_page.page(name, max_id=_cursor(request, "max_id"),
                               min_id=_cursor(request, "min_id")), vary=True)


@router.get("/api/oembed")
def api_oembed(request: Request):
    """oEmbed for a status URL of ours (`url`, `maxwidth`, `maxheight`); 404 otherwise."""
    query = request.query_params
    return JSONResponse(oembed.oembed(query.get("url"), query.get("maxwidth"),
                                      query.get("maxheight")))


@router.get("/about")
def about_page():
    return _page(pages.Page(200, pages.about(), cache=PUBLIC_15_S))


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
