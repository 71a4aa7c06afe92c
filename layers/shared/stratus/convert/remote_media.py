"""Which URL a client gets for a remote image: ours, always (pure; federation/remote_media.py
fetches and stores).

Mastodon serves its own copies of remote avatars, headers, attachments and custom emoji, never
the remote server's URL: a client loading a timeline contacts our server and our media bucket
only, whatever hosts the statuses it shows name. Here a remote image renders as

- its copy in the media bucket once fetched, named on the item that renders it (the profile's
  `avatar_key` with `avatar_cached_from`, the media item's `file_key` with `cached_from`, an
  emoji's own copy item) and only while that copy was made from the URL the item holds now;
- until then our media proxy, `/media_proxy/<kind>/<owner id>/<digest>[/<style>]`, which
  fetches it on first use and redirects to the copy (Mastodon's `/media_proxy/:id/:style`).

The digest is of the remote URL: a proxy URL is only known to whoever was shown the item (as
the remote URL itself), so ids cannot be walked to fetch the media of statuses one may not see,
and a changed avatar gets a new URL.
"""

from __future__ import annotations

import hashlib
from typing import Any

from stratus.core.config import settings as env

KINDS = ("avatar", "header", "attachment", "emoji")
STYLES = ("original", "small", "static")
DIGEST_CHARS = 32


def digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]


def digest_of(emoji: dict[str, Any]) -> str:
    """The key of a remote emoji's copy (its URL's digest)."""
    return digest(emoji.get("url") or "")


def proxy_url(kind: str, owner_id: str, source: str, style: str = "original") -> str:
    path = f"/media_proxy/{kind}/{owner_id}/{digest(source)}"
    return env().base_url + (path if style == "original" else f"{path}/{style}")


def bucket_url(key: str) -> str:
    return f"{env().media_base_url}/{key}"


def account_image(profile: dict[str, Any], kind: str) -> tuple[str, str] | None:
    """(url, static url) of a remote account's avatar or header; None when it has none."""
    source = profile.get(f"{kind}_remote_url")
    if not source:
        return None
    key = profile.get(f"{kind}_key")
    if key and profile.get(f"{kind}_cached_from") == source:
        static = profile.get(f"{kind}_static_key")
        return bucket_url(key), bucket_url(static) if static else bucket_url(key)
    return (proxy_url(kind, str(profile["id"]), source),
            proxy_url(kind, str(profile["id"]), source, "static"))


def attachment_urls(item: dict[str, Any]) -> tuple[str, str | None]:
    """(url, preview url) of a remote media item: images only (what our image pipeline can
    re-encode); anything else gets the proxy, which has nothing to serve for it."""
    source = item["remote_url"]
    if item.get("file_key") and item.get("cached_from") == source:
        small = item.get("small_key")
        return bucket_url(item["file_key"]), bucket_url(small) if small else None
    url = proxy_url("attachment", str(item["id"]), source)
    if item.get("media_type") != "image":
        return url, None
    return url, proxy_url("attachment", str(item["id"]), source, "small")


def emoji_urls(emoji: dict[str, Any], status_id: str, copy: dict[str, Any] | None
               ) -> tuple[str, str]:
    """(url, static url) of a remote status's custom emoji; `copy`: its copy item, if any."""
    source = emoji["url"]
    stored = (copy or {}).get("object_keys") or {}
    if copy and copy.get("source") == source and stored.get("original"):
        original = bucket_url(stored["original"])
        return original, bucket_url(stored["static"]) if stored.get("static") else original
    return (proxy_url("emoji", status_id, source),
            proxy_url("emoji", status_id, source, "static"))
