"""ActivityPub function: what other servers read — WebFinger, host-meta, actors (users and the
instance actor), outboxes, follower and featured collections, statuses as objects
(docs/federation.md). Browsers asking for `/users/:name` are sent to the profile page, for
`/users/:name/statuses/:id` to the status's page (docs/web.md); the inboxes are
InboxFunction's. With authorized fetch on, actors, collections and statuses need a
signed GET (federation/authorized_fetch.py) and are answered as the signing account may see them
(federation/activitypub.py: blocks, followers-only and direct statuses); the instance actor,
WebFinger and host-meta never need one."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from stratus.core.config import settings
from stratus.core.errors import ApiError
from stratus.core.observability import http_handler
from stratus.federation import activitypub, authorized_fetch
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import ACTIVITYPUB_1_MIN, ACTIVITYPUB_3_MIN, WEBFINGER
from stratus.http.negotiation import activity_json, wants_activitypub

router = APIRouter()
NOT_FOUND_CACHE = "max-age=180, public"


def activity(document: dict[str, Any], cache: str = ACTIVITYPUB_3_MIN,
             vary: str | None = None,
             access: authorized_fetch.Access | None = None) -> JSONResponse:
    if access is not None and access.required:  # each signer's own answer (Mastodon's)
        cache = cache.replace("public", "private")
        vary = f"{vary}, Signature" if vary else "Signature"
    return activity_json(document, cache=cache, vary=vary)


def signed(request: Request) -> authorized_fetch.Access:
    """The authorized-fetch check of a GET (401/403 when it is on and the request is not
    signed by a server we federate with); the path and query as the peer signed them."""
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) and raw else request.url.path
    return authorized_fetch.check(request.method, path, request.url.query,
                                  dict(request.headers))


def _params(request: Request) -> dict[str, Any]:
    return dict(request.query_params)


@router.get("/.well-known/webfinger")
def webfinger(request: Request):
    try:
        document = activitypub.webfinger(request.query_params.get("resource"))
    except ApiError as exc:
        exc.headers.setdefault("Cache-Control", NOT_FOUND_CACHE)
        raise
    return JSONResponse(document, media_type="application/jrd+json; charset=utf-8",
                        headers={"Cache-Control": WEBFINGER})


@router.get("/.well-known/host-meta")
def host_meta(request: Request):
    headers = {"Cache-Control": WEBFINGER, "Vary": "Accept"}
    first = (request.headers.get("accept") or "").split(",")[0].split(";")[0].strip().lower()
    if first == "application/json":
        return JSONResponse(activitypub.host_meta_json(), headers=headers)
    return Response(activitypub.host_meta_xml(),
                    media_type="application/xrd+xml; charset=utf-8", headers=headers)


@router.get("/.well-known/host-meta.json")
def host_meta_json():
    return JSONResponse(activitypub.host_meta_json(),
                        headers={"Cache-Control": WEBFINGER})


@router.get("/users/{username}")
def actor(username: str, request: Request):
    """JSON-LD for servers; browsers go to the profile page (Mastodon's route constraint)."""
    if not wants_activitypub(request.headers.get("accept")):
        account = activitypub.local_account(username)
        return RedirectResponse(activitypub.profile_url(account), status_code=301,
                                headers={"Vary": "Accept"})
    access = signed(request)
    return activity(activitypub.actor(username, reader=access.account), vary="Accept",
                    access=access)


@router.get("/users/{username}/outbox")
def outbox(username: str, request: Request):
    access = signed(request)
    params = _params(request)
    return activity(activitypub.outbox(username, params, access.account),
                    ACTIVITYPUB_1_MIN if "page" in params else ACTIVITYPUB_3_MIN, access=access)


@router.get("/users/{username}/followers")
def followers(username: str, request: Request):
    access = signed(request)
    params = _params(request)
    return activity(activitypub.followers(username, params, access.account),
                    "max-age=0, public" if "page" in params else ACTIVITYPUB_3_MIN,
                    access=access)


@router.get("/users/{username}/following")
def following(username: str, request: Request):
    access = signed(request)
    params = _params(request)
    return activity(activitypub.following(username, params, access.account),
                    "max-age=0, public" if "page" in params else ACTIVITYPUB_3_MIN,
                    access=access)


@router.get("/users/{username}/collections/featured")
def featured(username: str, request: Request):
    access = signed(request)
    return activity(activitypub.featured(username, access.account), access=access)


@router.get("/users/{username}/collections/tags")
def featured_tags(username: str, request: Request):
    access = signed(request)
    return activity(activitypub.featured_tags(username, access.account), access=access)


@router.get("/users/{username}/statuses/{status_id}")
def status(username: str, status_id: str, request: Request):
    """The Note for servers; browsers go to the status's page (Mastodon's route constraint:
    `/users/:username/statuses/:id` redirects HTML to `/@:username/:id`)."""
    if not wants_activitypub(request.headers.get("accept")):
        return RedirectResponse(f"{settings().base_url}/@{quote(username, safe='')}/"
                                f"{quote(status_id, safe='')}", status_code=301,
                                headers={"Vary": "Accept"})
    access = signed(request)
    found = activitypub.status_object(username, status_id, access.account)
    if isinstance(found, str):  # a boost: where the boosted status is
        return RedirectResponse(found, status_code=302)
    return activity(found, access=access)


@router.get("/users/{username}/statuses/{status_id}/replies")
def status_replies(username: str, status_id: str, request: Request):
    """The status's replies (federation/replies.py); Mastodon's RepliesController answers
    `max-age=0`, public for a public or unlisted status."""
    access = signed(request)
    document, distributable = activitypub.status_replies(username, status_id,
                                                         _params(request), access.account)
    return activity(document, "max-age=0, public" if distributable else "max-age=0, private",
                    access=access)


@router.get("/users/{username}/statuses/{status_id}/activity")
def status_activity(username: str, status_id: str, request: Request):
    access = signed(request)
    return activity(activitypub.status_activity(username, status_id, access.account),
                    access=access)


@router.get("/actor")
def instance_actor():
    return activity(activitypub.instance_actor())


@router.get("/actor/outbox")
def instance_outbox(request: Request):
    access = signed(request)
    return activity(activitypub.instance_outbox(), access=access)


app = create_app([router], name="activitypub")
handler = http_handler(app)
