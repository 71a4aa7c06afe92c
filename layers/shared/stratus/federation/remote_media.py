"""Remote media served from our own storage: remote avatars, headers, image attachments and
custom emoji are fetched into the media bucket on first use, through the same image pipeline as
local uploads, and expire after a number of days (fetched again on the next use).

Mastodon downloads remote media into its own storage and serves it from there
(`MediaProxyController` fetches on first use and redirects to the copy, `RedownloadMediaWorker`
refetches, `tootctl media remove --days N` and the media cache retention period remove old
copies). Clients are only ever given our URLs (convert/remote_media.py), so showing a timeline
contacts no host a remote status names.

The rules, in the one place that applies them:

- Nothing is fetched for an account or a domain whose media are rejected (a domain block's
  `reject_media`, of the account's domain or of the host the URL names), for a suspended
  domain or account, nor for what the image pipeline cannot re-encode (video and audio: we have
  no pipeline for them, so they are served by nobody rather than as the remote bytes).
- The download is an outbound request (`stratus.core.outbound`: public addresses only, each redirect
  checked again, a deadline, the body read up to the kind's size limit, images only).
- What is stored is never the fetched file: it is decoded and re-encoded by `imaging/images.py`
  as an upload of the same kind would be (avatars and headers cropped to Mastodon's boxes,
  attachments scaled down with a preview and a blurhash, emoji bounded), under `cache/` keys
  that are new for every fetch.
- An object is fetched at most once: a lease on its item lets one fetch run, the others wait for
  its result; a copy made from the URL the item holds now is served as it is; a failure is
  remembered, and the same URL is not asked again before `RETRY_FAILED_AFTER`.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from stratus.convert import accounts as convert_accounts
from stratus.convert import remote_media as urls
from stratus.core import clock, hosts, ids, limits, outbound
from stratus.core import urls as web_urls
from stratus.core.config import settings as env
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.observability import logger
from stratus.imaging import images, uploads
from stratus.imaging.media_types import EXTENSIONS
from stratus.read import domain_blocks
from stratus.repo import accounts as accounts_repo
from stratus.repo import media as storage
from stratus.repo import remote_media as repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import transaction

# The whole fetch of one object, redirects included (the proxy answers within API Gateway's
# 30 s; Mastodon's Request has a 10 s total timeout per request, 5 redirects).
FETCH_SECONDS = 20
LEASE_SECONDS = 30  # a fetch that died holding its lease is retried after this
WAIT_STEP = 0.2
RETRY_FAILED_AFTER = timedelta(hours=1)
# Bytes fetched at most, per kind: Mastodon's limits for the same kind of upload
# (Account::Avatar/Header LIMIT 2 MB, MediaAttachment IMAGE_LIMIT 16 MB, CustomEmoji LIMIT 256 KB).
MAX_BYTES = {"avatar": limits.AVATAR_SIZE_LIMIT, "header": limits.HEADER_SIZE_LIMIT,
             "attachment": limits.IMAGE_SIZE_LIMIT, "emoji": limits.CUSTOM_EMOJI_SIZE_LIMIT}
CONTENT_TYPES = {"avatar": limits.PROFILE_IMAGE_MIME_TYPES,
                 "header": limits.PROFILE_IMAGE_MIME_TYPES,
                 "attachment": limits.MEDIA_SUPPORTED_MIME_TYPES,
                 "emoji": limits.CUSTOM_EMOJI_MIME_TYPES}
# What the remote server may call an image (we sniff and re-encode the bytes anyway).
FETCH_TYPES = ("image/*", "application/octet-stream", "binary/octet-stream")
EMOJI_MAX_PIXELS = 256 * 256  # shown at text size; Mastodon keeps emoji at most 256 KB
DEFAULT_RETENTION_DAYS = 7  # tootctl media remove's default --days
MIRRORED = ("avatar", "header", "attachment")  # kinds whose copy is named on the owner's item


class Unavailable(Exception):
    """The object cannot be had: never fetched (policy, kind), refused, or failed."""


@dataclass(frozen=True)
class Target:
    kind: str
    ref: str  # the copy item's key: account id, media id, or the emoji URL's digest
    owner_id: str  # account id, media id, status id (emoji)
    source: str  # the remote URL
    domain: str  # the account's domain
    owner: dict[str, Any]  # the item the copy is named on (profile, media item; a status)


# --- what a proxy URL names ---------------------------------------------------------------------
def _target(kind: str, owner_id: str, digest: str) -> Target:
    """The remote object a proxy URL names; NotFound unless the URL is one we gave out."""
    if kind not in urls.KINDS or not ids.is_id(owner_id):
        raise NotFound()
    if kind in ("avatar", "header"):
        profile = accounts_repo.get_profile(owner_id)
        source = (profile or {}).get(f"{kind}_remote_url")
        if not profile or not profile.get("domain") or not source:
            raise NotFound()
        found = Target(kind, owner_id, owner_id, source, profile["domain"], profile)
        account = profile
    elif kind == "attachment":
        item = statuses_repo.get_media([owner_id]).get(owner_id)
        if not item or not item.get("remote_url"):
            raise NotFound()
        account = accounts_repo.get_profile(item["account_id"]) or {}
        found = Target(kind, owner_id, owner_id, item["remote_url"], account.get("domain") or "",
                       item)
    else:
        status = statuses_repo.get(owner_id)
        source = next((e["url"] for e in (status or {}).get("remote_emojis", [])
                       if isinstance(e, dict) and isinstance(e.get("url"), str)
                       and urls.digest(e["url"]) == digest), None)
        if not status or not source:
            raise NotFound()
        account = accounts_repo.get_profile(status["account_id"]) or {}
        found = Target(kind, urls.digest(source), owner_id, source, account.get("domain") or "",
                       status)
    if urls.digest(found.source) != digest or not found.domain:
        raise NotFound()
    if account.get("suspended_at"):
        raise Unavailable("the account is suspended")
    return found


def _allowed(target: Target) -> None:
    """Unavailable when policy forbids having this object at all."""
    if target.kind == "attachment" and target.owner.get("media_type") != "image":
        raise Unavailable("not an image: there is no pipeline to re-encode it")
    url_host = hosts.hostname(web_urls.host_of(target.source)) if target.source else ""
    domains = [d for d in dict.fromkeys([hosts.hostname(target.domain), url_host]) if d]
    if not url_host or not all(domain_blocks.allowed(d) for d in domains):
        raise Unavailable("the domain is suspended")
    if any(p.reject_media for p in domain_blocks.policies_for(domains).values()):
        raise Unavailable("the domain's media are rejected")


# --- the copy -----------------------------------------------------------------------------------
def _usable(state: dict[str, Any] | None, target: Target) -> bool:
    return bool(state and state.get("source") == target.source and state.get("object_keys"))


def _mirror_fields(target: Target, state: dict[str, Any]) -> dict[str, Any]:
    stored = state["object_keys"]
    if target.kind in ("avatar", "header"):
        return {f"{target.kind}_key": stored["original"],
                f"{target.kind}_static_key": stored.get("static"),
                f"{target.kind}_cached_from": target.source}
    return {"file_key": stored["original"], "small_key": stored.get("small"),
            "cached_from": target.source, **state.get("mirror_extra", {})}


def _mirrored(target: Target, state: dict[str, Any]) -> bool:
    fields = _mirror_fields(target, state)
    return all(target.owner.get(k) == v for k, v in fields.items() if k != "meta")


def _process(target: Target, data: bytes) -> tuple[dict[str, tuple[bytes, str]], dict[str, Any]]:
    """The objects to store ({style: (bytes, content type)}) and what else the owner's item
    learns (an attachment's sizes and blurhash); images.Refused or Unprocessable."""
    kind = target.kind
    if kind == "attachment":
        facts = uploads.process(data)
        encoded = facts["encoded"]
        meta = dict(target.owner.get("meta") or {})
        meta.update(original=uploads.size_meta(encoded.width, encoded.height),
                    small=uploads.size_meta(*facts["small_size"]))
        extra = {"meta": meta, "blurhash": target.owner.get("blurhash") or facts["blurhash"]}
        return ({"original": (encoded.data, encoded.content_type),
                 "small": (facts["small"], "image/png")}, extra)
    if kind == "emoji":
        encoded = images.normalize(data, CONTENT_TYPES[kind], max_pixels=EMOJI_MAX_PIXELS)
    else:
        box = limits.AVATAR_DIMENSIONS if kind == "avatar" else limits.HEADER_DIMENSIONS
        encoded = images.normalize(data, CONTENT_TYPES[kind], cover=box)
    objects = {"original": (encoded.data, encoded.content_type)}
    if encoded.frames > 1:
        objects["static"] = (encoded.static_png(), "image/png")  # Mastodon's `*_static`
    return objects, {}


def _object_key(target: Target, style: str, content_type: str) -> str:
    extension = EXTENSIONS[content_type]
    token = secrets.token_hex(8)  # new for every fetch: an expired copy's key is never reused
    return f"{repo.cache_folder(target.kind, target.ref)}/{style}/{token}.{extension}"


def _download(target: Target) -> bytes:
    """The remote file's bytes, under the outbound address rules (every redirect checked
    again) and the kind's size limit. Server to server, as Mastodon downloads media: without
    robots.txt, which speaks to crawlers (many instances disallow everything to them)."""
    got = outbound.request("GET", target.source, accept=", ".join(FETCH_TYPES),
                           max_bytes=MAX_BYTES[target.kind],
                           deadline=outbound.Deadline(FETCH_SECONDS), follow_redirects=True)
    if got.status != 200:
        raise outbound.Refused(f"the server answered {got.status}")
    if not (got.content_type.startswith("image/") or got.content_type in FETCH_TYPES):
        raise outbound.Refused(f"unexpected content type {got.content_type or 'none'}")
    return got.body


def _fetch(target: Target) -> dict[str, Any]:
    """Fetch, re-encode and store the object; the new copy item. Unavailable on failure."""
    now = clock.iso(clock.now())
    try:
        objects, extra = _process(target, _download(target))
    except (outbound.Refused, images.Refused, Unprocessable) as exc:
        logger.info("remote media refused", extra={"kind": target.kind, "ref": target.ref,
                                                   "reason": str(exc)[:200]})
        repo.failed(target.kind, target.ref, target.source, now)
        raise Unavailable(str(exc)) from None
    except BaseException:
        repo.release(target.kind, target.ref)
        raise
    written: dict[str, str] = {}
    try:
        for style, (data, content_type) in objects.items():
            written[style] = _object_key(target, style, content_type)
            storage.put_object(written[style], data, content_type)
        state = {"source": target.source, "object_keys": written, "fetched_at": now,
                 "content_type": objects["original"][1], "mirror_extra": extra}
        ops = [repo.stored_op(target.kind, target.ref, owner_id=target.owner_id,
                              source=target.source, object_keys=written, fetched_at=now,
                              content_type=objects["original"][1],
                              domain=hosts.hostname(target.domain))]
        if target.kind in MIRRORED:
            ops.append(repo.mirror_op(target.kind, target.owner_id, target.source,
                                      _mirror_fields(target, state)))
        repo.commit(ops)
    except transaction.ConditionFailed:
        # The owner changed its URL (or is gone) meanwhile: this copy names nothing.
        _delete_objects(written.values())
        repo.release(target.kind, target.ref)
        raise Unavailable("the item changed while it was fetched") from None
    except BaseException:
        _delete_objects(written.values())
        repo.release(target.kind, target.ref)
        raise
    return state


def _delete_objects(object_keys: Any) -> None:
    for key in object_keys:
        storage.delete_object(key)


def _recently_failed(state: dict[str, Any] | None, target: Target) -> bool:
    if not state or state.get("failed_source") != target.source or not state.get("failed_at"):
        return False
    return clock.parse_iso(state["failed_at"]) > clock.now() - RETRY_FAILED_AFTER


def copy_of(target: Target) -> dict[str, Any]:
    """The copy of the object, fetching it when there is none from its current URL; at most one
    fetch at a time per object (the others wait for it). Unavailable when it cannot be had."""
    _allowed(target)
    waited_until = time.monotonic() + FETCH_SECONDS
    while True:
        state = repo.get(target.kind, target.ref)
        if _usable(state, target):
            assert state is not None
            if target.kind in MIRRORED and not _mirrored(target, state):
                # Named on the owner again (its item was rewritten since): the next render
                # links the copy itself.
                try:
                    repo.commit([repo.mirror_op(target.kind, target.owner_id, target.source,
                                                _mirror_fields(target, state))])
                except transaction.ConditionFailed:
                    pass
            return state
        if _recently_failed(state, target):
            raise Unavailable("fetching it failed recently")
        if repo.claim(target.kind, target.ref, source=target.source, now=int(time.time()),
                      seconds=LEASE_SECONDS):
            break
        if time.monotonic() > waited_until:
            raise Unavailable("another fetch of it is still running")
        time.sleep(WAIT_STEP)
    previous = (state or {}).get("object_keys") or {}
    stored = _fetch(target)
    # The copy of the URL the item held before (an avatar that changed) goes now.
    _delete_objects(k for k in previous.values() if k not in stored["object_keys"].values())
    return stored


# --- the proxy ----------------------------------------------------------------------------------
def placeholder(kind: str) -> str | None:
    """What an avatar or header that cannot be had shows (Mastodon's missing.png)."""
    if kind == "avatar":
        return env().base_url + convert_accounts.DEFAULT_AVATAR
    if kind == "header":
        return env().base_url + convert_accounts.DEFAULT_HEADER
    return None


def proxy(kind: str, owner_id: str, digest: str, style: str = "original") -> str:
    """Where `/media_proxy/<kind>/<owner_id>/<digest>[/<style>]` redirects: our copy (fetched
    now if need be), the placeholder of an avatar or header that cannot be had; NotFound for
    anything else."""
    if style not in urls.STYLES or (style == "small" and kind != "attachment"):
        raise NotFound()
    target = _target(kind, owner_id, digest)
    try:
        state = copy_of(target)
    except Unavailable:
        fallback = placeholder(kind)
        if fallback is None:
            raise NotFound() from None
        return fallback
    stored = state["object_keys"]
    return urls.bucket_url(stored.get(style) or stored["original"])


# --- expiry -------------------------------------------------------------------------------------
def _forget(item: dict[str, Any]) -> bool:
    """Remove one copy: its item, its name on the owner's item, its objects (the next use
    fetches it again). False when it was fetched again meanwhile."""
    kind, stored = item["kind"], item.get("object_keys") or {}
    if not repo.delete(kind, item["ref"], item["fetched_at"]):
        return False
    if kind in MIRRORED and stored.get("original"):
        if kind == "attachment":
            repo.clear_mirror(kind, item["owner_id"], "file_key", stored["original"],
                              ("file_key", "small_key", "cached_from"))
        else:
            repo.clear_mirror(kind, item["owner_id"], f"{kind}_key", stored["original"],
                              (f"{kind}_key", f"{kind}_static_key", f"{kind}_cached_from"))
    _delete_objects(stored.values())
    return True


def remove_older_than(days: int, *, seconds: float | None = None) -> int:
    """Remove the copies fetched more than `days` ago (`tootctl media remove --days`); with
    `seconds`, stop after that long (a scheduled run continues next time). Returns how many."""
    if days < 0:
        raise ValueError("days must not be negative")
    cutoff = clock.iso(clock.now() - timedelta(days=days))
    stop = None if seconds is None else time.monotonic() + seconds
    removed = 0
    for item in repo.stored_before(cutoff):
        if stop is not None and time.monotonic() > stop:
            break
        removed += _forget(item)
    return removed


def copies_of_block(domain: str, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` copies of the accounts of the hosts a domain block of `domain` covers
    (the domain and the subdomains we know accounts of)."""
    from stratus.repo import accounts as accounts_repo

    name = hosts.hostname(domain)
    covered, after = [name], None
    while True:
        page = accounts_repo.known_domains(after=after, limit=1000)
        covered += [h for h in page if hosts.covers(name, h) and hosts.hostname(h) != name]
        if len(page) < 1000:
            break
        after = page[-1]
    found: list[dict[str, Any]] = []
    for host in dict.fromkeys(hosts.hostname(h) for h in covered):
        found += repo.stored_for_domain(host, limit - len(found))
        if len(found) >= limit:
            break
    return found


def forget_all(items: list[dict[str, Any]]) -> None:
    for item in items:
        _forget(item)

