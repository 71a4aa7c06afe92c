"""The search indexes in the Main table (api/search/search.py; docs/search.md): account words,
hashtag name prefixes, and each searching account's words of statuses. Written by the search
worker from the stream (new tags by the posting request too), read by the search endpoints;
never a Scan."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from stratus.core.paging import Budget
from stratus.repo import base, keys
from stratus.text import formatter

ACCOUNT_WORD, TAG_PREFIX, TAG_SEARCH, STATUS_WORD, STATUS_SEARCHER = (
    "account_word", "tag_prefix", "tag_search", "status_word", "status_searcher")
TAG_PREFIX_MAX = keys.TAG_PREFIX_MAX


# --- accounts ----------------------------------------------------------------------------------
def set_account_words(account_id: str, words: list[str], stale: Iterable[str]) -> None:
    """Index `words` for an account (each entry carries all of them, so a query of several
    words is checked on the entries of one) and drop its entries for `stale` words."""
    puts = [{**keys.account_word(w, account_id), "type": ACCOUNT_WORD, "account_id": account_id,
             "words": words} for w in words]
    deletes = [keys.account_word(w, account_id) for w in stale if w not in words]
    base.write_many(puts=puts, deletes=deletes)


def account_entries(prefix: str, *, budget: Budget, step: int) -> Iterator[dict[str, Any]]:
    """Account word entries whose word starts with `prefix`, shortest words first."""
    partition, sk_prefix = keys.account_word_prefix(prefix)
    return base.records(base.query(partition, sk_prefix=sk_prefix, budget=budget, step=step))


# --- hashtags ----------------------------------------------------------------------------------
def unindexed_tags(names: list[str]) -> list[str]:
    """Which of these normalised tag names have no search entries yet (one batched read)."""
    found = {item["name"] for item in base.batch_get([keys.tag_search_marker(n) for n in names])}
    return [n for n in names if n not in found]


def index_tag(name: str) -> None:
    """Write a tag's prefix entries, then the marker that says they are written (a crash in
    between writes them again next time: the puts are idempotent)."""
    prefixes = {name[:n] for n in range(1, min(len(name), TAG_PREFIX_MAX) + 1)}
    base.write_many(puts=[{**keys.tag_prefix_entry(p, name), "type": TAG_PREFIX, "name": name}
                          for p in prefixes])
    base.put({**keys.tag_search_marker(name), "type": TAG_SEARCH, "name": name})


def tags_starting(prefix: str, *, limit: int) -> Iterator[str]:
    """Normalised tag names starting with `prefix`, shortest first then by name (Mastodon's
    order); a prefix longer than the indexed ones is checked on the names."""
    partition = keys.tag_prefix_partition(prefix)
    for item in base.query(partition, limit=None if len(prefix) > TAG_PREFIX_MAX else limit):
        if item["name"].startswith(prefix):
            yield item["name"]


# --- statuses ------------------------------------------------------------------------------------
def searchers(status_id: str) -> dict[str, set[str]]:
    """{account id: the words indexed for it} of a status."""
    return {item["account_id"]: set(item.get("words") or ())
            for item in base.query(keys.status_searchers(status_id))}


def set_status_words(status_id: str, account_id: str, author_id: str, words: set[str],
                     indexed: set[str]) -> None:
    """Index `words` of a status for one searching account (the entries it lacks), drop the
    entries of words it no longer has, and note what is indexed."""
    puts = [{**keys.status_word(account_id, w, status_id), "type": STATUS_WORD,
             "status_id": status_id, "author_id": author_id} for w in words - indexed]
    puts.append({**keys.status_searcher(status_id, account_id), "type": STATUS_SEARCHER,
                 "account_id": account_id, "status_id": status_id, "words": sorted(words)})
    base.write_many(puts=puts, deletes=[keys.status_word(account_id, w, status_id)
                                        for w in indexed - words])


def unset_status_words(status_id: str, account_id: str, indexed: set[str]) -> None:
    """Drop every entry of a status for one account, and its searcher item."""
    base.write_many(deletes=[*(keys.status_word(account_id, w, status_id) for w in indexed),
                             keys.status_searcher(status_id, account_id)])


def status_entries(account_id: str, word: str, low: int | None, high: int | None,
                   descending: bool, *, budget: Budget, step: int) -> Iterator[dict[str, Any]]:
    """An account's entries for `word` with status ids in [low, high] (None: unbounded;
    `status_id`, `author_id`)."""
    return base.records(base.query(keys.status_word_partition(account_id, word),
                                   sk_between=keys.id_range(low, high),
                                   descending=descending, budget=budget, step=step))


def statuses_with_word(account_id: str, word: str, status_ids: list[str]) -> set[str]:
    """Which of `status_ids` have `word` in the account's index (one batched read)."""
    return {item["status_id"] for item in base.batch_get(
        [keys.status_word(account_id, word, s) for s in status_ids])}


def edges_of(account_ids: list[str], status_id: str) -> set[str]:
    """Which accounts favourited, bookmarked or boosted the status (one batched read)."""
    wanted = [k for a in account_ids for k in (keys.favourite(a, status_id),
                                               keys.bookmark(a, status_id),
                                               keys.reblog_edge(a, status_id))]
    return {item["account_id"] for item in base.batch_get(wanted, consistent=True)}


def index_tags(names: list[str]) -> int:
    """Tags a status used: index those seen for the first time (Mastodon creates the Tag).
    `names` as written (normalised here); how many were new."""
    wanted = list(dict.fromkeys(formatter.normalize_tag(n) for n in names if n))
    new = unindexed_tags(wanted) if wanted else []
    for name in new:
        index_tag(name)
    return len(new)
