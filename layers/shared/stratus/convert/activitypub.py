"""ActivityPub documents in Mastodon's shapes (its ActivityPub serializers and well-known
controllers): actors, the instance actor, Note/Question objects, Create/Announce activities,
collections, WebFinger and host-meta. Pure: every input is already read."""

from __future__ import annotations

import mimetypes
from typing import Any
from xml.sax.saxutils import quoteattr

from stratus.convert.accounts import _field_value_html, note_html
from stratus.core import clock
from stratus.core.config import settings as env
from stratus.core.ids import timestamp_ms

AS = "https://www.w3.org/ns/activitystreams"
SECURITY = "https://w3id.org/security/v1"
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
CONTENT_TYPE = "application/activity+json; charset=utf-8"
JRD = "application/jrd+json; charset=utf-8"
XRD = "application/xrd+xml; charset=utf-8"

# Mastodon's context extensions (ActivityPub::Adapter), inline so that peers need not fetch
# anything but the two standard contexts.
TOOT = {"toot": "http://joinmastodon.org/ns#"}
EXTENSIONS: dict[str, dict[str, Any]] = {
    "manually_approves_followers": {"manuallyApprovesFollowers": "as:manuallyApprovesFollowers"},
    "featured": {**TOOT, "featured": {"@id": "toot:featured", "@type": "@id"},
                 "featuredTags": {"@id": "toot:featuredTags", "@type": "@id"}},
    "also_known_as": {"alsoKnownAs": {"@id": "as:alsoKnownAs", "@type": "@id"}},
    "moved_to": {"movedTo": {"@id": "as:movedTo", "@type": "@id"}},
    "property_value": {"schema": "http://schema.org#", "PropertyValue": "schema:PropertyValue",
                       "value": "schema:value"},
    "discoverable": {**TOOT, "discoverable": "toot:discoverable"},
    "suspended": {**TOOT, "suspended": "toot:suspended"},
    "memorial": {**TOOT, "memorial": "toot:memorial"},
    "indexable": {**TOOT, "indexable": "toot:indexable"},
    # FEP-2c59's `webfinger` (Mastodon names the context document; the term, inline, is the
    # same IRI).
    "webfinger": {"webfinger": {"@id": "https://purl.archive.org/socialweb/webfinger#webfinger",
                                "@type": "http://www.w3.org/2001/XMLSchema#string"}},
    "focal_point": {**TOOT, "focalPoint": {"@container": "@list", "@id": "toot:focalPoint"}},
    "atom_uri": {"ostatus": "http://ostatus.org#", "atomUri": "ostatus:atomUri"},
    "conversation": {"ostatus": "http://ostatus.org#",
                     "inReplyToAtomUri": "ostatus:inReplyToAtomUri",
                     "conversation": "ostatus:conversation"},
    "sensitive": {"sensitive": "as:sensitive"},
    "voters_count": {**TOOT, "votersCount": "toot:votersCount"},
    "hashtag": {"Hashtag": "as:Hashtag"},
    "emoji": {**TOOT, "Emoji": "toot:Emoji"},
    "blurhash": {**TOOT, "blurhash": "toot:blurhash"},
}
ACTOR_EXTENSIONS = ("manually_approves_followers", "featured", "also_known_as", "moved_to",
                    "property_value", "discoverable", "suspended", "memorial", "indexable",
                    "webfinger")
NOTE_EXTENSIONS = ("atom_uri", "conversation", "sensitive", "voters_count")


def context(named: tuple[str, ...], extensions: list[str] | tuple[str, ...]) -> Any:
    """`@context` as Mastodon's adapter builds it: ActivityStreams, named contexts, then one
    object of the extension terms used."""
    terms: dict[str, Any] = {}
    for name in extensions:
        terms.update(EXTENSIONS[name])
    parts: list[Any] = [AS, *named]
    if terms:
        parts.append(terms)
    return parts[0] if len(parts) == 1 else parts


# --- URLs ------------------------------------------------------------------------------------
def base() -> str:
    return env().base_url


def actor_url(username: str) -> str:
    return f"{base()}/users/{username}"


def profile_url(username: str) -> str:
    return f"{base()}/@{username}"


def instance_actor_url() -> str:
    return f"{base()}/actor"


def shared_inbox_url() -> str:
    return f"{base()}/inbox"


def webfinger_template() -> str:
    return f"{base()}/.well-known/webfinger?resource={{uri}}"


def _image(key: str | None) -> dict[str, Any] | None:
    if not key:
        return None
    media_type = mimetypes.guess_type(key)[0] or "application/octet-stream"
    return {"type": "Image", "mediaType": media_type, "url": f"{env().media_base_url}/{key}"}


def public_key(owner: str, pem: str) -> dict[str, str]:
    return {"id": f"{owner}#main-key", "owner": owner, "publicKeyPem": pem}


# --- actors ----------------------------------------------------------------------------------
def actor(profile: dict[str, Any], public_key_pem: str) -> dict[str, Any]:
    """Mastodon's ActorSerializer for a local account. A suspended account is `unavailable`:
    its profile is left out and `suspended` is true."""
    username = profile["username"]
    uri = actor_url(username)
    unavailable = bool(profile.get("suspended_at"))
    icon = None if unavailable else _image(profile.get("avatar_key"))
    image = None if unavailable else _image(profile.get("header_key"))
    extensions = list(ACTOR_EXTENSIONS)
    if icon or image:
        extensions.append("focal_point")
    created = clock.parse_iso(profile["created_at"])
    document: dict[str, Any] = {
        "@context": context((SECURITY,), extensions),
        "id": uri,
        "type": "Service" if profile.get("bot") else "Person",
        "following": f"{uri}/following",
        "followers": f"{uri}/followers",
        "inbox": f"{uri}/inbox",
        "outbox": f"{uri}/outbox",
        "featured": f"{uri}/collections/featured",
        "featuredTags": f"{uri}/collections/tags",
        "preferredUsername": username,
        "name": username if unavailable else (profile.get("display_name") or username),
        "summary": "" if unavailable else note_html(profile.get("note", "")),
        "url": profile_url(username),
        "manuallyApprovesFollowers": False if unavailable else bool(profile.get("locked")),
        "discoverable": False if unavailable else bool(profile.get("discoverable")),
        "indexable": False if unavailable else bool(profile.get("indexable")),
        "published": created.strftime("%Y-%m-%dT00:00:00Z"),
        "memorial": bool(profile.get("memorial")),
        "webfinger": f"{username}@{env().domain}",
        "publicKey": public_key(uri, public_key_pem),
        "tag": [],
        "attachment": [] if unavailable else [
            {"type": "PropertyValue", "name": f.get("name", ""),
             "value": _field_value_html(f.get("value", ""))} for f in profile.get("fields", [])],
        "endpoints": {"sharedInbox": shared_inbox_url()},
    }
    if unavailable:
        document["suspended"] = True
    if icon:
        document["icon"] = icon
    if image:
        document["image"] = image
    return document


def instance_actor(public_key_pem: str) -> dict[str, Any]:
    """Mastodon's InstanceActorSerializer: the `Application` that signs the server's own
    requests, named after the domain."""
    uri = instance_actor_url()
    return {
        "@context": context((SECURITY,), ("manually_approves_followers",)),
        "id": uri,
        "type": "Application",
        "inbox": f"{uri}/inbox",
        "outbox": f"{uri}/outbox",
        "preferredUsername": env().domain,
        "url": f"{base()}/about/more?instance_actor=true",
        "manuallyApprovesFollowers": True,
        "publicKey": public_key(uri, public_key_pem),
        "endpoints": {"sharedInbox": shared_inbox_url()},
    }


# --- statuses --------------------------------------------------------------------------------
def addressing(visibility: str, author_uri: str, mention_uris: list[str],
               reblogged_author_uri: str | None = None) -> tuple[list[str], list[str]]:
    """(to, cc) as Mastodon's TagManager addresses a status of a local account."""
    followers = f"{author_uri}/followers"
    if visibility == "public":
        to = [PUBLIC]
    elif visibility in ("unlisted", "private"):
        to = [followers]
    else:
        to = list(mention_uris)
    cc: list[str] = [reblogged_author_uri] if reblogged_author_uri else []
    if visibility == "public":
        cc.append(followers)
    elif visibility == "unlisted":
        cc.append(PUBLIC)
    if visibility != "direct":
        cc.extend(mention_uris)
    return to, cc


def _iso_seconds(value: str) -> str:
    return clock.parse_iso(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def conversation_tag(thread_id: str) -> str:
    """Mastodon's OStatus tag for a conversation: `tag:<domain>,<date>:objectId=<id>:...`."""
    from datetime import UTC, datetime

    day = datetime.fromtimestamp(timestamp_ms(thread_id) / 1000, UTC).strftime("%Y-%m-%d")
    return f"tag:{env().domain},{day}:objectId={thread_id}:objectType=Conversation"


def _document(media: dict[str, Any]) -> dict[str, Any]:
    meta = media.get("meta") or {}
    original = meta.get("original") or {}
    doc: dict[str, Any] = {"type": "Document",
                           "mediaType": mimetypes.guess_type(media.get("url") or "")[0],
                           "url": media.get("url"), "name": media.get("description"),
                           "blurhash": media.get("blurhash")}
    focus = meta.get("focus")
    if isinstance(focus, dict):
        doc["focalPoint"] = [focus.get("x"), focus.get("y")]
    if original.get("width"):
        doc["width"] = original["width"]
    if original.get("height"):
        doc["height"] = original["height"]
    return doc


def _emoji(emoji: dict[str, Any], updated: str | None) -> dict[str, Any]:
    return {"id": f"{base()}/emojis/{emoji['shortcode']}", "type": "Emoji",
            "name": f":{emoji['shortcode']}:", "updated": _iso_seconds(updated) if updated else None,
            "icon": {"type": "Image",
                     "mediaType": mimetypes.guess_type(emoji["url"])[0],
                     "url": emoji["url"]}}


def note(item: dict[str, Any], entity: dict[str, Any], *, author_uri: str,
         mention_uris: dict[str, str], in_reply_to_uri: str | None,
         emoji_updated: dict[str, str],
         replies: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Mastodon's NoteSerializer for a local status: (object, context extensions it uses).
    `entity` is the status as the API renders it to an anonymous reader; `replies` its
    `replies` collection with the first page inline (federation/replies.py)."""
    extensions = list(NOTE_EXTENSIONS)
    mentions = [{"type": "Mention", "href": mention_uris[m["id"]], "name": f"@{m['acct']}"}
                for m in sorted(entity["mentions"], key=lambda m: int(m["id"]))
                if m["id"] in mention_uris]
    to, cc = addressing(entity["visibility"], author_uri, [t["href"] for t in mentions])
    uri = entity["uri"]
    poll = entity.get("poll")
    obj: dict[str, Any] = {
        "id": uri,
        "type": "Question" if poll else "Note",
        "summary": entity.get("spoiler_text") or None,
        "inReplyTo": in_reply_to_uri,
        "published": _iso_seconds(entity["created_at"]),
        "url": entity.get("url"),
        "attributedTo": author_uri,
        "to": to,
        "cc": cc,
        "sensitive": bool(entity.get("sensitive")),
        "atomUri": uri,
        "inReplyToAtomUri": in_reply_to_uri,
        "conversation": conversation_tag(str(item.get("thread_id") or item["id"])),
        "content": entity.get("content", ""),
    }
    if entity.get("language"):
        obj["contentMap"] = {entity["language"]: entity.get("content", "")}
    if entity.get("edited_at"):
        obj["updated"] = _iso_seconds(entity["edited_at"])
    attachments = [_document(m) for m in entity.get("media_attachments", [])]
    if attachments:
        extensions += ["blurhash", "focal_point"]
    tags: list[dict[str, Any]] = list(mentions)
    for t in entity.get("tags", []):
        tags.append({"type": "Hashtag", "href": t["url"], "name": f"#{t['name']}"})
    if entity.get("tags"):
        extensions.append("hashtag")
    for e in entity.get("emojis", []):
        tags.append(_emoji(e, emoji_updated.get(e["shortcode"])))
    if entity.get("emojis"):
        extensions.append("emoji")
    obj["attachment"] = attachments
    obj["tag"] = tags
    if replies is not None:
        obj["replies"] = replies
    if poll:
        options = [{"type": "Note", "name": o["title"],
                    "replies": {"type": "Collection", "totalItems": o["votes_count"]}}
                   for o in poll["options"]]
        obj["anyOf" if poll.get("multiple") else "oneOf"] = options
        if poll.get("expires_at"):
            obj["endTime"] = _iso_seconds(poll["expires_at"])
            if poll.get("expired"):
                obj["closed"] = _iso_seconds(poll["expires_at"])
        obj["votersCount"] = poll.get("voters_count") or 0
    return obj, extensions


def activity(item: dict[str, Any], *, author_uri: str, note_object: dict[str, Any] | None,
             original_uri: str | None, original_author_uri: str | None) -> dict[str, Any]:
    """Mastodon's ActivitySerializer: Create of a Note, or Announce of a boosted status (its
    object is the original's URI)."""
    if item.get("reblog_of_id"):
        to, cc = addressing(item.get("visibility", "public"), author_uri, [],
                            original_author_uri)
        return {"id": item["uri"], "type": "Announce", "actor": author_uri,
                "published": _iso_seconds(item["created_at"]), "to": to, "cc": cc,
                "object": original_uri}
    assert note_object is not None
    return {"id": f"{item['uri']}/activity", "type": "Create", "actor": author_uri,
            "published": note_object["published"], "to": note_object["to"],
            "cc": note_object["cc"], "object": note_object}


def with_context(document: dict[str, Any], named: tuple[str, ...] = (),
                 extensions: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    return {"@context": context(named, list(dict.fromkeys(extensions))), **document}


# --- collections -----------------------------------------------------------------------------
def ordered_collection(uri: str, total: int | None, *, first: Any = None, last: str | None = None,
                       items: list[Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": uri, "type": "OrderedCollection"}
    if total is not None:
        doc["totalItems"] = total
    if first is not None:
        doc["first"] = first
    if last is not None:
        doc["last"] = last
    if items is not None:
        doc["orderedItems"] = items
    return doc


def collection(uri: str, items: list[Any]) -> dict[str, Any]:
    """An unordered `Collection` with every item inline (Mastodon's `:unordered` type)."""
    return {"id": uri, "type": "Collection", "totalItems": len(items), "items": items}


def unordered_page(uri: str | None, part_of: str, items: list[Any], *,
                   next_: str | None = None) -> dict[str, Any]:
    """A `CollectionPage` (Mastodon's CollectionSerializer for an unordered page; a page shown
    inline has no id)."""
    doc: dict[str, Any] = {"id": uri} if uri else {}
    doc["type"] = "CollectionPage"
    if next_:
        doc["next"] = next_
    doc["partOf"] = part_of
    doc["items"] = items
    return doc


def unordered_collection(uri: str, first: dict[str, Any]) -> dict[str, Any]:
    """A `Collection` that shows its first page (a `replies` collection)."""
    return {"id": uri, "type": "Collection", "first": first}


def featured_hashtag(username: str, tag: str, name: str) -> dict[str, str]:
    """A featured tag as ActivityPub::HashtagSerializer renders a FeaturedTag: its `href` is
    the profile's `/tagged/` page, not the tag's page."""
    return {"type": "Hashtag", "href": f"{profile_url(username)}/tagged/{tag}", "name": f"#{name}"}


def ordered_page(uri: str, part_of: str, items: list[Any], *, total: int | None = None,
                 next_: str | None = None, prev: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": uri, "type": "OrderedCollectionPage"}
    if total is not None:
        doc["totalItems"] = total
    if next_:
        doc["next"] = next_
    if prev:
        doc["prev"] = prev
    doc["partOf"] = part_of
    doc["orderedItems"] = items
    return doc


# --- discovery -------------------------------------------------------------------------------
def webfinger(username: str) -> dict[str, Any]:
    """Mastodon's WebfingerSerializer for a local account."""
    return {
        "subject": f"acct:{username}@{env().domain}",
        "aliases": [profile_url(username), actor_url(username)],
        "links": [
            {"rel": "http://webfinger.net/rel/profile-page", "type": "text/html",
             "href": profile_url(username)},
            {"rel": "self", "type": "application/activity+json", "href": actor_url(username)},
            {"rel": "http://ostatus.org/schema/1.0/subscribe",
             "template": f"{base()}/authorize_interaction?uri={{uri}}"},
        ],
    }


def instance_webfinger() -> dict[str, Any]:
    domain = env().domain
    return {
        "subject": f"acct:{domain}@{domain}",
        "aliases": [instance_actor_url()],
        "links": [
            {"rel": "http://webfinger.net/rel/profile-page", "type": "text/html",
             "href": f"{base()}/about/more?instance_actor=true"},
            {"rel": "self", "type": "application/activity+json", "href": instance_actor_url()},
        ],
    }


def host_meta_xml() -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n'
            f'  <Link rel="lrdd" template={quoteattr(webfinger_template())}/>\n'
            '</XRD>\n')


def host_meta_json() -> dict[str, Any]:
    return {"links": [{"rel": "lrdd", "template": webfinger_template()}]}

