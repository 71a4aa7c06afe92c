"""Reading a remote status document (a Note, a Question, or another object type best effort):
what it says, as Mastodon's ActivityPub::Parser::StatusParser and PollParser read it — its
audience and visibility, text (sanitised, converted to a Note's for other types), publication
time, hashtags, custom emoji, mentions, attachments and poll — bounded so that a status item
stays below DynamoDB's item size (its content cut to what fits: `fit`), and every number in it
read through core/jsondoc's bounds (a focal point within [-1, 1], dimensions within Mastodon's
pixel limit, counts within 0..MAX_COUNT). Storing it is federation/remote_statuses.py."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from stratus.core import clock, ids, jsondoc, limits
from stratus.federation import remote_accounts
from stratus.federation.actor_documents import as_list, first_string, page_url, uri_of
from stratus.repo import uris
from stratus.text import formatter
from stratus.text.sanitize import clean_remote

PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
PUBLIC_ALIASES = (PUBLIC, "as:Public", "Public")
SUPPORTED = ("Note", "Question")
CONVERTED = ("Article", "Page", "Image", "Video", "Audio", "Event")
MAX_CONTENT = 40_000  # characters read; what sanitising makes of them is cut to the item (`fit`)
MAX_SPOILER = 10_000
MAX_ATTACHMENTS = 16  # Mastodon keeps at most 16 remote attachments
MAX_TAGS = 100
MAX_OPTIONS = 100
MAX_OPTION = 500  # characters of a poll option's title
MAX_NAME = 100  # characters of a hashtag or emoji shortcode
MEDIA_TYPES = {"image": "image", "video": "video", "audio": "audio"}
# A poll's counts (votes of an option, voters): Mastodon keeps them in bigint columns; a 32-bit
# integer is what clients' models take for each, and 100 options of it still add up to a
# total that JavaScript's numbers hold exactly. No real poll comes near.
MAX_COUNT = 2**31 - 1
# A side of an attachment, and its area: Mastodon's pixel limit for images.
MAX_PIXELS = limits.IMAGE_MATRIX_LIMIT
BASE83_DIGITS = ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                 "#$%*+,-.:;=?@[]^_{|}~")


def types(obj: dict[str, Any]) -> list[str]:
    return [t for t in as_list(obj.get("type")) if isinstance(t, str)]


def _audience(obj: dict[str, Any], key: str) -> list[str]:
    return [u for u in (uri_of(a) for a in as_list(obj.get(key))) if u]


def visibility_of(obj: dict[str, Any], actor: dict[str, Any]) -> str:
    """Mastodon's ActivityPub::Parser::StatusParser#visibility: Public addressed → public,
    Public in cc → unlisted, the author's followers → private, else direct."""
    to, cc = _audience(obj, "to"), _audience(obj, "cc")
    if any(a in PUBLIC_ALIASES for a in to):
        return "public"
    if any(a in PUBLIC_ALIASES for a in cc):
        return "unlisted"
    followers = actor.get("followers_url")
    if followers and followers in to + cc:
        return "private"
    return "direct"


def _content(obj: dict[str, Any]) -> tuple[str, str | None]:
    """(HTML, language): `content`, or the first of `contentMap` (its key is the language)."""
    content = obj.get("content") if isinstance(obj.get("content"), str) else None
    language = None
    mapping = obj.get("contentMap") if isinstance(obj.get("contentMap"), dict) else {}
    for lang, value in mapping.items():
        if isinstance(value, str) and (content is None or value == content):
            content, language = value, lang
            break
    return content or "", language


def status_url(obj: dict[str, Any]) -> str | None:
    """The status's page: its `url` when on the host of its id, else its id (an object cannot
    show itself as another server's page)."""
    uri = uri_of(obj)
    return page_url(obj.get("url"), uri) if uri else None


def text(obj: dict[str, Any], kind: str) -> tuple[str, str | None]:
    content, language = _content(obj)
    if kind in SUPPORTED:
        return clean_remote(content[:MAX_CONTENT]), language
    # Mastodon converts other types to a Note: the name, then the content, then a link.
    parts = []
    name = obj.get("name") if isinstance(obj.get("name"), str) else ""
    if name.strip():
        parts.append(f"<p>{html.escape(name.strip())}</p>")
    if content:
        parts.append(clean_remote(content[:MAX_CONTENT]))
    url = status_url(obj)
    if url:
        shown = html.escape(url)
        parts.append(f'<p><a href="{shown}" target="_blank" rel="nofollow noopener">{shown}</a></p>')
    return "".join(parts), language


def fit(content: str, max_bytes: int) -> str:
    """Sanitised HTML cut to at most `max_bytes` of UTF-8 (an item must fit DynamoDB's
    400 KB): cut before the tag or entity it would end inside, then sanitised again, so no
    element is left open; cut again shorter while the closing tags make it too long."""
    data = content.encode("utf-8")
    budget = max_bytes
    while len(data) > max_bytes and budget > 0:
        cut = data[:budget].decode("utf-8", "ignore")
        for opener, closer in (("<", ">"), ("&", ";")):
            if cut.rfind(opener) > cut.rfind(closer):
                cut = cut[:cut.rfind(opener)]
        content = clean_remote(cut)
        budget -= max(len(content.encode("utf-8")) - max_bytes, 64)
        data = content.encode("utf-8")
    return content if len(data) <= max_bytes else ""


def published(obj: dict[str, Any]) -> datetime:
    now = clock.now()
    raw = obj.get("published")
    if isinstance(raw, str):
        try:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return now
        if moment.tzinfo is not None:
            return min(moment, now)
    return now


def _tags(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in as_list(obj.get("tag")) if isinstance(t, dict)][:MAX_TAGS]


def hashtags(obj: dict[str, Any]) -> list[str]:
    names = []
    for tag in _tags(obj):
        if "Hashtag" in types(tag) and isinstance(tag.get("name"), str):
            name = formatter.normalize_tag(tag["name"].strip().lstrip("#"))
            if name and len(name) <= MAX_NAME and formatter.HASHTAG.fullmatch("#" + name):
                names.append(name)
    return list(dict.fromkeys(names))


def emojis(obj: dict[str, Any]) -> list[dict[str, str]]:
    found = []
    for tag in _tags(obj):
        if "Emoji" not in types(tag) or not isinstance(tag.get("name"), str):
            continue
        shortcode = tag["name"].strip(":")
        url = first_string(tag.get("icon", {}).get("url") if isinstance(tag.get("icon"), dict)
                           else None)
        if (shortcode and url and len(shortcode) <= MAX_NAME
                and formatter.SHORTCODE.fullmatch(f":{shortcode}:")):
            found.append({"shortcode": shortcode, "url": url})
    return found


def mentions(obj: dict[str, Any], visibility: str) -> tuple[list[str], list[str]]:
    """(local account ids, stored remote account ids) the status mentions. For a direct
    status, local accounts it is addressed to count as mentioned too (Mastodon's silent
    mentions), so they can see it."""
    hrefs = [uri_of(t.get("href")) for t in _tags(obj) if "Mention" in types(t)]
    if visibility == "direct":
        # Silent mentions: as many audience entries are looked up as tags are read.
        hrefs += list(dict.fromkeys(_audience(obj, "to") + _audience(obj, "cc")))[:MAX_TAGS]
    local, remote = [], []
    unknown = []
    for href in dict.fromkeys(h for h in hrefs if h):
        account_id = remote_accounts.local_account_id(href)
        if account_id:
            local.append(account_id)
        else:
            unknown.append(href)
    # Remote mentions are shown when the account is already known (never fetched here).
    for kind, account_id in uris.find_many(unknown).values():
        if kind == "account":
            remote.append(account_id)
    return local, remote


def media(obj: dict[str, Any], status_id: str, account_id: str, reject: bool
           ) -> list[dict[str, Any]]:
    """Media items for the attachments, by reference (their remote URLs; nothing is copied).
    None when the domain's media are rejected."""
    if reject:
        return []
    found = []
    for each in as_list(obj.get("attachment"))[:MAX_ATTACHMENTS]:
        if not isinstance(each, dict):
            continue
        url = first_string(each.get("url"))
        if not url:
            continue
        media_type = each.get("mediaType") if isinstance(each.get("mediaType"), str) else ""
        kind = MEDIA_TYPES.get(media_type.split("/")[0], "unknown")
        description = each.get("name") if isinstance(each.get("name"), str) else None
        found.append({"id": ids.new_id(), "account_id": account_id, "status_id": status_id,
                      "media_type": kind, "remote_url": url, "mime_type": media_type or None,
                      "description": (description or "").strip()[:1500] or None,
                      "blurhash": blurhash(each.get("blurhash")), "meta": _meta(each),
                      "created_at": clock.iso(clock.now())})
    return found


def _meta(attachment: dict[str, Any]) -> dict[str, Any]:
    """What an attachment says of its image: its focal point (two numbers, each clamped to
    [-1, 1]; Mastodon's `focalPoint`, ignored unless both are numbers) and its size (whole
    numbers of pixels within Mastodon's limit, else left out)."""
    meta: dict[str, Any] = {}
    focal = attachment.get("focalPoint")
    if isinstance(focal, list) and len(focal) == 2:
        x, y = (jsondoc.bounded_float(v, -1.0, 1.0) for v in focal)
        if x is not None and y is not None:
            meta["focus"] = {"x": x, "y": y}
    width = jsondoc.bounded_int(attachment.get("width"), 1, MAX_PIXELS)
    height = jsondoc.bounded_int(attachment.get("height"), 1, MAX_PIXELS)
    if width and height and width * height <= MAX_PIXELS:
        meta["original"] = {"width": width, "height": height, "size": f"{width}x{height}",
                            "aspect": round(width / height, 6)}
    return meta


def blurhash(value: Any) -> str | None:
    """A BlurHash when it is one (Mastodon's `supported_blurhash?`: base 83, at most 5×5
    components), of exactly the length its components make; else None."""
    if not isinstance(value, str) or len(value) < 6 or not set(value) <= set(BASE83_DIGITS):
        return None
    size_flag = BASE83_DIGITS.index(value[0])
    x, y = size_flag % 9 + 1, size_flag // 9 + 1
    return value if x <= 5 and y <= 5 and len(value) == 4 + 2 * x * y else None


def poll(obj: dict[str, Any]) -> dict[str, Any] | None:
    """A Question's poll: options and their counts, end, voters (Mastodon's PollParser)."""
    if "Question" not in types(obj):
        return None
    multiple = isinstance(obj.get("anyOf"), list)  # Mastodon's PollParser#multiple
    choices = as_list(obj.get("anyOf") if multiple else obj.get("oneOf"))
    options, votes = [], []
    for choice in choices[:MAX_OPTIONS]:
        if not isinstance(choice, dict) or not isinstance(choice.get("name"), str):
            continue
        options.append(choice["name"][:MAX_OPTION])
        replies = choice.get("replies") if isinstance(choice.get("replies"), dict) else {}
        votes.append(jsondoc.bounded_int(replies.get("totalItems"), 0, MAX_COUNT) or 0)
    if not options:
        return None
    end = obj.get("endTime") if isinstance(obj.get("endTime"), str) else obj.get("closed")
    expires_at = None
    if isinstance(end, str):
        try:
            expires_at = clock.iso(datetime.fromisoformat(end.replace("Z", "+00:00")))
        except ValueError:
            expires_at = None
    voters = jsondoc.bounded_int(obj.get("votersCount"), 0, MAX_COUNT)
    closed = obj.get("closed")  # a time, or true; not any value that happens to be truthy
    return {"options": options, "votes": votes, "multiple": multiple,
            "voters_count": voters if voters is not None
            else (None if multiple else min(sum(votes), MAX_COUNT)),
            "expires_at": expires_at,
            "closed": (closed is True or isinstance(closed, str)) and (
                expires_at is None or clock.parse_iso(expires_at) <= clock.now())}


def attributed_to(obj: dict[str, Any]) -> str | None:
    for each in as_list(obj.get("attributedTo")):
        found = uri_of(each)
        if found:
            return found
    return None

