"""Tags function: a hashtag's Tag entity, following and unfollowing it, followed hashtags,
featured hashtags (featuring and unfeaturing them, suggestions)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from stratus.api.tags import featured_tags, tags
from stratus.auth.deps import Viewer, optional, require
from stratus.core.observability import http_handler
from stratus.core.paging import page_params
from stratus.http.app import JSONResponse, create_app
from stratus.http.cache import cache_if_unauthenticated
from stratus.http.forms import request_params
from stratus.http.pagination import set_link

router = APIRouter()


@router.get("/api/v1/tags/{hashtag}")
def tags_show(hashtag: str, request: Request, response: Response,
              viewer: Viewer | None = Depends(optional())):
    cache_if_unauthenticated(response, request)
    return tags.show(viewer, hashtag)


@router.post("/api/v1/tags/{hashtag}/follow")
def tags_follow(hashtag: str, viewer: Viewer = Depends(require("write:follows"))):
    tag, headers = tags.follow(viewer, hashtag)
    return JSONResponse(tag, headers=headers)


@router.post("/api/v1/tags/{hashtag}/unfollow")
def tags_unfollow(hashtag: str, viewer: Viewer = Depends(require("write:follows"))):
    return tags.unfollow(viewer, hashtag)


@router.get("/api/v1/followed_tags")
def followed_tags(request: Request, response: Response,
                  viewer: Viewer = Depends(require("read:follows"))):
    items, link_ids = tags.followed(viewer, page_params(dict(request.query_params),
                                                        default=100, maximum=200))
    set_link(response, request, link_ids)
    return items


# --- featured hashtags (profiles, issue 12) ---------------------------------------------------
@router.get("/api/v1/featured_tags")
def featured_tags_index(viewer: Viewer = Depends(require("read:accounts"))):
    return featured_tags.listed(viewer)


@router.post("/api/v1/featured_tags")
async def featured_tags_create(request: Request,
                               viewer: Viewer = Depends(require("write:accounts"))):
    return featured_tags.feature(viewer, (await request_params(request)).get("name"))


@router.get("/api/v1/featured_tags/suggestions")
def featured_tags_suggestions(viewer: Viewer = Depends(require("read:accounts"))):
    return featured_tags.suggestions(viewer)


@router.delete("/api/v1/featured_tags/{featured_id}")
def featured_tags_delete(featured_id: str, viewer: Viewer = Depends(require("write:accounts"))):
    return featured_tags.unfeature(viewer, featured_id)


@router.post("/api/v1/tags/{hashtag}/feature")
def tags_feature(hashtag: str, viewer: Viewer = Depends(require("write:accounts"))):
    return featured_tags.feature_tag(viewer, hashtag)


@router.post("/api/v1/tags/{hashtag}/unfeature")
def tags_unfeature(hashtag: str, viewer: Viewer = Depends(require("write:accounts"))):
    return featured_tags.unfeature_tag(viewer, hashtag)


app = create_app([router], name="tags")
handler = http_handler(app)
