"""Mastodon's Cache-Control policies (ApplicationController / Api::BaseController)."""

from __future__ import annotations

from typing import Any

PRIVATE = "private, no-store"
# cache_even_if_authenticated!: instance metadata, custom emojis
PUBLIC_5_MIN = "max-age=300, public, stale-while-revalidate=30, stale-if-error=86400"
# cache_if_unauthenticated!: public reads when no user is signed in
PUBLIC_15_S = "max-age=15, public, stale-while-revalidate=30, stale-if-error=86400"
NODEINFO_DISCOVERY = "max-age=259200, public"
NODEINFO_DOCUMENT = "max-age=1800, public"


def cache(response: Any, policy: str) -> None:
    response.headers["Cache-Control"] = policy


def cache_if_unauthenticated(response: Any, request: Any) -> None:
    if not request.headers.get("authorization"):
        response.headers["Cache-Control"] = PUBLIC_15_S
# ActivityPub documents and WebFinger (Mastodon's expires_in in its federation controllers)
ACTIVITYPUB_3_MIN = "max-age=180, public"
ACTIVITYPUB_1_MIN = "max-age=60, public"
WEBFINGER = "max-age=259200, public"
# The public web pages, as Mastodon's controllers send them to a reader not signed in:
# AccountsController and TagsController (HTML), StatusesController (HTML, embed), the feeds.
PAGE_15_S = "max-age=15, public, stale-while-revalidate=30, stale-if-error=3600"
STATUS_PAGE = "max-age=10, public"
EMBED_PAGE = "max-age=180, public"
ACCOUNT_FEED = "max-age=60, public"
TAG_FEED = "max-age=0, public"
GONE_PAGE = "max-age=180, public"  # AccountOwnedConcern: a suspended account's pages
