"""Instance metadata function: /api/v1|v2/instance*, /api/v1/custom_emojis, NodeInfo, the peer
search and the health check."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.instance import emojis, instance
from stratus.auth.deps import Viewer, optional
from stratus.core.observability import http_handler
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import NODEINFO_DISCOVERY, NODEINFO_DOCUMENT, PUBLIC_5_MIN, cache
from stratus.http.deprecation import deprecated

router = APIRouter()


@router.get("/api/v2/instance")
@router.get("/api/v2/instance/", include_in_schema=False)
def instance_v2(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.instance_v2()


@router.get("/api/v1/instance", **deprecated("2022-11-14"))
@router.get("/api/v1/instance/", include_in_schema=False, **deprecated("2022-11-14"))
def instance_v1(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.instance_v1()


@router.get("/api/v1/instance/peers")
def instance_peers(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.peers()


@router.get("/api/v1/peers/search")
def peers_search(request: Request, response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.peer_search(request.query_params.get("q"))


@router.get("/api/v1/instance/activity")
def instance_activity(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.activity()


@router.get("/api/v1/instance/rules")
def instance_rules(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.rules()


@router.get("/api/v1/instance/extended_description")
def instance_extended_description(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.extended_description()


@router.get("/api/v1/instance/translation_languages")
def instance_translation_languages(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.translation_languages()


@router.get("/api/v1/instance/languages")
def instance_languages(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.languages()


@router.get("/api/v1/instance/privacy_policy")
def instance_privacy_policy(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.privacy_policy()


@router.get("/api/v1/instance/terms_of_service")
def instance_terms_of_service(response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.terms_of_service()


@router.get("/api/v1/instance/terms_of_service/{effective_date}")
def instance_terms_of_service_on(effective_date: str, response: Response):
    cache(response, PUBLIC_5_MIN)
    return instance.terms_of_service(effective_date)


@router.get("/api/v1/instance/domain_blocks")
def instance_domain_blocks(request: Request, response: Response,
                           viewer: Viewer | None = Depends(optional())):
    blocks, public = instance.domain_blocks(
        signed_in=viewer is not None and viewer.account is not None)
    if public:
        cache(response, PUBLIC_5_MIN)
    return blocks


@router.get("/api/v1/custom_emojis")
def custom_emojis(request: Request):
    listing = emojis.listing()
    headers = {"Cache-Control": PUBLIC_5_MIN, "ETag": listing.etag}
    if listing.last_modified:
        headers["Last-Modified"] = listing.last_modified
    if emojis.not_modified(listing, request.headers.get("if-none-match"),
                           request.headers.get("if-modified-since")):
        return Response(status_code=304, headers=headers)
    return Response(listing.body, media_type="application/json", headers=headers)


@router.get("/.well-known/nodeinfo")
def nodeinfo_discovery(response: Response):
    cache(response, NODEINFO_DISCOVERY)
    return instance.nodeinfo_links()


@router.get("/nodeinfo/2.0")
def nodeinfo_document():
    return JSONResponse(
        instance.nodeinfo(),
        media_type='application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"',
        headers={"Cache-Control": NODEINFO_DOCUMENT},
    )


@router.get("/health")
def health():
    return Response("OK", media_type="text/plain")


@router.get("/packs/media/images/preview.png")
def default_thumbnail():
    return Response(instance.default_thumbnail(), media_type="image/png",
                    headers={"Cache-Control": "max-age=31536000, public, immutable"})


app = create_app([router], name="instance")
handler = http_handler(app)
