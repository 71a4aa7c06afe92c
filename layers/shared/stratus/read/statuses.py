"""Reading statuses as a viewer may see them (Mastodon's StatusPolicy and StatusFilter): one
status (404 unless visible, with what it boosts), many by id, a conversation's ancestors and
descendants, an account's statuses and pinned ones, a status's source and edit history.
Posting, editing and deleting are api/statuses/statuses.py; rendering is read/status_views.py."""

from __future__ import annotations

from typing import Any

from stratus.convert import statuses as convert
from stratus.core import ids, limits, parallel
from stratus.core.errors import NotFound, Unprocessable
from stratus.core.paging import Budget, Page, begun, fill_page
from stratus.core.params import flag
from stratus.policy import visibility
from stratus.read import accounts as accounts_read
from stratus.read import filters, relationships, status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import statuses as repo
from stratus.text import formatter

CONTEXT_LIMITS_ANONYMOUS = (40, 60, 20)  # ancestors, descendants, depth
CONTEXT_LIMIT = 4096


def visible_item(status_id: str, viewer_id: str | None,
                 relations: relationships.Loader | None = None) -> dict[str, Any]:
    """The status item if the viewer may see it (and what it boosts still exists and is
    visible too), else 404. `relations`: the request's relationship loader, if it has one."""
    return _visible(status_id, viewer_id, relations or relationships.loader(viewer_id))[0]


def _read(status_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The status item and what it boosts; 404 when either is gone."""
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    if item is None:
        raise NotFound()
    original = None
    if item.get("reblog_of_id"):
        original = repo.get(item["reblog_of_id"])
        if original is None:
            raise NotFound()
    return item, original


def _check(item: dict[str, Any], original: dict[str, Any] | None,
           relations: relationships.Loader) -> None:
    """404 unless the viewer may see the status and what it boosts: the viewer's relationships
    with the authors and the authors' profiles, read at once."""
    # Mastodon's StatusPolicy#show?: nothing of a suspended account is shown (one read of the
    # authors' profiles, on single-status paths only; pages learn it from the accounts they
    # render).
    view, authors = parallel.gather(
        lambda: relations.statuses([item, original]),
        lambda: accounts_repo.get_many(list({item["account_id"], *(
            [original["account_id"]] if original else [])}), (accounts_repo.PROFILE,)))
    if not visibility.can_see(item, view) or (original and not visibility.can_see(original,
                                                                                    view)):
        raise NotFound()
    if any(b.get(accounts_repo.PROFILE, {}).get("suspended_at") for b in authors.values()):
        raise NotFound()


def _visible(status_id: str, viewer_id: str | None, relations: relationships.Loader
             ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    item, original = _read(status_id)
    _check(item, original, relations)
    return item, original


def show(viewer_id: str | None, status_id: str) -> dict[str, Any]:
    relations = relationships.loader(viewer_id)
    item, original = _visible(status_id, viewer_id, relations)
    return status_views.render([item], viewer_id, relations=relations,
                               originals={original["id"]: original} if original else {})[0]


def show_many(viewer_id: str | None, status_ids: list[str]) -> list[dict[str, Any]]:
    if len(status_ids) > limits.MAX_IDS_PER_REQUEST:
        raise Unprocessable(f"Too many ids requested (maximum is {limits.MAX_IDS_PER_REQUEST})")
    wanted = [s for s in dict.fromkeys(status_ids) if ids.is_id(s)]
    relations = relationships.loader(viewer_id)
    matcher = parallel.start(lambda: filters.compiled(viewer_id, None))
    batch = status_views.read_batch([{"id": s} for s in wanted], viewer_id, relations)
    visible = {s["id"] for s in visibility.filter_visible(
        batch.statuses, relations.statuses(batch.statuses))}
    return status_views.render([s for s in batch.statuses if s["id"] in visible], viewer_id,
                               relations=relations, matcher=matcher.result(),
                               originals=batch.originals, loaded=batch.loaded)


def context(viewer_id: str | None, status_id: str) -> dict[str, list[dict[str, Any]]]:
    """The thread around a status (`thread`)."""
    return thread(viewer_id, status_id)[0]


def thread(viewer_id: str | None, status_id: str
           ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """(context, the status as stored: a boost's original): ancestors and descendants the
    viewer may see, without those of accounts the viewer
    blocks or mutes (Mastodon's StatusFilter): in a conversation, a block hides the blocked
    account's replies from the blocker and the blocker's from the blocked.

    Three round trips for the root of a thread, four for a reply: the status beside the
    thread's index read on the guess that it is the root (and the viewer's filters); the
    checks that the viewer may see it beside the thread's statuses (or, for a reply, the
    thread's index); then `status_views.read_batch`."""
    relations = relationships.loader(viewer_id)
    matcher = parallel.start(lambda: filters.compiled(viewer_id, "thread"))
    guess = parallel.start(lambda: repo.thread_entries(status_id)) \
        if ids.is_id(str(status_id)) else None
    item, original = _read(status_id)
    checked = parallel.start(lambda: _check(item, original, relations))
    if original is not None:
        item = original
    thread_id = item.get("thread_id") or item["id"]
    entries = guess.result() if guess is not None and thread_id == str(status_id) else \
        repo.thread_entries(thread_id)
    if not any(e["id"] == item["id"] for e in entries):
        entries.append({"id": item["id"], "account_id": item["account_id"]})
    batch = status_views.read_batch(entries, viewer_id, relations)
    checked.result()
    statuses = {s["id"]: s for s in batch.statuses}
    statuses.setdefault(item["id"], item)
    max_ancestors, max_descendants, max_depth = (CONTEXT_LIMITS_ANONYMOUS if viewer_id is None
                                                 else (CONTEXT_LIMIT, CONTEXT_LIMIT, None))
    ancestors: list[dict[str, Any]] = []
    parent = statuses.get(item.get("in_reply_to_id") or "")
    while parent is not None and len(ancestors) < max_ancestors:
        ancestors.insert(0, parent)
        parent = statuses.get(parent.get("in_reply_to_id") or "")
    children: dict[str, list[dict[str, Any]]] = {}
    for status in statuses.values():
        if status.get("in_reply_to_id"):
            children.setdefault(status["in_reply_to_id"], []).append(status)
    descendants: list[dict[str, Any]] = []
    stack = [(c, 1) for c in sorted(children.get(item["id"], []), key=lambda s: int(s["id"]),
                                    reverse=True)]
    while stack and len(descendants) < max_descendants:
        status, depth = stack.pop()
        descendants.append(status)
        if max_depth is None or depth < max_depth:
            stack.extend((c, depth + 1) for c in sorted(children.get(status["id"], []),
                                                       key=lambda s: int(s["id"]), reverse=True))
    around = ancestors + descendants
    view = relations.statuses(around)
    visible_ids = {s["id"] for s in visibility.without_hidden(around, view)}
    # The viewer's `hide` filters for threads take statuses out of the conversation.
    rendered = status_views.render([s for s in around if s["id"] in visible_ids], viewer_id,
                                   relations=relations, matcher=matcher.result(),
                                   originals=batch.originals, loaded=batch.loaded)
    by_id = {r["id"]: r for r in rendered
             if not visibility.limited_hidden(r["account"]["id"], bool(r["account"].get("limited")),
                                              view)}
    return ({"ancestors": [by_id[s["id"]] for s in ancestors if s["id"] in by_id],
             "descendants": [by_id[s["id"]] for s in descendants if s["id"] in by_id]}, item)


def account_statuses(viewer_id: str | None, account_id: str, params: dict[str, Any],
                     page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of an account's statuses and the ids its Link header uses (none for the pinned
    list, which is not paginated). Three round trips: the account, the viewer's relationship
    with it, the viewer's filters and the first index entries at once (the entries are not
    looked at before the account is known to be shown), then `status_views.read_batch`."""
    if not ids.is_id(str(account_id)):
        raise NotFound()
    relations = relationships.loader(viewer_id)
    matcher = parallel.start(lambda: filters.compiled(viewer_id, "account"))
    # 404 for unknown or hidden accounts
    account = parallel.start(lambda: accounts_read.get_account(account_id))
    related = parallel.start(lambda: relations.accounts([account_id]))

    def truthy(name: str) -> bool:
        return flag(params.get(name))

    def allowed() -> bool:
        # Mastodon: nothing of an account that blocks the viewer
        account.result()
        return account_id not in related.result().blocked_by

    if truthy("pinned"):
        pinned_ids = repo.pinned_status_ids(account_id)
        if not allowed():
            return [], []
        return pinned_statuses(viewer_id, account_id, relations, matcher.result(),
                               pinned_ids), []
    tagged = formatter.normalize_tag(str(params["tagged"]).lstrip("#")) \
        if params.get("tagged") else None

    def hydrate(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        batch = status_views.read_batch(
            entries, viewer_id, relations,
            keep=lambda s: not tagged or tagged in s.get("tags", []))
        view = relations.statuses(batch.statuses)
        return status_views.render([s for s in visibility.filter_visible(batch.statuses, view)
                                    if not visibility.boosts_excluded(s, view)],
                                   viewer_id, relations=relations, matcher=matcher.result(),
                                   originals=batch.originals, loaded=batch.loaded)

    # Replies, boosts and media are filtered by DynamoDB on the index entries; a hashtag is
    # checked on the statuses read (their index entries carry no tags).
    budget = Budget()
    entries = begun(repo.account_statuses_between(
        account_id, *page.id_range(), not page.ascending, budget=budget, step=page.step,
        exclude_replies=truthy("exclude_replies"), exclude_reblogs=truthy("exclude_reblogs"),
        only_media=truthy("only_media")))
    if not allowed():
        return [], []
    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda s: s["id"])
    return filled.items, filled.link_ids


def pinned_statuses(viewer_id: str | None, account_id: str,
                    relations: relationships.Loader,
                    matcher: filters.Matcher | None = None,
                    pinned_ids: list[str] | None = None) -> list[dict[str, Any]]:
    if pinned_ids is None:
        pinned_ids = repo.pinned_status_ids(account_id)
    batch = status_views.read_batch([{"id": s, "account_id": account_id} for s in pinned_ids],
                                    viewer_id, relations)
    ordered = batch.statuses
    return status_views.render(visibility.filter_visible(ordered, relations.statuses(ordered)),
                               viewer_id, relations=relations, matcher=matcher,
                               originals=batch.originals, loaded=batch.loaded)


def source(viewer_id: str | None, status_id: str) -> dict[str, Any]:
    item = visible_item(status_id, viewer_id)
    return {"id": item["id"], "text": item.get("text", ""),
            "spoiler_text": item.get("spoiler_text", "")}


def history(viewer_id: str | None, status_id: str) -> list[dict[str, Any]]:
    item = visible_item(status_id, viewer_id)
    versions = repo.edits(item["id"]) or [{
        "content": item.get("content", ""), "spoiler_text": item.get("spoiler_text", ""),
        "sensitive": item.get("sensitive", False), "created_at": item["created_at"],
        "media_ids": item.get("media_ids", []), "poll_options": poll_options(item)}]
    account = status_views.load_accounts([item["account_id"]])[item["account_id"]]
    media = repo.get_media([m for v in versions for m in v.get("media_ids", [])])
    return [convert.status_edit(v, account=account,
                                media=[convert.media_attachment(media[m])
                                       for m in v.get("media_ids", []) if m in media],
                                emojis=[]) for v in versions]


def poll_options(item: dict[str, Any]) -> list[str] | None:
    """The options of a status's poll as they are now (None without a poll): what its edit
    history records."""
    if not item.get("poll_id"):
        return None
    poll = repo.get_poll(item["poll_id"])
    return list(poll["options"]) if poll else None
