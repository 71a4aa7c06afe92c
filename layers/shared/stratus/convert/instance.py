"""Instance, NodeInfo, rule, custom emoji and domain block entities, exactly as Mastodon renders them."""

from __future__ import annotations

import hashlib
from typing import Any

from stratus import MASTODON_API_LEVEL, MASTODON_VERSION, SOURCE_URL, __version__, version_string
from stratus.core import limits
from stratus.core.config import settings as env

THUMBNAIL_PATH = "/packs/media/images/preview.png"


def thumbnail_url() -> str:
    return env().base_url + THUMBNAIL_PATH


def rule(item: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(item["id"]), "text": item["text"], "hint": item.get("hint", ""),
            "translations": {}}


def custom_emoji(item: dict[str, Any]) -> dict[str, Any]:
    base = env().media_base_url
    return {
        "shortcode": item["shortcode"],
        "url": f"{base}/{item['image_key']}",
        "static_url": f"{base}/{item.get('static_key') or item['image_key']}",
        "visible_in_picker": bool(item.get("visible_in_picker", True)),
        "category": item.get("category") or None,
    }


def _registrations_enabled(s: dict[str, Any]) -> bool:
    return s["registrations_mode"] != "none"


def _statuses_config() -> dict[str, Any]:
    return {"max_characters": limits.MAX_STATUS_CHARACTERS,
            "max_media_attachments": limits.MAX_MEDIA_ATTACHMENTS,
            "characters_reserved_per_url": limits.CHARACTERS_RESERVED_PER_URL}


def _media_config(v2: bool) -> dict[str, Any]:
    config: dict[str, Any] = {
        "supported_mime_types": list(limits.MEDIA_SUPPORTED_MIME_TYPES),
        "image_size_limit": limits.IMAGE_SIZE_LIMIT,
        "image_matrix_limit": limits.IMAGE_MATRIX_LIMIT,
        "video_size_limit": limits.VIDEO_SIZE_LIMIT,
        "video_frame_rate_limit": limits.VIDEO_FRAME_RATE_LIMIT,
        "video_matrix_limit": limits.VIDEO_MATRIX_LIMIT,
    }
    if v2:
        config["description_limit"] = limits.MEDIA_DESCRIPTION_LIMIT
    return config


def _polls_config() -> dict[str, Any]:
    return {"max_options": limits.POLL_MAX_OPTIONS,
            "max_characters_per_option": limits.POLL_MAX_CHARACTERS_PER_OPTION,
            "min_expiration": limits.POLL_MIN_EXPIRATION,
            "max_expiration": limits.POLL_MAX_EXPIRATION}


def instance_v2(s: dict[str, Any], stats: dict[str, Any], rules: list[dict[str, Any]],
                *, contact_account: dict[str, Any] | None = None,
                vapid_public_key: str | None = None,
                registrations_message: str | None = None, terms_of_service: bool = False,
                translation: bool = False) -> dict[str, Any]:
    e = env()
    configuration: dict[str, Any] = {
        "urls": {"streaming": e.streaming_url, "status": None,
                 "about": f"{e.base_url}/about",
                 "privacy_policy": f"{e.base_url}/privacy-policy",
                 "terms_of_service": f"{e.base_url}/terms-of-service" if terms_of_service
                 else None},
        "accounts": {
            "max_display_name_length": limits.MAX_DISPLAY_NAME_LENGTH,
            "max_note_length": limits.MAX_NOTE_LENGTH,
            "max_avatar_description_length": limits.MAX_AVATAR_DESCRIPTION_LENGTH,
            "max_header_description_length": limits.MAX_HEADER_DESCRIPTION_LENGTH,
            "max_featured_tags": limits.MAX_FEATURED_TAGS,
            "max_pinned_statuses": limits.MAX_PINNED_STATUSES,
            "max_profile_fields": limits.MAX_PROFILE_FIELDS,
            "profile_field_name_limit": limits.PROFILE_FIELD_NAME_LIMIT,
            "profile_field_value_limit": limits.PROFILE_FIELD_VALUE_LIMIT,
        },
        "statuses": {**_statuses_config(),
                     "supported_mime_types": list(limits.STATUS_SUPPORTED_MIME_TYPES)},
        "media_attachments": _media_config(v2=True),
        "polls": _polls_config(),
        "translation": {"enabled": translation},
        "timelines_access": {
            "live_feeds": {"local": "public", "remote": "public"},
            "hashtag_feeds": {"local": "public", "remote": "public"},
            "trending_link_feeds": {"local": "public", "remote": "public"},
        },
        "limited_federation": False,
    }
    if vapid_public_key:
        configuration["vapid"] = {"public_key": vapid_public_key}
    approval = s["registrations_mode"] == "approved"
    return {
        "domain": e.domain,
        "title": s["site_title"],
        "version": version_string(),
        "source_url": SOURCE_URL,
        "description": s["site_description"],
        "usage": {"users": {"active_month": int(stats.get("active_month", 0))}},
        "thumbnail": {"url": thumbnail_url()},
        "icon": [],
        "languages": [e.default_language],
        "configuration": configuration,
        "registrations": {
            "enabled": _registrations_enabled(s),
            "approval_required": approval,
            "reason_required": approval and bool(s["require_invite_text"]),
            "message": registrations_message,
            "min_age": None,
            "url": None,
        },
        "api_versions": {"mastodon": MASTODON_API_LEVEL},
        "contact": {"email": s["contact_email"], "account": contact_account},
        "rules": [rule(r) for r in rules],
    }


def instance_v1(s: dict[str, Any], stats: dict[str, Any], rules: list[dict[str, Any]],
                *, contact_account: dict[str, Any] | None = None) -> dict[str, Any]:
    e = env()
    return {
        "uri": e.domain,
        "title": s["site_title"],
        "short_description": s["site_description"],
        "description": s["site_description"],
        "email": s["contact_email"],
        "version": version_string(),
        "urls": {"streaming_api": e.streaming_url},
        "stats": {"user_count": int(stats.get("user_count", 0)),
                  "status_count": int(stats.get("local_posts", 0)),
                  "domain_count": int(stats.get("domain_count", 0))},
        "thumbnail": thumbnail_url(),
        "languages": [e.default_language],
        "registrations": _registrations_enabled(s),
        "approval_required": s["registrations_mode"] == "approved",
        "invites_enabled": False,
        "configuration": {
            "accounts": {"max_featured_tags": limits.MAX_FEATURED_TAGS,
                         "max_pinned_statuses": limits.MAX_PINNED_STATUSES},
            "statuses": _statuses_config(),
            "media_attachments": _media_config(v2=False),
            "polls": _polls_config(),
        },
        "contact_account": contact_account,
        "rules": [rule(r) for r in rules],
    }


NODEINFO_SCHEMA_20 = "http://nodeinfo.diaspora.software/ns/schema/2.0"


def nodeinfo_links() -> dict[str, Any]:
    return {"links": [{"rel": NODEINFO_SCHEMA_20, "href": f"{env().base_url}/nodeinfo/2.0"}]}


def nodeinfo(s: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": "2.0",
        "software": {"name": "stratus", "version": __version__},
        "protocols": ["activitypub"],
        "services": {"outbound": [], "inbound": []},
        "usage": {
            "users": {"total": max(int(stats.get("user_count", 0)), 0),
                      "activeMonth": max(int(stats.get("active_month", 0)), 0),
                      "activeHalfyear": max(int(stats.get("active_halfyear", 0)), 0)},
            "localPosts": max(int(stats.get("local_posts", 0)), 0),
        },
        # Issue #2: only `open` counts as open (Mastodon also counts `approved` as open).
        # Mastodon: open unless closed (sign-ups that need approval are still open ones).
        "openRegistrations": s["registrations_mode"] != "none",
        "metadata": {
            "nodeName": s["site_title"],
            "nodeDescription": s["site_description"],
            "upstream": {"name": "mastodon", "version": MASTODON_VERSION},
        },
    }


def public_domain(domain: str) -> str:
    """DomainBlock#public_domain for an obfuscated block: the middle of the name starred,
    about a quarter kept at each end, dots kept."""
    visible = len(domain) // 4
    return "".join("*" if visible < i < len(domain) - visible and c != "." else c
                   for i, c in enumerate(domain))


def domain_digest(domain: str) -> str:
    """A blocked domain's SHA-256, by which clients match an obfuscated name."""
    return hashlib.sha256(domain.encode()).hexdigest()


def domain_block(item: dict[str, Any], *, with_comment: bool) -> dict[str, Any]:
    domain = item["domain"]
    entity = {
        "domain": public_domain(domain) if item.get("obfuscate") else domain,
        "digest": domain_digest(domain),
        "severity": "suspend" if item.get("severity") == "suspend" else "silence",
    }
    if with_comment:
        entity["comment"] = item.get("public_comment")
    return entity
