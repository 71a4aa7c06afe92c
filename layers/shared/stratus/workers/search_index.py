"""The search indexes follow accounts and statuses (the search queue's worker): an account's
profile words, and each status's words for every account that may find it (docs/search.md).
Searching them is api/search/search.py."""

from __future__ import annotations

from stratus.jobs import messages as jobs
from stratus.repo import accounts as accounts_repo
from stratus.repo import search as repo
from stratus.repo import statuses as statuses_repo
from stratus.text.words import account_words, status_words


def account_words_changed(job: jobs.AccountWordsChanged) -> int:
    """Make an account's word entries those of its profile as it is now (read, so deliveries in
    any order end in the same place); a removed account keeps none."""
    profile = accounts_repo.get_profile(job.account_id)
    current = account_words(profile)
    stale = [w for w in job.old_words if w not in current]
    repo.set_account_words(job.account_id, current, stale)
    return len(current) + len(stale)


def status_search_scope(job: jobs.StatusSearchScope) -> int:
    """Make a status's word entries follow who may find it and what it says now: for each
    account concerned, entries for its words if the account wrote it, is mentioned in it, or
    favourited, bookmarked or boosted it, none otherwise; a deleted status keeps none.
    Idempotent, and deliveries in any order end in the same place (the status and the edges
    are read as they are now)."""
    tagged = repo.index_tags(job.tags) if job.tags else 0
    status = statuses_repo.get(job.status_id)
    if status is not None and status.get("reblog_of_id"):
        return tagged
    indexed = repo.searchers(job.status_id)
    concerned = list(dict.fromkeys(job.account_ids if job.account_ids is not None else
                                   [*indexed, *((status or {}).get("mention_ids") or []),
                                    *([status["account_id"]] if status else [])]))
    if status is None:
        for account_id in concerned:
            if account_id in indexed:
                repo.unset_status_words(job.status_id, account_id, indexed[account_id])
        return tagged + len(concerned)
    author = status["account_id"]
    related = {a for a in concerned
               if (a == author and status.get("local", True))
               or a in (status.get("mention_ids") or [])}
    undecided = [a for a in concerned if a not in related]
    if undecided:
        related |= repo.edges_of(undecided, job.status_id)
    current = status_words(status)
    changed = 0
    for account_id in concerned:
        if account_id in related:
            repo.set_status_words(job.status_id, account_id, author, current,
                                  indexed.get(account_id, set()))
            changed += 1
        elif account_id in indexed:
            repo.unset_status_words(job.status_id, account_id, indexed[account_id])
            changed += 1
    return tagged + changed


HANDLERS = {jobs.AccountWordsChanged: account_words_changed,
            jobs.StatusSearchScope: status_search_scope}


def handle(job: jobs.Job) -> int:
    """Apply one search index job (the search worker's); how many entries it changed."""
    handler = HANDLERS.get(type(job))
    if handler is None:
        raise ValueError(f"not a search job: {job.name}")
    return handler(job)
