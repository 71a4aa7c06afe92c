"""Web function: public HTML pages (profiles, about), default avatar/header images, and the
API's catch-all (`$default`), which answers unknown routes with Mastodon's JSON 404."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.responses import HTMLResponse

from stratus.http.app import create_app
from stratus.http.cache import PUBLIC_15_S
from stratus.observability import http_handler
from stratus.services import pages

router = APIRouter()


@router.get("/@{username}")
def profile_page(username: str):
    html = pages.profile(username)
    if html is None:
        return HTMLResponse(pages.not_found(), status_code=404)
    return HTMLResponse(html, headers={"Cache-Control": PUBLIC_15_S})


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
