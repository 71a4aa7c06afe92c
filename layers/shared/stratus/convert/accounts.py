"""Account, CredentialAccount, Admin::Account, Relationship, Role, Application and Token entities."""

from __future__ import annotations

import html
from typing import Any

from stratus.convert import remote_media
from stratus.core import clock
from stratus.core.config import settings as env
from stratus.model import roles
from stratus.model.relationships import Relationships

DEFAULT_AVATAR = "/avatars/original/missing.png"
DEFAULT_HEADER = "/headers/original/missing.png"


def profile_url(username: str) -> str:
    return f"{env().base_url}/@{username}"


def actor_uri(username: str) -> str:
    return f"{env().base_url}/users/{username}"


def note_html(note: str) -> str:
    """The bio as Mastodon stores it: escaped plain text in paragraphs with line breaks."""
    from stratus.text.sanitize import plain_to_html

    return plain_to_html(note) if note else ""


def _field_value_html(value: str) -> str:
    from stratus.text.sanitize import clean

    escaped = html.escape(value)
    if value.startswith(("https://", "http://")) and " " not in value:
        display = value.split("://", 1)[1]
        return clean(f'<a href="{escaped}" target="_blank" rel="nofollow noopener me" '
                     f'translate="no"><span class="invisible">{html.escape(value.split("://")[0])}://'
                     f'</span><span class="">{html.escape(display)}</span></a>')
    return escaped


def _media_url(key: str | None, default_path: str) -> str:
    if key:
        return f"{env().media_base_url}/{key}"
    return env().base_url + default_path


def _static_url(profile: dict[str, Any], kind: str, url: str) -> str:
    """The still image of an animated avatar or header (Mastodon's `*_static`), else `url`."""
    key = profile.get(f"{kind}_static_key")
    return f"{env().media_base_url}/{key}" if key else url


def role(r: roles.Role) -> dict[str, Any]:
    return {"id": r.id, "name": r.name, "permissions": str(r.permissions), "color": r.color,
            "highlighted": r.highlighted}


def account(profile: dict[str, Any], stats: dict[str, Any] | None = None,
            account_role: roles.Role | None = None) -> dict[str, Any]:
    stats = stats or {}
    username = profile["username"]
    domain = profile.get("domain")
    created = clock.parse_iso(profile["created_at"])
    # A remote account's images are ours, as Mastodon's are: our copy, or until there is one
    # our proxy that makes it (convert/remote_media.py), never its server's URL. Its bio and
    # field values were HTML sanitised when they were stored (federation/remote_accounts.py).
    if domain:
        avatar, avatar_static = (remote_media.account_image(profile, "avatar") or
                                 (env().base_url + DEFAULT_AVATAR,) * 2)
        header, header_static = (remote_media.account_image(profile, "header") or
                                 (env().base_url + DEFAULT_HEADER,) * 2)
    else:
        avatar = _media_url(profile.get("avatar_key"), DEFAULT_AVATAR)
        header = _media_url(profile.get("header_key"), DEFAULT_HEADER)
        avatar_static = _static_url(profile, "avatar", avatar)
        header_static = _static_url(profile, "header", header)
    last_status = stats.get("last_status_at")
    entity: dict[str, Any] = {
        "id": str(profile["id"]),
        "username": username,
        "acct": f"{username}@{domain}" if domain else username,
        "display_name": profile.get("display_name", ""),
        "locked": bool(profile.get("locked", False)),
        "bot": bool(profile.get("bot", False)),
        "discoverable": profile.get("discoverable"),
        "indexable": bool(profile.get("indexable", False)),
        "group": profile.get("actor_type") == "Group",
        # Mastodon renders the account's creation date at midnight UTC.
        "created_at": created.strftime("%Y-%m-%dT00:00:00.000Z"),
        "note": profile.get("note", "") if domain else note_html(profile.get("note", "")),
        "url": profile.get("url") or profile_url(username),
        "uri": profile.get("uri") or actor_uri(username),
        "avatar": avatar,
        "avatar_static": avatar_static,
        "avatar_description": profile.get("avatar_description", ""),
        "header": header,
        "header_static": header_static,
        "header_description": profile.get("header_description", ""),
        "followers_count": max(int(stats.get("followers_count", 0)), 0),
        "following_count": max(int(stats.get("following_count", 0)), 0),
        "statuses_count": max(int(stats.get("statuses_count", 0)), 0),
        "last_status_at": last_status[:10] if last_status else None,
        "hide_collections": bool(profile.get("hide_collections", False)),
        "noindex": not bool(profile.get("indexable", False)),
        "emojis": [],
        "roles": ([{"id": account_role.id, "name": account_role.name, "color": account_role.color}]
                  if account_role and account_role.highlighted else []),
        "fields": [{"name": html.escape(f.get("name", "")),
                    "value": f.get("value", "") if domain else _field_value_html(f.get("value", "")),
                    "verified_at": f.get("verified_at")} for f in profile.get("fields", [])],
    }
    if profile.get("suspended_at"):
        # A suspended account shows only its name to everyone (Mastodon's AccountSerializer).
        entity.update({"suspended": True, "display_name": "", "note": "", "locked": False,
                       "bot": False, "discoverable": False, "emojis": [], "fields": [],
                       "roles": [], "avatar": env().base_url + DEFAULT_AVATAR,
                       "avatar_static": env().base_url + DEFAULT_AVATAR,
                       "header": env().base_url + DEFAULT_HEADER,
                       "header_static": env().base_url + DEFAULT_HEADER,
                       "avatar_description": "", "header_description": ""})
    if profile.get("silenced_at"):
        entity["limited"] = True  # Mastodon: `silenced` rendered as `limited`
    return entity


def oauth_userinfo(profile: dict[str, Any]) -> dict[str, Any]:
    """OpenID Connect's UserInfo of a local account (Mastodon 4.4's OAuthUserinfoSerializer)."""
    username = profile["username"]
    return {"iss": env().base_url + "/", "sub": actor_uri(username),
            "name": profile.get("display_name", ""), "preferred_username": username,
            "profile": profile_url(username),
            "picture": _media_url(profile.get("avatar_key"), DEFAULT_AVATAR)}


def credential_account(profile: dict[str, Any], stats: dict[str, Any] | None,
                       user: dict[str, Any], account_role: roles.Role) -> dict[str, Any]:
    entity = account(profile, stats, account_role)
    prefs = user.get("settings", {})
    entity["source"] = {
        "privacy": prefs.get("default_privacy", "public"),
        "sensitive": bool(prefs.get("default_sensitive", False)),
        "language": prefs.get("default_language") or "",
        "note": profile.get("note", ""),
        "fields": [{"name": f.get("name", ""), "value": f.get("value", ""),
                    "verified_at": f.get("verified_at")} for f in profile.get("fields", [])],
        "follow_requests_count": max(int((stats or {}).get("follow_requests_count", 0)), 0),
        "hide_collections": bool(profile.get("hide_collections", False)),
        "discoverable": profile.get("discoverable"),
        "indexable": bool(profile.get("indexable", False)),
        "attribution_domains": [],
    }
    entity["role"] = role(account_role)
    return entity


def relationship(target_id: str, relations: Relationships, domain: str | None = None
                 ) -> dict[str, Any]:
    """The Relationship between `relations.viewer_id` and an account. Options of a pending
    request show as the follow's would (Mastodon's serializer)."""
    follow = relations.following.get(target_id) or relations.requested.get(target_id)
    mute = relations.muting.get(target_id)
    return {"id": str(target_id), "following": target_id in relations.following,
            "showing_reblogs": bool(follow and follow.reblogs),
            "notifying": bool(follow and follow.notify),
            "languages": list(follow.languages) if follow and follow.languages else None,
            "followed_by": target_id in relations.followed_by,
            "blocking": target_id in relations.blocking,
            "blocked_by": target_id in relations.blocked_by,
            "muting": mute is not None,
            "muting_notifications": bool(mute and mute.notifications),
            "muting_expires_at": mute.expires_at if mute else None,
            "requested": target_id in relations.requested,
            "requested_by": target_id in relations.requested_by,
            "domain_blocking": relations.blocks_domain(domain),
            "endorsed": target_id in relations.endorsed,
            "note": relations.notes.get(target_id, "")}


def preferences(user: dict[str, Any]) -> dict[str, Any]:
    prefs = user.get("settings", {})
    return {
        "posting:default:visibility": prefs.get("default_privacy", "public"),
        "posting:default:sensitive": bool(prefs.get("default_sensitive", False)),
        "posting:default:language": prefs.get("default_language") or None,
        "reading:expand:media": prefs.get("expand_media", "default"),
        "reading:expand:spoilers": bool(prefs.get("expand_spoilers", False)),
    }


def application(app: dict[str, Any], vapid_key: str, *, secret: str | None = None
                ) -> dict[str, Any]:
    entity = {
        "id": str(app["id"]),
        "name": app["name"],
        "website": app.get("website"),
        "scopes": list(app["scopes"]),
        "redirect_uri": "\n".join(app["redirect_uris"]),
        "redirect_uris": list(app["redirect_uris"]),
        "vapid_key": vapid_key,
    }
    if secret is not None:
        entity.update({"client_id": app["client_id"], "client_secret": secret,
                       "client_secret_expires_at": 0})
    return entity


def admin_account(profile: dict[str, Any], stats: dict[str, Any] | None,
                  user: dict[str, Any] | None, account_role: roles.Role) -> dict[str, Any]:
    user = user or {}
    return {
        "id": str(profile["id"]),
        "username": profile["username"],
        "domain": profile.get("domain"),
        "created_at": profile["created_at"],
        "email": user.get("email", ""),
        "ip": user.get("sign_up_ip"),
        "ips": ([{"ip": user["sign_up_ip"], "used_at": profile["created_at"]}]
                if user.get("sign_up_ip") else []),
        "locale": user.get("locale", ""),
        "invite_request": user.get("reason"),
        "role": role(account_role),
        "confirmed": bool(user.get("confirmed_at")),
        "approved": bool(user.get("approved", True)),
        "disabled": bool(user.get("disabled", False)),
        "silenced": bool(profile.get("silenced_at")),
        "suspended": bool(profile.get("suspended_at")),
        "sensitized": bool(profile.get("sensitized_at")),
        "account": account(profile, stats, account_role),
        "created_by_application_id": user.get("created_by_application_id"),
        "invited_by_account_id": None,
    }
