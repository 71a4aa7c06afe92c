"""Trends: what is rising among hashtags and statuses, ranked on a schedule, shown once staff
allowed it (or by default, by setting), and put before staff for review.

Mastodon's Trends::Tags and Trends::Statuses, without Redis:
- Candidates are written on write: the counters worker marks a hashtag on its first use by an
  account on a day, and a status on a day it was favourited or boosted (`trend_candidate`
  items, partitioned by kind and day, expiring after three days).
- `refresh()` (an EventBridge schedule, every five minutes) scores today's and yesterday's
  candidates and what is ranked already, with Mastodon's formulas and thresholds, and writes one
  ranking item per kind: the public endpoints read that item and the entities it names.
- `request_review()` (every two hours) marks the items that would trend but await review, once
  each, and mails the staff who may review them (Manage Taxonomies).
The cost: docs/performance.md ("Trends").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from stratus.api.tags.tags import tag_id
from stratus.core import clock, ids
from stratus.model.roles import Permission
from stratus.read import settings
from stratus.repo import accounts as accounts_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as tags_repo
from stratus.repo import trends as repo

TAGS, STATUSES, LINKS, PUBLISHERS = "tags", "statuses", "links", "publishers"
KINDS = (TAGS, STATUSES, LINKS)
RANKED = 500  # items kept in a ranking (Mastodon keeps every scored item; clients page 20/40)


@dataclass(frozen=True)
class Options:
    threshold: float
    review_threshold: int
    decay_threshold: float
    halflife: float  # seconds
    cooldown: float = 0.0  # seconds a best score is remembered (tags, links)


OPTIONS = {
    TAGS: Options(threshold=5, review_threshold=3, decay_threshold=1, halflife=4 * 3600,
                  cooldown=2 * 86400),
    STATUSES: Options(threshold=5, review_threshold=3, decay_threshold=0.3, halflife=2 * 3600),
    # Links: 15 distinct accounts on a day (issue 12; Mastodon's default is 5 and configurable).
    LINKS: Options(threshold=15, review_threshold=3, decay_threshold=1, halflife=8 * 3600,
                   cooldown=2 * 86400),
}


def link_id(url: str) -> str:
    """A link's id (the admin routes name links and publishers by id): derived from the URL
    or domain as a hashtag's is from its name."""
    return tag_id(url)


def publisher_of(url: str) -> str:
    """The publisher of a link: its host (Mastodon's PreviewCardProvider is per domain)."""
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "").lower()


def enabled() -> bool:
    return bool(settings.get_value("trends"))


def _allowed(record: dict[str, Any] | None, default: bool | None = None) -> bool:
    """Mastodon's `trendable?`: what staff decided, else the instance's default (pass it when
    deciding for many items: it is one read)."""
    if record is not None and record.get("trendable") is not None:
        return bool(record["trendable"])
    return bool(settings.get_value("trendable_by_default") if default is None else default)


def _days(now_: Any) -> tuple[str, str]:
    return clock.day_key(now_), clock.day_key(now_ - timedelta(days=1))


def _candidate_ids(kind: str, now_: Any) -> list[str]:
    today, yesterday = _days(now_)
    ranked = [i["id"] for i in repo.ranking(kind)["items"]]
    return list(dict.fromkeys(repo.candidates(kind, today) + repo.candidates(kind, yesterday)
                              + ranked))


def rising_score(observed: float, expected: float, threshold: float) -> float:
    """Mastodon's score: how far today's count exceeds the expectation, 0 below the threshold."""
    expected = expected or 1.0
    if expected > observed or observed < threshold:
        return 0.0
    return (observed - expected) ** 2 / expected


def decayed(score: float, since: float, at: float, halflife: float) -> float:
    return score * math.pow(0.5, (at - since) / halflife)


# --- refresh -----------------------------------------------------------------------------
def refresh(now_: Any = None) -> dict[str, int]:
    """Score and rank every kind; returns how many items each ranking holds."""
    now_ = now_ or clock.now()
    return {TAGS: _refresh_tags(now_), STATUSES: _refresh_statuses(now_),
            LINKS: _refresh_links(now_)}


def _save(kind: str, items: list[dict[str, Any]], now_: Any) -> int:
    items.sort(key=lambda i: (-i["score"], i["id"]))
    repo.save_ranking(kind, items[:RANKED], clock.iso(now_))
    return len(items[:RANKED])


def _rising(day_stats: dict[str, Any], options: Options, now_: Any,
            save_best: Any) -> float:
    """Trends::Tags/Links#calculate_scores for one item: today's distinct accounts against
    yesterday's, the best score remembered for the cooldown (kept on the item's counters by
    `save_best(score, at)` when beaten), decayed by the half-life since it was reached."""
    at = now_.timestamp()
    today, yesterday = _days(now_)
    observed = float(day_stats.get(tags_repo.history_attribute(tags_repo.ACCOUNTS, today), 0))
    expected = float(day_stats.get(tags_repo.history_attribute(tags_repo.ACCOUNTS, yesterday),
                                   0))
    max_score = float(day_stats.get("max_score", 0))
    max_at = float(day_stats.get("max_score_at", 0))
    if not max_at or max_at < at - options.cooldown:
        max_score = 0.0
    score = rising_score(observed, expected, options.threshold)
    if score > max_score:
        max_score, max_at = score, at
        save_best(max_score, max_at)
    return decayed(max_score, max_at, at, options.halflife) if max_score else 0.0


def _refresh_tags(now_: Any) -> int:
    """A hashtag's best score is kept on its STATS item (read anyway for the counts), as
    Mastodon keeps it on the tag; the review state is read only for those that rank."""
    options = OPTIONS[TAGS]
    today, yesterday = _days(now_)
    ranked_names = [i["name"] for i in repo.ranking(TAGS)["items"]]
    names = list(dict.fromkeys(repo.candidates(TAGS, today) + repo.candidates(TAGS, yesterday)
                               + ranked_names))
    stats, _ = tags_repo.load(names, None)
    items = []
    for name in names:
        value = _rising(stats.get(name) or {}, options, now_,
                        lambda best, when, n=name: tags_repo.save_max_score(n, best, when))
        if value >= options.decay_threshold:
            items.append({"id": tag_id(name), "name": name, "score": value})
    items = sorted(items, key=lambda i: (-i["score"], i["id"]))[:RANKED]
    records = repo.records(TAGS, [i["id"] for i in items])
    default = bool(settings.get_value("trendable_by_default"))
    for item in items:
        item["allowed"] = _allowed(records.get(item["id"]), default)
        if item["id"] not in records:  # the record names the tag for the review routes
            repo.name_record(TAGS, item["id"], {"name": item["name"]})
    return _save(TAGS, items, now_)


def eligible_status(status: dict[str, Any], profile: dict[str, Any] | None) -> bool:
    """Trends::Statuses#eligible?: public, not a reply or boost, no content warning, not
    sensitive, by a discoverable account that is not silenced or suspended."""
    return (profile is not None and status.get("visibility") == "public"
            and not status.get("reblog_of_id") and not status.get("in_reply_to_id")
            and not status.get("spoiler_text") and not status.get("sensitive")
            and bool(profile.get("discoverable")) and not profile.get("silenced_at")
            and not profile.get("suspended_at"))


def _refresh_statuses(now_: Any) -> int:
    """Counters first (small items): only statuses past the threshold are read whole, and the
    review state only of those that rank."""
    options, at = OPTIONS[STATUSES], now_.timestamp()
    counters = statuses_repo.stats_many(_candidate_ids(STATUSES, now_))
    scores = {ident: rising_score(float(int(stats.get("favourites_count", 0))
                                        + int(stats.get("reblogs_count", 0))), 1.0,
                                  options.threshold)
              for ident, stats in counters.items()}
    found = statuses_repo.bodies([ident for ident, score in scores.items() if score])
    profiles = accounts_repo.get_many([s["account_id"] for s in found.values()],
                                      (accounts_repo.PROFILE,))
    items = []
    for ident, status in found.items():
        profile = (profiles.get(status["account_id"]) or {}).get(accounts_repo.PROFILE)
        if not eligible_status(status, profile):
            continue
        created = clock.parse_iso(status["created_at"]).timestamp()
        value = decayed(scores[ident], created, at, options.halflife)
        if value >= options.decay_threshold:
            items.append({"id": ident, "score": value, "account_id": status["account_id"]})
    items = sorted(items, key=lambda i: (-i["score"], i["id"]))[:RANKED]
    records = repo.records(STATUSES, [i["id"] for i in items])
    default = bool(settings.get_value("trendable_by_default"))
    for item in items:
        item["allowed"] = _allowed(records.get(item["id"]), default)
    return _save(STATUSES, items, now_)


def appropriate_for_trends(card: dict[str, Any] | None) -> bool:
    """PreviewCard#appropriate_for_trends?: a link card of an article with a title, a
    description, an image and a provider name."""
    return bool(card) and card.get("type", "link") == "link" and \
        card.get("link_type") == "article" and all(
            card.get(k) for k in ("title", "description", "image_key", "provider_name"))


def _refresh_links(now_: Any) -> int:
    """Links by today's distinct sharing accounts against yesterday's, as hashtags, if their
    card is an article; allowed by their own review, else their publisher's, else by default."""
    from stratus.repo import cards as cards_repo

    options = OPTIONS[LINKS]
    today, yesterday = _days(now_)
    urls = list(dict.fromkeys(repo.candidates(LINKS, today) + repo.candidates(LINKS, yesterday)
                              + [i["url"] for i in repo.ranking(LINKS)["items"]]))
    stats = cards_repo.stats(urls)
    scored = {}
    for url in urls:
        value = _rising(stats.get(url) or {}, options, now_,
                        lambda best, when, u=url: cards_repo.save_max_score(u, best, when))
        if value >= options.decay_threshold:
            scored[url] = value
    cards = cards_repo.get_many(scored)
    blocked = _blocked_domains([publisher_of(url) for url in scored])
    items = [{"id": link_id(url), "url": url, "score": value, "publisher": publisher_of(url)}
             for url, value in scored.items()
             if appropriate_for_trends(cards.get(url)) and publisher_of(url) not in blocked]
    items = sorted(items, key=lambda i: (-i["score"], i["id"]))[:RANKED]
    records = repo.records(LINKS, [i["id"] for i in items])
    publishers = repo.records(PUBLISHERS, list({link_id(i["publisher"]) for i in items}))
    default = bool(settings.get_value("trendable_by_default"))
    for item in items:
        publisher = publishers.get(link_id(item["publisher"]))
        own = records.get(item["id"])
        item["allowed"] = _allowed(own if own and own.get("trendable") is not None
                                   else publisher, default)
        if item["id"] not in records:
            repo.name_record(LINKS, item["id"], {"url": item["url"]})
        if link_id(item["publisher"]) not in publishers:
            repo.name_record(PUBLISHERS, link_id(item["publisher"]),
                             {"domain": item["publisher"]})
    return _save(LINKS, items, now_)


def _blocked_domains(domains: list[str]) -> set[str]:
    """Of `domains`, those the instance silences or suspends (a block of the domain or of a
    parent): their links never trend. One batched read."""
    from stratus.read import domain_blocks

    policies = domain_blocks.policies_for(list(dict.fromkeys(domains)))
    return {d for d, policy in policies.items() if policy.silenced or policy.suspended}


# --- reading -----------------------------------------------------------------------------
def allowed_ids(kind: str) -> list[dict[str, Any]]:
    """The ranking's allowed items, best first (empty when trends are off)."""
    if not enabled():
        return []
    return [i for i in repo.ranking(kind)["items"] if i.get("allowed")]


def ranked(kind: str) -> list[dict[str, Any]]:
    """Every ranked item, allowed or not (staff review)."""
    return list(repo.ranking(kind)["items"])


# --- review ------------------------------------------------------------------------------
def score_at_rank(kind: str, rank: int) -> float:
    allowed = [i for i in repo.ranking(kind)["items"] if i.get("allowed")]
    return float(allowed[rank]["score"]) if len(allowed) > rank else 0.0


MAX_PER_REVIEW = 99  # one transaction: the items and the review record


def request_review(now_: Any = None) -> list[dict[str, Any]]:
    """Items that would trend (above the score at the review threshold's rank among allowed
    ones) but are not allowed, never reviewed and never put up for review: marked requested,
    together with one review record whose insert mails the reviewers (the outbox). Each item is
    put up once ever; returns what this run asked about."""
    now_ = now_ or clock.now()
    wanted: list[tuple[str, str, dict[str, Any]]] = []
    for kind in KINDS:
        bar = score_at_rank(kind, OPTIONS[kind].review_threshold - 1)
        records = repo.records(kind, [i["id"] for i in repo.ranking(kind)["items"]
                                      if not i.get("allowed")])
        for item in repo.ranking(kind)["items"]:
            record = records.get(item["id"]) or {}
            if (item.get("allowed") or float(item["score"]) <= bar
                    or record.get("requested_review_at") or record.get("reviewed_at")):
                continue
            wanted.append((kind, item["id"],
                           {k: item[k] for k in ("name", "account_id") if k in item}))
    if not wanted:
        return []
    asked = repo.request_reviews(wanted[:MAX_PER_REVIEW], ids.new_id(), clock.iso(now_),
                                 int(now_.timestamp()) + repo.REVIEW_TTL, reviewers())
    return [{"kind": k, "id": i, **e} for k, i, e in asked]


def review_recipients(review_id: str) -> list[str]:
    """The reviewers a review run asked (none once the review record expired)."""
    review = repo.review_record(review_id)
    return list((review or {}).get("reviewers") or [])


def review_mail(review_id: str) -> tuple[list[str], str, str] | None:
    """(reviewer account ids, subject, body) of a review's mail (AdminMailer#new_trends)."""
    review = repo.review_record(review_id)
    if review is None or not review.get("items"):
        return None
    from stratus.core.config import settings as config

    title = settings.current()["site_title"]
    lines = [f"New trends are up for review on {title} ({config().domain}):", ""]
    for kind, label in ((TAGS, "Hashtags"), (STATUSES, "Posts"), (LINKS, "Links")):
        items = [i for i in review["items"] if i["kind"] == kind]
        if not items:
            continue
        lines.append(f"{label}:")
        for item in items:
            lines.append(f"- #{item['name']}" if kind == TAGS else f"- {item['url']}"
                         if kind == LINKS else f"- {config().base_url}/statuses/{item['id']}")
        lines.append("")
    lines.append(f"Review them: GET {config().base_url}/api/v1/admin/trends/tags, "
                 "/api/v1/admin/trends/statuses and /api/v1/admin/trends/links (approve or "
                 "reject each).")
    return (list(review.get("reviewers") or []), f"New trends up for review on {title}",
            "\n".join(lines) + "\n")


def reviewers() -> list[str]:
    from stratus.auth import identity

    return identity.accounts_who_can(Permission.MANAGE_TAXONOMIES)


# --- the public endpoints ------------------------------------------------------------------
def trending_tags(viewer_id: str | None, offset: int, limit: int) -> list[dict[str, Any]]:
    """GET /api/v1/trends/tags: Tag entities with their history, best first."""
    from stratus.api.tags import tags

    names = [i["name"] for i in allowed_ids(TAGS)[offset:offset + limit]]
    stats, edges, featured = tags_repo.load_for_viewer(names, viewer_id)
    return [tags.entity(n, n, stats.get(n), (n in edges) if viewer_id else None,
                        (n in featured) if viewer_id else None) for n in names]


def trending_statuses(viewer_id: str | None, offset: int, limit: int) -> list[dict[str, Any]]:
    """GET /api/v1/trends/statuses: best first, without what the viewer may not see or
    excluded (blocks, mutes, domain blocks), the viewer's filters applied (context public);
    `offset` counts statuses after that exclusion, as Mastodon's query does."""
    from stratus.policy import visibility
    from stratus.read import filters, relationships, status_views

    relations = relationships.loader(viewer_id)
    matcher = filters.compiled(viewer_id, "public")
    wanted = offset + limit
    ids_ = [i["id"] for i in allowed_ids(STATUSES)]
    shown: list[dict[str, Any]] = []
    for start in range(0, len(ids_), max(wanted, 20)):
        chunk = ids_[start:start + max(wanted, 20)]
        found = statuses_repo.get_many(chunk)
        items = [found[i] for i in chunk if i in found]
        view = relations.statuses(items)
        shown += visibility.without_hidden(items, view)
        if len(shown) >= wanted:
            break
    page = shown[offset:wanted]
    return status_views.render(page, viewer_id, relations=relations, matcher=matcher)


# --- staff review (Api::V1::Admin::Trends::*) -------------------------------------------------
def _admin_tag(record: dict[str, Any], stats: dict[str, Any] | None) -> dict[str, Any]:
    from stratus.api.tags import tags

    name = record["name"]
    return {**tags.entity(name, name, stats, None), "trendable": _allowed(record),
            "usable": True, "listable": True,
            "requires_review": bool(record.get("requested_review_at"))
            and not record.get("reviewed_at")}


def admin_tags(offset: int, limit: int) -> list[dict[str, Any]]:
    """Every ranked hashtag, allowed or not, best first (Admin::Tag)."""
    items = ranked(TAGS)[offset:offset + limit]
    records = repo.records(TAGS, [i["id"] for i in items])
    stats, _ = tags_repo.load([i["name"] for i in items], None)
    return [_admin_tag(records.get(i["id"]) or {"name": i["name"]}, stats.get(i["name"]))
            for i in items]


def admin_statuses(viewer_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
    """Every ranked status, allowed or not, best first (Status entities)."""
    from stratus.read import status_views

    wanted = [i["id"] for i in ranked(STATUSES)[offset:offset + limit]]
    found = statuses_repo.get_many(wanted)
    return status_views.render([found[i] for i in wanted if i in found], viewer_id)


def _decide(kind: str, ident: str, allowed: bool, extra: dict[str, Any]) -> None:
    repo.review(kind, ident, allowed, clock.iso(clock.now()), extra)
    repo.set_allowed(kind, ident, allowed)


def review_tag(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    """Approve or reject a hashtag for trends (it must have been seen trending)."""
    from stratus.core.errors import NotFound

    record = repo.record(TAGS, ident) if ids.is_id(ident) else None
    if record is None or not record.get("name"):
        raise NotFound()
    _decide(TAGS, ident, allowed, {})
    _log(actor, "approve" if allowed else "reject", "Tag", ident, record["name"])
    stats, _ = tags_repo.load([record["name"]], None)
    return _admin_tag(repo.record(TAGS, ident) or record, stats.get(record["name"]))


def review_status(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    """Approve or reject a status for trends (any status that exists)."""
    from stratus.core.errors import NotFound
    from stratus.read import status_views

    status = statuses_repo.get(ident) if ids.is_id(ident) else None
    if status is None:
        raise NotFound()
    _decide(STATUSES, ident, allowed, {"account_id": status["account_id"]})
    _log(actor, "approve" if allowed else "reject", "Status", ident, status.get("uri") or ident)
    return status_views.render_one(status, actor.account_id)


def _log(actor: Any, action: str, target_type: str, target_id: str, human: str) -> None:
    from stratus.repo import audit, base

    base.transact([audit.entry_op({
        "id": ids.new_id(), "account_id": actor.account_id, "action": action,
        "target_type": target_type, "target_id": target_id, "human_identifier": human,
        "created_at": clock.iso(clock.now())})])



# --- links ---------------------------------------------------------------------------------
def _link_entity(url: str, card: dict[str, Any], stats: dict[str, Any] | None
                 ) -> dict[str, Any]:
    """Trends::Link: the PreviewCard with the link's week of `history`."""
    from stratus.api.tags import tags
    from stratus.convert import cards as convert_cards

    return {**convert_cards.preview_card(card), "history": tags.history(stats)}


def _links(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    from stratus.repo import cards as cards_repo

    urls = [i["url"] for i in items]
    cards, stats = cards_repo.get_many(urls), cards_repo.stats(urls)
    return [(i, _link_entity(i["url"], cards[i["url"]], stats.get(i["url"])))
            for i in items if i["url"] in cards]


def trending_links(offset: int, limit: int) -> list[dict[str, Any]]:
    """GET /api/v1/trends/links."""
    return [entity for _, entity in _links(allowed_ids(LINKS)[offset:offset + limit])]


def admin_links(offset: int, limit: int) -> list[dict[str, Any]]:
    """Every ranked link, allowed or not, with its id and whether it awaits review."""
    items = ranked(LINKS)[offset:offset + limit]
    records = repo.records(LINKS, [i["id"] for i in items])
    return [{**entity, "id": item["id"],
             "requires_review": _requires_review(records.get(item["id"]))}
            for item, entity in _links(items)]


def _requires_review(record: dict[str, Any] | None) -> bool:
    return bool((record or {}).get("requested_review_at")) and not (record or {}).get(
        "reviewed_at")


def review_link(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    from stratus.core.errors import NotFound

    record = repo.record(LINKS, ident) if ids.is_id(ident) else None
    if record is None or not record.get("url"):
        raise NotFound()
    _decide(LINKS, ident, allowed, {})
    _log(actor, "approve" if allowed else "reject", "PreviewCard", ident, record["url"])
    (item, entity), = _links([{"id": ident, "url": record["url"]}]) or [(None, None)]
    if entity is None:
        raise NotFound()
    return {**entity, "id": ident, "requires_review": False}


def _publisher_entity(record: dict[str, Any]) -> dict[str, Any]:
    """Admin PreviewCardProvider: id, domain, trendable, reviewed_at, requested_review_at,
    requires_review."""
    return {"id": record["ident"], "domain": record["domain"],
            "trendable": bool(record.get("trendable")),
            "reviewed_at": record.get("reviewed_at"),
            "requested_review_at": record.get("requested_review_at"),
            "requires_review": _requires_review(record)}


def admin_publishers(offset: int, limit: int) -> list[dict[str, Any]]:
    """The publishers of ranked links."""
    idents = list(dict.fromkeys(link_id(i["publisher"]) for i in ranked(LINKS)))
    records = repo.records(PUBLISHERS, idents[offset:offset + limit])
    return [_publisher_entity(records[i]) for i in idents[offset:offset + limit] if i in records]


def review_publisher(actor: Any, ident: str, allowed: bool) -> dict[str, Any]:
    """Approving a publisher lets its links trend unless a link was itself rejected."""
    from stratus.core.errors import NotFound

    record = repo.record(PUBLISHERS, ident) if ids.is_id(ident) else None
    if record is None or not record.get("domain"):
        raise NotFound()
    repo.review(PUBLISHERS, ident, allowed, clock.iso(clock.now()))
    own = repo.records(LINKS, [i["id"] for i in ranked(LINKS)
                               if link_id(i["publisher"]) == ident])
    for item in ranked(LINKS):
        if link_id(item["publisher"]) == ident and (own.get(item["id"]) or {}).get(
                "trendable") is None:
            repo.set_allowed(LINKS, item["id"], allowed)
    _log(actor, "approve" if allowed else "reject", "PreviewCardProvider", ident,
         record["domain"])
    return _publisher_entity(repo.record(PUBLISHERS, ident) or record)
