"""Statuses: posting (text, mentions, tags, polls, media, replies), reading with the visibility
policy, context, edits and history, deletion, and an account's statuses."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from stratus.core import clock, ids, limits
from stratus.core.config import settings
from stratus.core.errors import Busy, NotFound, Unprocessable
from stratus.core.paging import Budget, Page, fill_page
from stratus.core.params import flag, indexed_values
from stratus.jobs import messages as jobs
from stratus.model.viewer import Viewer
from stratus.policy import visibility
from stratus.read import filters, relationships, status_views
from stratus.repo import accounts as accounts_repo
from stratus.repo import base, keys, scheduler
from stratus.repo import instance as instance_repo
from stratus.repo import interactions as interactions_repo
from stratus.repo import polls as polls_repo
from stratus.repo import statuses as repo
from stratus.text import formatter

VISIBILITIES = ("public", "unlisted", "private", "direct")
CONTENT_TYPES = limits.STATUS_SUPPORTED_MIME_TYPES
CONTEXT_LIMITS_ANONYMOUS = (40, 60, 20)  # ancestors, descendants, depth
CONTEXT_LIMIT = 4096


def _error(message: str) -> Unprocessable:
    return Unprocessable(f"Validation failed: {message}")


# --- reading -----------------------------------------------------------------------------------
def visible_item(status_id: str, viewer_id: str | None,
                 relations: relationships.Loader | None = None) -> dict[str, Any]:
    """The status item if the viewer may see it (and what it boosts still exists and is
    visible too), else 404. `relations`: the request's relationship loader, if it has one."""
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    if item is None:
        raise NotFound()
    original = None
    if item.get("reblog_of_id"):
        original = repo.get(item["reblog_of_id"])
        if original is None:
            raise NotFound()
    view = (relations or relationships.loader(viewer_id)).statuses([item, original])
    if not visibility.can_see(item, view) or (original and not visibility.can_see(original,
                                                                                    view)):
        raise NotFound()
    # Mastodon's StatusPolicy#show?: nothing of a suspended account is shown (one read of the
    # authors' profiles, on single-status paths only; pages learn it from the accounts they
    # render).
    authors = accounts_repo.get_many(list({item["account_id"], *(
        [original["account_id"]] if original else [])}), (accounts_repo.PROFILE,))
    if any(b.get(accounts_repo.PROFILE, {}).get("suspended_at") for b in authors.values()):
        raise NotFound()
    return item


def show(viewer_id: str | None, status_id: str) -> dict[str, Any]:
    relations = relationships.loader(viewer_id)
    return status_views.render_one(visible_item(status_id, viewer_id, relations), viewer_id,
                                   relations)


def show_many(viewer_id: str | None, status_ids: list[str]) -> list[dict[str, Any]]:
    if len(status_ids) > limits.MAX_IDS_PER_REQUEST:
        raise Unprocessable(f"Too many ids requested (maximum is {limits.MAX_IDS_PER_REQUEST})")
    wanted = [s for s in dict.fromkeys(status_ids) if ids.is_id(s)]
    found = repo.get_many(wanted)
    relations = relationships.loader(viewer_id)
    visible = {s["id"] for s in visibility.filter_visible(
        found.values(), relations.statuses(found.values()))}
    return status_views.render([found[s] for s in wanted if s in visible], viewer_id,
                               relations=relations)


def context(viewer_id: str | None, status_id: str) -> dict[str, list[dict[str, Any]]]:
    """Ancestors and descendants the viewer may see, without those of accounts the viewer
    blocks or mutes (Mastodon's StatusFilter): in a conversation, a block hides the blocked
    account's replies from the blocker and the blocker's from the blocked."""
    relations = relationships.loader(viewer_id)
    item = visible_item(status_id, viewer_id, relations)
    if item.get("reblog_of_id"):
        item = repo.get(item["reblog_of_id"])
    entries = repo.thread_entries(item.get("thread_id") or item["id"])
    statuses = repo.get_many([e["id"] for e in entries])
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
    visible_ids = {s["id"] for s in visibility.without_hidden(around,
                                                              relations.statuses(around))}
    # The viewer's `hide` filters for threads take statuses out of the conversation.
    rendered = status_views.render([s for s in around if s["id"] in visible_ids], viewer_id,
                                   relations=relations,
                                   matcher=filters.compiled(viewer_id, "thread"))
    view = relations.statuses(around)
    by_id = {r["id"]: r for r in rendered
             if not visibility.limited_hidden(r["account"]["id"], bool(r["account"].get("limited")),
                                              view)}
    return {"ancestors": [by_id[s["id"]] for s in ancestors if s["id"] in by_id],
            "descendants": [by_id[s["id"]] for s in descendants if s["id"] in by_id]}


def account_statuses(viewer_id: str | None, account_id: str, params: dict[str, Any],
                     page: Page) -> tuple[list[dict[str, Any]], list[str]]:
    """A page of an account's statuses and the ids its Link header uses (none for the pinned
    list, which is not paginated)."""
    from stratus.api.accounts import accounts as accounts_service

    accounts_service.get_account(account_id)  # 404 for unknown or hidden accounts
    relations = relationships.loader(viewer_id)
    if account_id in relations.accounts([account_id]).blocked_by:
        return [], []  # Mastodon: nothing of an account that blocks the viewer

    def truthy(name: str) -> bool:
        return flag(params.get(name))

    matcher = filters.compiled(viewer_id, "account")
    if truthy("pinned"):
        return pinned_statuses(viewer_id, account_id, relations, matcher), []
    tagged = formatter.normalize_tag(str(params["tagged"]).lstrip("#")) \
        if params.get("tagged") else None

    def hydrate(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = repo.get_many([e["id"] for e in entries])
        candidates = [found[e["id"]] for e in entries if e["id"] in found and
                      (not tagged or tagged in found[e["id"]].get("tags", []))]
        view = relations.statuses(candidates)
        return status_views.render([s for s in visibility.filter_visible(candidates, view)
                                    if not visibility.boosts_excluded(s, view)],
                                   viewer_id, relations=relations, matcher=matcher)

    # Replies, boosts and media are filtered by DynamoDB on the index entries; a hashtag is
    # checked on the statuses read (their index entries carry no tags).
    lo, hi = keys.id_range(*page.id_range())
    budget = Budget()
    entries = repo.account_status_entries(
        account_id, lo, hi, not page.ascending, budget=budget, step=page.step,
        exclude_replies=truthy("exclude_replies"), exclude_reblogs=truthy("exclude_reblogs"),
        only_media=truthy("only_media"))
    filled = fill_page(entries, hydrate, page, budget=budget, id_of=lambda e: e["id"],
                       result_id=lambda s: s["id"])
    return filled.items, filled.link_ids


def pinned_statuses(viewer_id: str | None, account_id: str,
                    relations: relationships.Loader,
                    matcher: filters.Matcher | None = None) -> list[dict[str, Any]]:
    pinned_ids = [e["status_id"] for e in repo.edge_entries(
        "GSI2", keys.edges_of("PIN", account_id), *keys.id_range(None, None), descending=True)]
    found = repo.get_many(pinned_ids)
    ordered = [found[s] for s in pinned_ids if s in found]
    return status_views.render(visibility.filter_visible(ordered, relations.statuses(ordered)),
                               viewer_id, relations=relations, matcher=matcher)


def source(viewer_id: str | None, status_id: str) -> dict[str, Any]:
    item = visible_item(status_id, viewer_id)
    return {"id": item["id"], "text": item.get("text", ""),
            "spoiler_text": item.get("spoiler_text", "")}


def history(viewer_id: str | None, status_id: str) -> list[dict[str, Any]]:
    from stratus.convert import statuses as convert

    item = visible_item(status_id, viewer_id)
    versions = repo.edits(item["id"]) or [{
        "content": item.get("content", ""), "spoiler_text": item.get("spoiler_text", ""),
        "sensitive": item.get("sensitive", False), "created_at": item["created_at"],
        "media_ids": item.get("media_ids", []), "poll_options": _poll_options(item)}]
    account = status_views.load_accounts([item["account_id"]])[item["account_id"]]
    media = repo.get_media([m for v in versions for m in v.get("media_ids", [])])
    return [convert.status_edit(v, account=account,
                                media=[convert.media_attachment(media[m])
                                       for m in v.get("media_ids", []) if m in media],
                                emojis=[]) for v in versions]


def _poll_options(item: dict[str, Any]) -> list[str] | None:
    if not item.get("poll_id"):
        return None
    poll = repo.get_poll(item["poll_id"])
    return list(poll["options"]) if poll else None


# --- writing -----------------------------------------------------------------------------------
MAX_RESOLVED_MENTIONS = 5  # unknown remote addresses looked up by WebFinger in one post


def _mentioned_accounts(parsed: formatter.Parsed) -> dict[tuple[str, str | None], dict[str, Any]]:
    """The accounts among the text's mentions, keyed as written (lower-cased): local ones by
    username, remote ones (`@user@host`) stored or, as Mastodon's ProcessMentionsService does,
    resolved by WebFinger now (at most MAX_RESOLVED_MENTIONS per post; an unreachable address
    stays plain text). A suspended account, local or remote, is left out as Mastodon's
    ProcessMentionsService leaves it: its `@handle` stays plain text, and with no mention it
    gets no notification and no delivery."""
    local = settings().domain.lower()
    wanted = {}
    lookups = 0
    for username, domain in parsed.mentions:
        key = (username.lower(), domain.lower() if domain else None)
        if domain is None or domain.lower() == local:
            account_id = accounts_repo.id_by_handle(username)
        else:
            account_id = accounts_repo.id_by_handle(username, domain)
            if account_id is None and lookups < MAX_RESOLVED_MENTIONS:
                from stratus.federation import remote_accounts

                lookups += 1
                found = remote_accounts.resolve_acct(f"{username}@{domain}")
                account_id = found["id"] if found else None
        if account_id:
            wanted[key] = account_id
    rendered = status_views.load_accounts(list(wanted.values()))
    return {key: rendered[aid] for key, aid in wanted.items()
            if aid in rendered and not rendered[aid].get("suspended")}


def render_text(text: str, content_type: str,
                mentions: dict[tuple[str, str | None], dict[str, Any]]) -> str:
    def lookup(username: str, domain: str | None):
        return mentions.get((username.lower(), domain.lower() if domain else None))

    def tag_url(name: str) -> str:
        return f"{settings().base_url}/tags/{name}"

    if content_type == "text/markdown":
        return formatter.render_markdown(text, lookup, tag_url)
    return formatter.render_plain(text, lookup, tag_url)


def validate_poll(raw: Any) -> dict[str, Any] | None:
    if raw in (None, "", {}):
        return None
    if not isinstance(raw, dict):
        raise _error("Poll is invalid")
    options = raw.get("options") or []
    if isinstance(options, dict):
        options = indexed_values(options)
    # Like Rails' `options: []`: an array of scalars, anything else is not there.
    options = options if isinstance(options, list) else []
    options = [str(o).strip() for o in options
               if isinstance(o, (str, int, float)) and not isinstance(o, bool) and str(o).strip()]
    if len(options) < 2:
        raise _error("Poll must have at least 2 options")
    if len(options) > limits.POLL_MAX_OPTIONS:
        raise _error(f"Poll can't contain more than {limits.POLL_MAX_OPTIONS} options")
    if any(len(o) > limits.POLL_MAX_CHARACTERS_PER_OPTION for o in options):
        raise _error(f"Poll options can't be longer than {limits.POLL_MAX_CHARACTERS_PER_OPTION} characters")
    if len(set(options)) != len(options):
        raise _error("Poll options must be unique")
    try:
        expires_in = int(raw.get("expires_in"))
    except (TypeError, ValueError):
        raise _error("Poll expiration can't be blank") from None
    if expires_in < limits.POLL_MIN_EXPIRATION:
        raise _error("Poll duration is too short")
    if expires_in > limits.POLL_MAX_EXPIRATION:
        raise _error("Poll duration is too long")
    return {"options": options, "expires_in": expires_in,
            "multiple": flag(raw.get("multiple")), "hide_totals": flag(raw.get("hide_totals"))}


def _media_ids(raw: Any) -> list[str]:
    if raw in (None, ""):
        return []
    values = raw if isinstance(raw, list) else [raw]
    return [str(v) for v in values if str(v).strip()]


def prepare(viewer: Viewer, params: dict[str, Any], *, for_schedule: bool = False
            ) -> dict[str, Any]:
    """Validate a new status's parameters; returns the normalised parameters."""
    text = params.get("status")
    text = text if isinstance(text, str) else ""
    spoiler = params.get("spoiler_text") if isinstance(params.get("spoiler_text"), str) else ""
    media_ids = _media_ids(params.get("media_ids"))
    poll = validate_poll(params.get("poll"))
    if not text.strip() and not media_ids and not poll:
        raise _error("Text can't be blank")
    if media_ids and poll:
        raise _error("Media attachments and polls cannot be combined")
    if len(media_ids) > limits.MAX_MEDIA_ATTACHMENTS:
        raise _error(f"Media attachments can't be more than {limits.MAX_MEDIA_ATTACHMENTS}")
    length = formatter.count_characters(text, settings().domain) + len(spoiler)
    if length > limits.MAX_STATUS_CHARACTERS:
        raise _error(f"Text character limit of {limits.MAX_STATUS_CHARACTERS} exceeded")
    user_settings = viewer.user.get("settings", {})
    visibility_ = params.get("visibility") or user_settings.get("default_privacy", "public")
    if visibility_ not in VISIBILITIES:
        raise _error("Visibility is not included in the list")
    content_type = params.get("content_type") or "text/plain"
    if content_type not in CONTENT_TYPES:
        raise _error("Content type is not supported")
    language = params.get("language") or user_settings.get("default_language") or None
    if language is not None and (not isinstance(language, str) or len(language) > 8):
        raise _error("Language is invalid")
    sensitive = flag(params.get("sensitive"), user_settings.get("default_sensitive", False))
    return {"status": text, "spoiler_text": spoiler, "media_ids": media_ids, "poll": poll,
            "visibility": visibility_, "content_type": content_type, "language": language,
            "sensitive": sensitive or bool(spoiler), "in_reply_to_id": params.get("in_reply_to_id"),
            "allowed_mentions": params.get("allowed_mentions")}


def _media_ops(viewer_id: str, media_ids: list[str], status_id: str,
               scheduled_id: str | None = None) -> list[base.Op]:
    """Attach media: only the owner's, only once (a scheduled post's own media may move on)."""
    found = repo.get_media([m for m in media_ids if ids.is_id(m)])
    missing = [m for m in media_ids if m not in found or found[m]["account_id"] != viewer_id]
    if missing:
        raise _error("Media attachments could not be found: " + ", ".join(missing))
    if any(found[m].get("processing") for m in media_ids):
        raise _error("Cannot attach files that have not finished processing. Try again in a moment!")
    taken = _error("Media attachments are already attached to a post")
    if any(found[m].get("status_id") or
           found[m].get("scheduled_status_id", scheduled_id) != scheduled_id for m in media_ids):
        raise taken
    condition = "account_id = :me AND attribute_not_exists(status_id) AND " + (
        "scheduled_status_id = :sched" if scheduled_id else
        "attribute_not_exists(scheduled_status_id)")
    vals = {":s": status_id, ":me": viewer_id, **({":sched": scheduled_id} if scheduled_id else {})}
    return [base.Op("Update", key=keys.media(m),
                    expression="SET status_id = :s REMOVE #ttl, scheduled_status_id",
                    condition=condition, names={"#ttl": "ttl"}, vals=vals, on_conflict=taken)
            for m in media_ids]


def build(viewer: Viewer, prepared: dict[str, Any], *, application: dict[str, Any] | None,
          status_id: str | None = None, scheduled_id: str | None = None
          ) -> tuple[dict[str, Any], list[base.Op]]:
    """The status item and every write that creating it takes (one transaction)."""
    account = viewer.account
    status_id = status_id or ids.new_id()
    parsed = formatter.parse(prepared["status"])
    mentions = _mentioned_accounts(parsed)
    mention_ids = list(dict.fromkeys(a["id"] for a in mentions.values()))
    allowed = prepared.get("allowed_mentions")
    if allowed is not None:
        allowed_ids = {str(a) for a in (allowed if isinstance(allowed, list) else [allowed])}
        unexpected = [a for a in mentions.values() if a["id"] not in allowed_ids]
        if unexpected:
            raise Unprocessable("Validation failed: Unexpected mentioned accounts",
                                extra={"unexpected_accounts": unexpected})
    parent = None
    if prepared.get("in_reply_to_id"):
        parent = visible_item(str(prepared["in_reply_to_id"]), viewer.account_id)
        if parent.get("reblog_of_id"):
            raise NotFound()
    emoji_codes = {e["shortcode"] for e in instance_repo.list_emojis()} if parsed.shortcodes else set()
    now = clock.now()
    username = account["username"]
    item: dict[str, Any] = {
        "id": status_id, "account_id": account["id"],
        "uri": f"{settings().base_url}/users/{username}/statuses/{status_id}",
        "url": f"{settings().base_url}/@{username}/{status_id}",
        "text": prepared["status"], "content_type": prepared["content_type"],
        "content": render_text(prepared["status"], prepared["content_type"], mentions),
        "spoiler_text": prepared["spoiler_text"], "visibility": prepared["visibility"],
        "sensitive": prepared["sensitive"], "language": prepared["language"],
        "in_reply_to_id": parent["id"] if parent else None,
        "in_reply_to_account_id": parent["account_id"] if parent else None,
        "thread_id": (parent.get("thread_id") or parent["id"]) if parent else status_id,
        "mention_ids": mention_ids,
        "tags": [formatter.normalize_tag(t) for t in parsed.tags],
        "emojis": [c for c in parsed.shortcodes if c in emoji_codes],
        "media_ids": prepared["media_ids"], "local": True,
        "application": application, "created_at": clock.iso(now),
    }
    ops = _media_ops(account["id"], prepared["media_ids"], status_id, scheduled_id) \
        if prepared["media_ids"] else []
    if prepared.get("poll"):
        poll = prepared["poll"]
        poll_id = ids.new_id()
        item["poll_id"] = poll_id
        expires_at = now + timedelta(seconds=poll["expires_in"])
        ops.append(polls_repo.create_op(polls_repo.poll_item(
            poll_id, status_id, account["id"], options=poll["options"],
            multiple=poll["multiple"], hide_totals=poll["hide_totals"],
            expires_at=clock.iso(expires_at))))
        item["_poll_expires_at"] = expires_at
    # The author's statuses_count and the parent's replies_count follow from the stream
    # (workers/counters.py): a reply to a busy thread touches no item other replies touch.
    ops += [base.put_new(repo.status_item({k: v for k, v in item.items()
                                           if not k.startswith("_")})),
            base.put_new(repo.stats_item(status_id))]
    return item, ops


def after_create(item: dict[str, Any]) -> None:
    """Timers a new status needs (poll expiry) — the write itself has committed."""
    if item.get("_poll_expires_at"):
        scheduler.schedule(f"poll-{item['poll_id']}", item["_poll_expires_at"],
                           jobs.PollExpired(poll_id=item["poll_id"]).to_dict())


def create(viewer: Viewer, params: dict[str, Any]) -> str:
    """Post a status now; returns its id."""
    prepared = prepare(viewer, params)
    from stratus.api.oauth import oauth

    app = oauth.get_app(viewer.token.get("client_id"))
    application = {"name": app["name"], "website": app.get("website")} if app else None
    item, ops = build(viewer, prepared, application=application)
    base.transact(ops)
    after_create(item)
    if item.get("tags"):  # search: a tag is searchable as soon as it is used (Mastodon makes
        from stratus.api.search import (
            search,  # the Tag in the request); the search worker does it for the rest
        )

        search.index_tags(item["tags"])
    return item["id"]


def post(viewer: Viewer, params: dict[str, Any], idempotency_key: str | None,
         lambda_context: Any = None) -> dict[str, Any]:
    """POST /api/v1/statuses: a Status now, or a ScheduledStatus when `scheduled_at` is given."""
    if params.get("scheduled_at"):
        from stratus.api.statuses import scheduled

        return scheduled.create(viewer, params, params["scheduled_at"])
    status_id = create_idempotent(viewer, params, idempotency_key, lambda_context)
    return show(viewer.account_id, status_id)


def create_idempotent(viewer: Viewer, params: dict[str, Any], key: str | None,
                      lambda_context: Any = None) -> str:
    """With an Idempotency-Key, the same key from the same user within an hour returns the
    same status (Powertools idempotency on the Idempotency table)."""
    if not key:
        return create(viewer, params)
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
    )

    run, config = _idempotent_create()
    if lambda_context is not None:
        config.register_lambda_context(lambda_context)
    # A duplicate that arrives while the first request is still posting waits for its result
    # (or, if the first one fails, posts itself); after a few seconds it is told to retry.
    for _ in range(IDEMPOTENCY_WAITS):
        try:
            return run(request={"account_id": viewer.account_id, "key": key}, viewer=viewer,
                       params=params)
        except IdempotencyAlreadyInProgressError:
            time.sleep(IDEMPOTENCY_WAIT_SECONDS)
    raise Busy("A request with this Idempotency-Key is still in progress; try again in a moment")


_idempotent = None
IDEMPOTENCY_WAITS = 12
IDEMPOTENCY_WAIT_SECONDS = 0.25


def _idempotent_create():
    global _idempotent
    if _idempotent is None:
        from aws_lambda_powertools.utilities.idempotency import (
            IdempotencyConfig,
            idempotent_function,
        )

        from stratus.repo.idempotency import persistence_layer

        persistence = persistence_layer()
        config = IdempotencyConfig(event_key_jmespath="[account_id, key]",
                                   expires_after_seconds=3600)

        @idempotent_function(data_keyword_argument="request", persistence_store=persistence,
                             config=config)
        def run(request: dict, viewer: Viewer, params: dict) -> str:
            return create(viewer, params)

        _idempotent = (run, config)
    return _idempotent


def own_item(viewer: Viewer, status_id: str) -> dict[str, Any]:
    item = repo.get(status_id) if ids.is_id(str(status_id)) else None
    if item is None or item["account_id"] != viewer.account_id or item.get("reblog_of_id"):
        raise NotFound()
    return item


def delete(viewer: Viewer, status_id: str) -> dict[str, Any]:
    """Delete an own status; returns it with `text` (and its poll/media) for delete-and-redraft."""
    item = own_item(viewer, status_id)
    entity = status_views.render_one(item, viewer.account_id)
    entity["text"] = item.get("text", "")
    entity["spoiler_text"] = item.get("spoiler_text", "")
    pinned = interactions_repo.edge(interactions_repo.PIN, viewer.account_id,
                                    status_id) is not None
    # Counters, others' likes, boosts and bookmarks, notifications and edits of it follow
    # from the stream (the outbox's status removal rule).
    ops = [base.Op("Delete", key=keys.status(status_id), condition="attribute_exists(PK)",
                   on_conflict=NotFound()),
           base.Op("Delete", key=keys.status_stats(status_id))]
    if pinned:
        ops += interactions_repo.unpin_ops(viewer.account_id, status_id)
    # Media goes back to the unattached pool (kept for a redraft, expires if unused).
    expiry = int((clock.now() + timedelta(days=1)).timestamp())
    for media_id in item.get("media_ids", []):
        ops.append(base.Op("Update", key=keys.media(media_id),
                           expression="REMOVE status_id SET #ttl = :ttl",
                           names={"#ttl": "ttl"}, vals={":ttl": expiry}))
    if item.get("poll_id"):
        ops.append(polls_repo.remove_op(item["poll_id"]))
    base.transact(ops)
    if item.get("poll_id"):
        scheduler.cancel(f"poll-{item['poll_id']}")
    return entity


def edit(viewer: Viewer, status_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """PUT /api/v1/statuses/:id: new text, spoiler, sensitivity, language, poll and media
    descriptions; attachments cannot be swapped. The first edit also records the original."""
    item = own_item(viewer, status_id)
    merged = {"status": params.get("status", item.get("text", "")),
              "spoiler_text": params.get("spoiler_text", item.get("spoiler_text", "")),
              "media_ids": params.get("media_ids", item.get("media_ids", [])),
              "poll": params.get("poll"), "visibility": item["visibility"],
              "content_type": params.get("content_type", item.get("content_type", "text/plain")),
              "language": params.get("language", item.get("language")),
              "sensitive": params.get("sensitive", item.get("sensitive", False))}
    prepared = prepare(viewer, merged)
    if sorted(prepared["media_ids"]) != sorted(item.get("media_ids", [])):
        raise _error("Media attachments cannot be changed when editing")
    parsed = formatter.parse(prepared["status"])
    mentions = _mentioned_accounts(parsed)
    now = clock.now()
    changes: dict[str, Any] = {
        "text": prepared["status"], "content_type": prepared["content_type"],
        "content": render_text(prepared["status"], prepared["content_type"], mentions),
        "spoiler_text": prepared["spoiler_text"], "sensitive": prepared["sensitive"],
        "language": prepared["language"], "tags": [formatter.normalize_tag(t) for t in parsed.tags],
        "mention_ids": list(dict.fromkeys(list(item.get("mention_ids", [])) +
                                          [a["id"] for a in mentions.values()])),
        "edited_at": clock.iso(now)}
    if prepared["status"] != item.get("text"):
        changes["card_url"] = None  # cards: a new text's card comes from the cards worker
    ops: list[base.Op] = []
    media_attributes = params.get("media_attributes") or []
    if isinstance(media_attributes, dict):
        media_attributes = list(media_attributes.values())
    attached = repo.get_media(item.get("media_ids", [])) if media_attributes else {}
    for attributes in media_attributes if isinstance(media_attributes, list) else []:
        if not isinstance(attributes, dict) or str(attributes.get("id")) not in attached:
            continue
        from stratus.api.media import media

        op = media.attribute_op(attached[str(attributes["id"])], attributes)
        if op is not None:
            ops.append(op)
    old_poll_options = _poll_options(item)
    if prepared["poll"] and prepared["poll"]["options"] != old_poll_options:
        poll = prepared["poll"]
        poll_id = ids.new_id()
        expires_at = now + timedelta(seconds=poll["expires_in"])
        if item.get("poll_id"):
            ops.append(polls_repo.remove_op(item["poll_id"]))
        ops.append(polls_repo.create_op(polls_repo.poll_item(
            poll_id, status_id, viewer.account_id, options=poll["options"],
            multiple=poll["multiple"], hide_totals=poll["hide_totals"],
            expires_at=clock.iso(expires_at))))
        changes["poll_id"] = poll_id
    new_options = prepared["poll"]["options"] if prepared["poll"] else old_poll_options
    snapshot = lambda data, at, options: {  # noqa: E731
        "type": "status_edit", "content": data["content"], "spoiler_text": data["spoiler_text"],
        "sensitive": data["sensitive"], "created_at": at, "media_ids": item.get("media_ids", []),
        "poll_options": options}
    if not repo.edits(status_id):
        first_id = ids.id_at(clock.parse_iso(item["created_at"]).timestamp().__int__() * 1000)
        ops.append(base.Op("Put", item={**keys.status_edit(status_id, first_id),
                                        **snapshot(item, item["created_at"], old_poll_options)}))
    ops.append(base.Op("Put", item={**keys.status_edit(status_id, ids.new_id()),
                                    **snapshot(changes, changes["edited_at"], new_options)}))
    ops.append(base.set_op(keys.status(status_id), changes))
    base.transact(ops)
    if changes.get("poll_id"):
        if item.get("poll_id"):
            scheduler.cancel(f"poll-{item['poll_id']}")
        scheduler.schedule(f"poll-{changes['poll_id']}",
                           now + timedelta(seconds=prepared["poll"]["expires_in"]),
                           jobs.PollExpired(poll_id=changes["poll_id"]).to_dict())
    return show(viewer.account_id, status_id)
