"""Search without a full-text engine (GET /api/v2/search, GET /api/v1/accounts/search): what
Mastodon does when Elasticsearch is off — accounts by username, display name and domain prefix,
hashtags by name prefix — and statuses by URL, and by words within the statuses the viewer
wrote, was mentioned in, favourited, bookmarked or boosted (the scope Mastodon 4's statuses
index gives a user: `searchable_by`). Every index lives in DynamoDB and is kept by the search
worker from the stream (its own queue); reading one is a Query of a prefix or a word, never a Scan
(docs/search.md, which also says what OpenSearch would add and where it would plug in: this
module is the boundary).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from stratus.convert import tags as convert_tags
from stratus.core import clock, hosts, ids, parallel, urls
from stratus.core.config import settings
from stratus.core.errors import ApiError, BadRequest, Unauthorized
from stratus.core.paging import Budget, begun
from stratus.core.params import flag, to_i
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import accounts as accounts_read
from stratus.read import filters, relationships, status_views, tag_policy
from stratus.repo import accounts as accounts_repo
from stratus.repo import relationships as relationships_repo
from stratus.repo import search as repo
from stratus.repo import tags as tags_repo
from stratus.text import formatter
from stratus.text.words import words

RESULTS_LIMIT = 20  # Api::V2::SearchController::RESULTS_LIMIT (at most twice as many)
ACCOUNTS_LIMIT = 40  # DEFAULT_ACCOUNTS_LIMIT of /api/v1/accounts/search (at most 80)
MIN_QUERY_LENGTH = 3  # AccountSearchService: shorter queries find only the exact account
MAX_QUERY_WORDS = 8  # words of a statuses query that must all be found
EXAMINED = 400  # index entries one search may examine (as every filtered listing)
TYPES = ("accounts", "hashtags", "statuses")

# Mastodon's Account::MENTION_RE, whole: a username, optionally @ a domain (this server's may
# carry a port, as LOCAL_DOMAIN may).
HANDLE = re.compile(r"([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@([\w.-]+\w(?::\d+)?))?", re.I)
LOCAL_STATUS_PATH = re.compile(r"/(?:@[^/]+|users/[^/]+/statuses)/(\d+)/?")
LOCAL_ACCOUNT_PATH = re.compile(r"/(?:@|users/)([^/@]+)/?")


def _positive(params: dict[str, Any]) -> None:
    """Api::BaseController#require_valid_pagination_options!"""
    if any(to_i(params.get(name)) < 0 for name in ("limit", "offset") if name in params):
        raise BadRequest("Pagination values for `offset` and `limit` must be positive")


def _limit(params: dict[str, Any], default: int) -> int:
    """Mastodon's limit_param: absent → the default, else |limit| up to twice the default."""
    if params.get("limit") in (None, ""):
        return default
    return min(abs(to_i(params.get("limit"))), default * 2)


def _user_id(viewer: Viewer | None) -> str | None:
    return viewer.account_id if viewer is not None and viewer.user is not None else None


# --- GET /api/v2/search ---------------------------------------------------------------------------
def search(viewer: Viewer | None, params: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The Search entity. Pagination (`offset`, `max_id`, `min_id`) applies only with `type`;
    anonymous searches may neither page by offset nor resolve (401, as Mastodon)."""
    query = params.get("q")
    if not isinstance(query, str) or not query.strip():
        raise BadRequest("param is missing or the parameter is empty: q")
    me = _user_id(viewer)
    resolve = flag(params.get("resolve"))
    if me is None:
        if params.get("offset") not in (None, ""):
            raise Unauthorized("Search queries pagination is not supported without "
                              "authentication")
        if resolve:
            raise Unauthorized("Search queries that resolve remote resources are not supported "
                              "without authentication")
    _positive(params)
    kind = params.get("type") if isinstance(params.get("type"), str) and params["type"] else None
    limit = _limit(params, RESULTS_LIMIT)
    offset = max(to_i(params.get("offset")), 0) if kind else 0
    results: dict[str, list[dict[str, Any]]] = {t: [] for t in TYPES}
    query = query.strip()
    if limit == 0:
        return results
    if resolve and re.match(r"https?://", query, re.I):
        found = _local_url(query, me) or _remote_url(query, me)
        if found is not None and offset == 0 and kind in (None, found[0]):
            results[found[0]] = [found[1]]
        return results
    if kind in (None, "accounts") and not query.startswith("#") and resolve:
        resolve_handle(query)
    # The three kinds at once: a search takes the round trips of its slowest part.
    parts: dict[str, Any] = {}
    if kind in (None, "accounts") and not query.startswith("#"):
        parts["accounts"] = lambda: accounts(query, me, limit=limit, offset=offset,
                                             following=flag(params.get("following")))
    if kind in (None, "statuses") and me is not None:
        account_id = params.get("account_id")
        parts["statuses"] = lambda: statuses(
            query, me, limit=limit, offset=offset,
            account_id=str(account_id) if account_id not in (None, "") else None,
            min_id=params.get("min_id") if kind else None,
            max_id=params.get("max_id") if kind else None)
    if kind in (None, "hashtags"):
        parts["hashtags"] = lambda: hashtags(
            query, me, limit=limit, offset=offset,
            exclude_unreviewed=flag(params.get("exclude_unreviewed")))
    results.update(zip(parts, parallel.gather(*parts.values()), strict=True))
    return results


# --- GET /api/v1/accounts/search ------------------------------------------------------------------
def account_search(viewer: Viewer, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Api::V1::Accounts::SearchController: the same account search, `limit` 40 (80 at most);
    `resolve` finds a remote `user@domain` by WebFinger first."""
    _positive(params)
    query = params.get("q")
    if not isinstance(query, str) or not query.strip():
        return []
    limit = _limit(params, ACCOUNTS_LIMIT)
    if limit == 0:
        return []
    if flag(params.get("resolve")):
        resolve_handle(query.strip())
    return accounts(query.strip(), viewer.account_id, limit=limit,
                    offset=max(to_i(params.get("offset")), 0),
                    following=flag(params.get("following")))


# --- accounts -----------------------------------------------------------------------------------
def _terms(query: str) -> tuple[tuple[str, str | None] | None, list[str]]:
    """(the handle the query names exactly, if it is one; the words every result must have a
    word starting with). A handle on this server is searched by its username; a remote one by
    its username and domain."""
    query = query.removeprefix("@")
    handle = HANDLE.fullmatch(query)
    if handle is None:
        return None, words(query)[:MAX_QUERY_WORDS]
    username, domain = handle.group(1), handle.group(2)
    if domain and hosts.ours(domain):
        domain = None
    terms = [username.casefold()] + ([domain.casefold()] if domain else [])
    return (username, domain), terms


def _exact(handle: tuple[str, str | None] | None) -> str | None:
    if handle is None:
        return None
    return accounts_repo.id_by_handle(*handle)


def _account_candidates(terms: list[str], budget: Budget, step: int) -> Iterator[str]:
    """Accounts having a word starting with each term, in the order of the longest term's
    words (shortest first: exact words lead), each once."""
    driver = max(terms, key=len)
    others = [t for t in terms if t != driver]
    seen: set[str] = set()
    for entry in repo.account_entries(driver, budget=budget, step=step):
        account_id = entry["account_id"]
        if account_id in seen:
            continue
        entry_words = entry.get("words") or []
        if all(any(w.startswith(t) for w in entry_words) for t in others):
            seen.add(account_id)
            yield account_id


def _shown_accounts(candidates: list[str], me: str | None, following: bool, *,
                    exact: bool = False) -> dict[str, dict[str, Any]]:
    """{id: Account} of the candidates a search may show the viewer: usable, not suspended,
    neither blocking nor blocked by the viewer (unless `exact`: the account the query names,
    which Mastodon's exact match finds whatever the blocks — it is how a client finds the
    account to unblock), and followed (or the viewer) with `following` — one batched read for
    the accounts and the viewer's edges to them."""
    parts = (accounts_repo.PROFILE, accounts_repo.STATS, accounts_repo.USER)
    if me is not None:
        view, alongside = relationships_repo.load(me, candidates, full=False,
                                                  accounts=candidates, parts=parts)
        bundles = alongside.accounts
    else:
        view, bundles = None, accounts_repo.get_many(candidates, parts)
    shown = {}
    for account_id in candidates:
        bundle = bundles.get(account_id)
        if not bundle or not accounts_read.is_visible(bundle):
            continue
        if bundle[accounts_repo.PROFILE].get("suspended_at"):
            continue
        if view is not None and account_id != me and (
                (not exact and (account_id in view.blocking or account_id in view.blocked_by))
                or (following and account_id not in view.following)):
            continue
        shown[account_id] = accounts_read.render(bundle)
    return shown


def accounts(query: str, me: str | None, *, limit: int, offset: int = 0,
             following: bool = False) -> list[dict[str, Any]]:
    """AccountSearchService without Elasticsearch: the account the query names exactly comes
    first (blocks aside, as Mastodon's exact match), then accounts with a word (username, display name, domain) starting with each word
    of the query, shortest matching words first. Anonymous queries shorter than 3 characters
    find only the exact account."""
    handle, terms = _terms(query)
    wanted = offset + limit
    searching = bool(terms) and not (me is None and
                                     len(query.removeprefix("@")) < MIN_QUERY_LENGTH)
    budget = Budget(entries=EXAMINED)
    # The exact account and the word index at once, then the exact one's checks beside the
    # first batch's.
    exact_later = parallel.start(lambda: _exact(handle))
    candidates = begun(_account_candidates(terms, budget, step=max(wanted, 20))) \
        if searching else iter(())
    exact = exact_later.result()
    exact_shown = parallel.start(lambda: _shown_accounts([exact], me, following, exact=True)) \
        if exact is not None else None
    ranked: list[dict[str, Any]] = []
    if searching:
        batch: list[str] = []
        for account_id in candidates:
            if account_id == exact:
                continue
            batch.append(account_id)
            if len(batch) >= wanted - len(ranked):
                shown = _shown_accounts(batch, me, following)
                ranked += [shown[a] for a in batch if a in shown]
                batch = []
                if len(ranked) >= wanted:
                    break
        if batch:
            shown = _shown_accounts(batch, me, following)
            ranked += [shown[a] for a in batch if a in shown]
    if exact_shown is not None:
        ranked = [*exact_shown.result().values(), *ranked]
    return ranked[offset:wanted]


# --- hashtags -----------------------------------------------------------------------------------
def hashtags(query: str, me: str | None, *, limit: int, offset: int = 0,
             exclude_unreviewed: bool = False) -> list[dict[str, Any]]:
    """Tag.search_for: tags whose normalised name starts with the query (`#` left off),
    shortest first, then by name. `exclude_unreviewed` keeps only reviewed tags and the exact
    one; no tag is reviewed yet (trends review comes later), so it keeps the exact tag alone."""
    prefix = formatter.normalize_tag(query.removeprefix("#").strip())
    if not re.fullmatch(r"\w+", prefix):
        return []  # tags are made of word characters: nothing else starts one
    if exclude_unreviewed:
        names = [n for n in repo.tags_starting(prefix, limit=1) if n == prefix]
    else:
        names = list(_take(repo.tags_starting(prefix, limit=offset + limit), offset + limit))
    names = names[offset:offset + limit]
    unlisted = tag_policy.unlisted()  # staff's `listable: false` (Tag.listable)
    names = [n for n in names if n not in unlisted]
    if not names:
        return []
    stats, edges = tags_repo.load(names, me)
    now = clock.now()
    return [convert_tags.hashtag(n, n, stats.get(n), (n in edges) if me else None, now=now)
            for n in names]


def _take(items: Iterator[str], count: int) -> Iterator[str]:
    for position, item in enumerate(items):
        if position >= count:
            return
        yield item


# --- statuses -----------------------------------------------------------------------------------
def resolve_handle(query: str) -> None:
    """With `resolve`, a query that is a remote address (`@user@host`, `user@host`) is looked
    up by WebFinger and the account stored (ResolveAccountService), so the exact match of the
    search below finds it."""
    handle = HANDLE.fullmatch(query.removeprefix("@"))
    if handle is None or not handle.group(2) or hosts.ours(handle.group(2)):
        return
    from stratus.federation import remote_accounts

    remote_accounts.resolve_acct(f"{handle.group(1)}@{handle.group(2)}", refresh=True)


def _remote_url(url: str, me: str | None) -> tuple[str, dict[str, Any]] | None:
    """ResolveURLService for another server's URL: the actor or status it serves, fetched
    and stored (or already known), if the viewer may see it."""
    from stratus.federation import remote_statuses
    from stratus.read import statuses as statuses_read

    found = remote_statuses.resolve_url(url)
    if found is None:
        return None
    kind, object_id = found
    try:
        if kind == "account":
            account = accounts_read.get_account(object_id)
            return None if account.get("suspended") else ("accounts", account)
        return "statuses", statuses_read.show(me, object_id)
    except ApiError:
        return None


def _local_url(url: str, me: str | None) -> tuple[str, dict[str, Any]] | None:
    """ResolveURLService for this server's URLs: a status page or URI (if the viewer may see
    it), or a profile. Other servers' URLs: `_remote_url`."""
    parts, home = urls.parse(url), urls.parse(settings().base_url)
    if parts is None or home is None or (parts.scheme, parts.host) != (home.scheme, home.host):
        return None
    status = LOCAL_STATUS_PATH.fullmatch(parts.path)
    if status is not None:
        from stratus.read import statuses as statuses_read

        try:
            return "statuses", statuses_read.show(me, status.group(1))
        except ApiError:
            return None
    account = LOCAL_ACCOUNT_PATH.fullmatch(parts.path)
    if account is not None:
        found = accounts(account.group(1), me, limit=1)
        if found and found[0]["acct"].lower() == account.group(1).lower():
            return "accounts", found[0]
    return None


def statuses(query: str, me: str, *, limit: int, offset: int = 0,
             account_id: str | None = None, min_id: Any = None, max_id: Any = None
             ) -> list[dict[str, Any]]:
    """Statuses the viewer may find that have every word of the query, newest first, within
    `min_id`/`max_id` (exclusive) and by `account_id` if given; those the viewer may no longer
    see, and those of accounts it blocks or mutes, are left out (StatusFilter)."""
    terms = words(query)[:MAX_QUERY_WORDS]
    if not terms or (account_id is not None and not ids.is_id(account_id)):
        return []
    low = int(min_id) + 1 if ids.is_id(str(min_id)) and min_id is not None else None
    high = int(max_id) - 1 if ids.is_id(str(max_id)) and max_id is not None else None
    driver = max(terms, key=len)
    others = [t for t in terms if t != driver]
    wanted = offset + limit
    budget = Budget(entries=EXAMINED)
    relations = relationships.loader(me)
    matcher = parallel.start(lambda: filters.compiled(me, None))  # marks, removes nothing
    found: list[dict[str, Any]] = []
    batches: list[status_views.Batch] = []

    def keep(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        candidates = [e["status_id"] for e in batch
                      if account_id is None or e.get("author_id") == account_id]
        for term in others:
            if not candidates:
                break
            having = repo.statuses_with_word(me, term, candidates)
            candidates = [c for c in candidates if c in having]
        authors = {e["status_id"]: e.get("author_id") for e in batch}
        read = status_views.read_batch([{"id": c, "author_id": authors.get(c)}
                                        for c in candidates], me, relations)
        batches.append(read)
        return visibility.without_hidden(read.statuses, relations.statuses(read.statuses))

    batch: list[dict[str, Any]] = []
    for entry in repo.status_entries(me, driver, low, high, True, budget=budget,
                                     step=max(wanted, 20)):
        batch.append(entry)
        if len(batch) >= max(wanted - len(found), 20):
            found += keep(batch)
            batch = []
            if len(found) >= wanted:
                break
    else:
        if batch:
            found += keep(batch)
    # One batch read is what a page of results usually takes: what it read renders them.
    ready = batches[0] if len(batches) == 1 else None
    return status_views.render(found[offset:wanted], me, relations=relations,
                               matcher=matcher.result(),
                               originals=ready.originals if ready else None,
                               loaded=ready.loaded if ready else None)
