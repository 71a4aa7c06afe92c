"""The `replies` collection of a local status, as Mastodon 4.5 serves it (its RepliesController
and the `replies` of its NoteSerializer), so that other servers can backfill our threads:

- inline in the Note, a first page of up to 5 of the author's own public or unlisted replies
  (Status#self_replies(5)), whose `next` continues after the last of them, or, when there is
  none, with the replies of other accounts;
- `<status uri>/replies`: the collection, its first page inline; `?page=true` pages of 60
  (DESCENDANTS_LIMIT), oldest first: the author's own replies (`min_id` walks them), then
  (`only_other_accounts=true`) those of accounts that are not suspended. Public and unlisted
  replies only, to a status the reader may see (federation/activitypub.replies).

Items are the replies' URIs. Mastodon inlines its local replies as Notes and names remote ones
by URI; a peer fetches each by its id either way (its FetchReplyWorker), so only the number of
requests differs.
"""

from __future__ import annotations

from typing import Any

from stratus.convert import activitypub as convert
from stratus.repo import accounts as accounts_repo
from stratus.repo import statuses as statuses_repo

PAGE_SIZE = 60  # RepliesController::DESCENDANTS_LIMIT
INLINE = 5  # NoteSerializer#replies: self_replies(5)
SCANNED = 1000  # thread entries one page examines at most
BATCH = 100  # statuses read at once (BatchGetItem)
DISTRIBUTABLE = ("public", "unlisted")


def uri(status_uri: str) -> str:
    return f"{status_uri}/replies"


def _url(collection: str, **params: str) -> str:
    # Rails orders query parameters by name (Hash#to_query).
    return collection + "?" + "&".join(f"{k}={v}" for k, v in sorted(params.items()))


def replies_to(item: dict[str, Any], *, own: bool, after: str | None, limit: int
               ) -> list[dict[str, Any]]:
    """Public and unlisted replies to `item`, oldest first, with ids above `after`: its
    author's (`own`), or other accounts' that are not suspended. The thread's index is read
    from its start (a remote reply's id comes from the date it claims, which may be earlier
    than its parent's), at most SCANNED entries."""
    thread_id = str(item.get("thread_id") or item["id"])
    author = item["account_id"]
    found: list[dict[str, Any]] = []
    candidates: list[str] = []

    def read() -> None:
        statuses = statuses_repo.get_many(candidates)
        for status_id in candidates:
            status = statuses.get(status_id)
            if status is not None and status.get("in_reply_to_id") == item["id"] and \
                    status.get("visibility") in DISTRIBUTABLE and not status.get("reblog_of_id"):
                found.append(status)
        candidates.clear()

    for scanned, entry in enumerate(statuses_repo.thread_entries_after(thread_id,
                                                                       after or "0")):
        if scanned >= SCANNED or len(found) >= limit:
            break
        if entry["id"] == item["id"] or entry.get("visibility") not in DISTRIBUTABLE or \
                entry.get("is_reblog") or (entry.get("account_id") == author) != own:
            continue
        candidates.append(entry["id"])
        if len(candidates) >= BATCH:
            read()
    if candidates and len(found) < limit:
        read()
    found = found[:limit]
    if own or not found:
        return found
    profiles = accounts_repo.get_many(list({s["account_id"] for s in found}),
                                      (accounts_repo.PROFILE,))
    return [s for s in found if not profiles.get(s["account_id"], {})
            .get(accounts_repo.PROFILE, {}).get("suspended_at")
            and s["account_id"] in profiles]


def note_replies(status: dict[str, Any], self_replies: list[dict[str, Any]] | None = None
                 ) -> dict[str, Any]:
    """The `replies` of a local status's Note: its first page inline (the author's first
    replies; `self_replies` when the caller knows them, e.g. none for a status just made)."""
    found = replies_to(status, own=True, after=None, limit=INLINE) \
        if self_replies is None else self_replies
    collection = uri(status["uri"])
    next_ = _url(collection, min_id=found[-1]["id"], page="true") if found else \
        _url(collection, only_other_accounts="true", page="true")
    return convert.unordered_collection(collection, convert.unordered_page(
        None, collection, [s["uri"] for s in found], next_=next_))


def _truthy(value: Any) -> bool:
    return str(value).lower() in ("true", "1", "on", "t")


def collection(status: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """`<status uri>/replies` for `params` (`page`, `min_id`, `only_other_accounts`)."""
    from stratus.core import ids

    collection_uri = uri(status["uri"])
    others = _truthy(params.get("only_other_accounts"))
    min_id = params.get("min_id")
    min_id = str(min_id) if min_id is not None and ids.is_id(str(min_id)) else None
    found = replies_to(status, own=not others, after=min_id, limit=PAGE_SIZE)
    if others:
        next_ = _url(collection_uri, min_id=found[-1]["id"], only_other_accounts="true",
                     page="true") if len(found) >= PAGE_SIZE else None
    elif found and len(found) >= PAGE_SIZE:
        next_ = _url(collection_uri, min_id=found[-1]["id"], page="true")
    else:  # the author's replies end here: the others' follow
        next_ = _url(collection_uri, only_other_accounts="true", page="true")
    given = {k: v for k, v in (("only_other_accounts", "true" if others else None),
                               ("min_id", min_id)) if v}
    page = convert.unordered_page(_url(collection_uri, page="true", **given), collection_uri,
                                  [s["uri"] for s in found], next_=next_)
    if _truthy(params.get("page")):
        return page
    return convert.unordered_collection(collection_uri, page)
