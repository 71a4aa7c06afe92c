"""Ranking trends on a schedule (functions/schedules/trends): what is rising among hashtags,
statuses and links, and which items staff should review.

Mastodon's Trends::Tags, Trends::Statuses and Trends::Links, without Redis:
- Candidates are written on write: the counters worker marks a hashtag on its first use by an
  account on a day, a status on a day it was favourited or boosted, a link on a day it was
  shared (`trend_candidate` items, partitioned by kind and day, expiring after three days).
- `refresh()` (every five minutes) scores today's and yesterday's candidates and what is
  ranked already, with Mastodon's formulas and thresholds, and writes one ranking item per
  kind: the public endpoints (api/trends/trends.py) read that item and the entities it names.
- `request_review()` (every two hours, the product's figure) marks the items that would trend but await review, once
  each, with a review record whose insert mails the staff who may review them (Manage
  Taxonomies); the review itself is the admin API's (api/admin/trends.py).
The cost: docs/performance.md ("Trends").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from stratus.convert.tags import tag_id
from stratus.core import clock, ids
from stratus.model import tags as tags_model
from stratus.model.roles import Permission
from stratus.read import domain_blocks, settings
from stratus.read.trends import KINDS, LINKS, PUBLISHERS, STATUSES, TAGS, allowed
from stratus.repo import accounts as accounts_repo
from stratus.repo import statuses as statuses_repo
from stratus.repo import tags as tags_repo
from stratus.repo import trends as repo

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
    # Links: 15 distinct accounts on a day (Mastodon's default is 5 and configurable).
    LINKS: Options(threshold=15, review_threshold=3, decay_threshold=1, halflife=8 * 3600,
                   cooldown=2 * 86400),
}


def link_id(url: str) -> str:
    """A link's id (the admin routes name links and publishers by id): derived from the URL
    or domain as a hashtag's is from its name."""
    return tag_id(url)


def publisher_of(url: str) -> str:
    """The publisher of a link: its host name (Mastodon's PreviewCardProvider is per domain),
    as the one host normaliser writes it (core/urls.py, core/hosts.py)."""
    from stratus.core import urls

    found = urls.parse(url)
    return found.name if found else ""


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
    observed = float(day_stats.get(tags_model.history_attribute(tags_model.ACCOUNTS, today), 0))
    expected = float(day_stats.get(tags_model.history_attribute(tags_model.ACCOUNTS, yesterday),
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
        item["allowed"] = allowed(records.get(item["id"]), default)
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
        item["allowed"] = allowed(records.get(item["id"]), default)
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
        item["allowed"] = allowed(own if own and own.get("trendable") is not None
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
    policies = domain_blocks.policies_for(list(dict.fromkeys(domains)))
    return {d for d, policy in policies.items() if policy.silenced or policy.suspended}


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


def reviewers() -> list[str]:
    from stratus.read import roles as roles_read

    return roles_read.accounts_who_can(Permission.MANAGE_TAXONOMIES)
