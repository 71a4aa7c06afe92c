"""Public instance metadata: Instance v1/v2, NodeInfo, rules, the instance's documents (privacy
policy, extended description, terms of service), languages, peers, activity, blocks, emoji."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from stratus.convert import instance as convert
from stratus.core import clock, parallel
from stratus.core.errors import NotFound, Unauthorized, Unprocessable
from stratus.read import documents
from stratus.read import domain_blocks as domain_policy
from stratus.read import settings as settings_service
from stratus.repo import instance as repo
from stratus.text.sanitize import clean

ACTIVITY_WEEKS = 12


def _registrations_message(s: dict[str, Any]) -> str | None:
    if s["registrations_mode"] == "open" or not s["closed_registrations_message"]:
        return None
    return clean(s["closed_registrations_message"], rich=True)


def _document_parts() -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The settings, the statistics and the rules: one round trip."""
    s, stats, rules_ = parallel.gather(settings_service.current, repo.get_stats,
                                       settings_service.rules)
    return s, stats, rules_


def instance_v2() -> dict[str, Any]:
    from stratus.read import secrets, translation

    (s, stats, rules_), terms = parallel.gather(_document_parts, documents.current)
    return convert.instance_v2(s, stats, rules_,
                               registrations_message=_registrations_message(s),
                               vapid_public_key=secrets.vapid_public_key(),
                               terms_of_service=terms is not None,
                               translation=translation.configured())


def instance_v1() -> dict[str, Any]:
    return convert.instance_v1(*_document_parts())


def rules() -> list[dict[str, Any]]:
    return [convert.rule(r) for r in settings_service.rules()]


def nodeinfo() -> dict[str, Any]:
    return convert.nodeinfo(settings_service.current(), repo.get_stats())


def extended_description() -> dict[str, Any]:
    return documents.extended_description()


def privacy_policy() -> dict[str, Any]:
    return documents.privacy_policy()


def terms_of_service(effective_date: str | None = None) -> dict[str, Any]:
    """The terms in effect (else the next to come), or the version effective from a date
    (yyyy-mm-dd); 404 when there is none."""
    versions = documents.published()
    terms = documents.current(versions) if effective_date is None else \
        next((t for t in versions if t.get("effective_date") == effective_date), None)
    if terms is None:
        raise NotFound()
    return documents.terms_entity(terms, versions)


def translation_languages() -> dict[str, list[str]]:
    """{source: targets} the translation backend offers, `und` for a status of no known
    language; `{}` without a backend. A backend that cannot say is 503."""
    from stratus.core.errors import ServiceUnavailable
    from stratus.core.translation import TranslationError
    from stratus.read import translation

    if not translation.configured():
        return {}
    try:
        found = translation.languages()
    except TranslationError:
        raise ServiceUnavailable() from None
    return {("und" if source is None else source): targets for source, targets in found.items()}


def languages() -> list[dict[str, str]]:
    from stratus.text import languages as known

    return [{"code": code, "name": name} for code, name in known.supported()]


PEER_SEARCH_LIMIT = 10  # Api::V1::Peers::SearchController::LIMIT


def _peers_shown() -> None:
    """Mastodon's `require_enabled_api!` of both peer routes: 404 when the setting is off, and
    in limited federation mode."""
    s = settings_service.current()
    if not s["peers_api_enabled"] or s["limited_federation_mode"]:
        raise NotFound("Not found")


def _moderated() -> set[str]:
    """Domains under any domain block: `Instance.searchable` leaves them out."""
    return {b["domain"] for b in repo.list_domain_blocks()}


def peers() -> list[str]:
    _peers_shown()
    moderated = _moderated()
    return [domain for domain in repo.list_peers() if domain not in moderated]


def peer_search(q: object) -> list[str] | None:
    """GET /api/v1/peers/search: up to 10 known servers whose domain begins with `q`
    (normalised as a domain), without moderated ones. No `q` renders `null`, as Mastodon's
    `render json: nil`; a `q` that is no domain finds nothing."""
    _peers_shown()
    if not isinstance(q, str) or not q.strip():
        return None
    try:
        prefix = domain_policy.normalize(q)
    except Unprocessable:
        return []
    if prefix is None:
        return None
    return repo.peers_starting_with(prefix, PEER_SEARCH_LIMIT, leaving_out=_moderated())


def activity() -> list[dict[str, str]]:
    """The last 12 weeks, newest first, as Mastodon renders them (every value a string)."""
    if not settings_service.current()["activity_api_enabled"]:
        raise NotFound("Not found")
    this_week = clock.monday(clock.now())
    mondays = [this_week - timedelta(weeks=n) for n in range(ACTIVITY_WEEKS)]
    stored = repo.weeks(clock.day_key(mondays[-1]), clock.day_key(mondays[0]))
    result = []
    for monday in mondays:
        item = stored.get(clock.day_key(monday), {})
        result.append({
            "week": str(clock.week_epoch(clock.day_key(monday))),
            "statuses": str(max(int(item.get("statuses", 0)), 0)),
            "logins": str(max(int(item.get("logins", 0)), 0)),
            "registrations": str(max(int(item.get("registrations", 0)), 0)),
        })
    return result


NEEDS_USER = "This method requires an authenticated user"
SEVERITY_ORDER = {"silence": 0, "suspend": 1}  # DomainBlock.by_severity, then by domain


def domain_blocks(*, signed_in: bool) -> tuple[list[dict[str, Any]], bool]:
    """GET /api/v1/instance/domain_blocks (Api::V1::Instances::DomainBlocksController): the
    silenced and suspended domains, if `show_domain_blocks` shows them to this reader, and
    whether the answer is the same for everyone (a public cache may keep it).

    In limited federation mode the endpoint needs a signed-in user (401); otherwise a reader
    the setting does not show the list to gets 404, as in Mastodon."""
    s = settings_service.current()
    limited = bool(s["limited_federation_mode"])
    if limited and not signed_in:
        raise Unauthorized(NEEDS_USER)
    mode = s["show_domain_blocks"]
    if not (mode == "all" or (mode == "users" and signed_in)):
        raise NotFound("Not found")
    rationale = s["show_domain_blocks_rationale"]
    with_comment = rationale == "all" or (rationale == "users" and signed_in)
    blocks = [b for b in repo.list_domain_blocks() if b.get("severity") in SEVERITY_ORDER]
    blocks.sort(key=lambda b: (SEVERITY_ORDER[b["severity"]], b["domain"]))
    public = mode == "all" and not limited and rationale != "users"
    return [convert.domain_block(b, with_comment=with_comment) for b in blocks], public


def listed_emojis(items: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Mastodon's CustomEmoji.listed: the enabled emoji shown in the picker (stored items)."""
    return [e for e in (repo.list_emojis() if items is None else items)
            if not e.get("disabled") and e.get("visible_in_picker", True)]


def custom_emojis(items: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The public list: one flat list where each emoji carries its `category` (clients group
    their picker by it, as Mastodon's API leaves it to them)."""
    items = listed_emojis(items)
    items.sort(key=lambda e: e["shortcode"].lower())
    return [convert.custom_emoji(e) for e in items]


def nodeinfo_links() -> dict[str, Any]:
    return convert.nodeinfo_links()


def default_thumbnail() -> bytes:
    """The instance thumbnail until an operator uploads one: a 600x315 PNG in Stratus blue."""
    return solid_png(600, 315, (0x2B, 0x5F, 0x9E))


def solid_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A one-colour PNG (default thumbnail, avatar and header images)."""
    import struct
    import zlib

    row = b"\x00" + bytes(rgb) * width
    raw = zlib.compress(row * height, 9)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
