"""The PreviewCard entity (Mastodon 4.3's REST::PreviewCardSerializer)."""

from __future__ import annotations

from typing import Any

from stratus.core.config import settings as env


def preview_card(item: dict[str, Any]) -> dict[str, Any]:
    """A card item as the API shows it: `url` is the link as statuses carry it (Mastodon's
    `original_url`), `image` the stored copy in the media bucket, `authors` the one author the
    page names (no fediverse account: we resolve none)."""
    image = f"{env().media_base_url}/{item['image_key']}" if item.get("image_key") else None
    author_name, author_url = item.get("author_name", ""), item.get("author_url", "")
    return {
        "url": item["url"],
        "title": item.get("title", ""),
        "description": item.get("description", ""),
        "language": item.get("language"),
        "type": item.get("type", "link"),
        "author_name": author_name,
        "author_url": author_url,
        "provider_name": item.get("provider_name", ""),
        "provider_url": item.get("provider_url", ""),
        "html": item.get("html", ""),
        "width": int(item.get("width", 0)),
        "height": int(item.get("height", 0)),
        "image": image,
        "image_description": item.get("image_description", ""),
        "embed_url": item.get("embed_url", ""),
        "blurhash": item.get("blurhash") if image else None,
        "published_at": item.get("published_at"),
        "authors": [{"name": author_name, "url": author_url, "account": None}],
    }
