"""Stream worker: the outbox's streaming jobs turned into events and posted to the
connections that listen (functions/workers/stream), one message per connection and stream,
exactly as Mastodon's streaming server frames them (convert/streaming.py); a revoked token's
connections closed.

Public and hashtag streams carry what FanOutOnWriteService broadcasts (public statuses that
are not boosts; replies to others stay off the public streams but reach the hashtag ones),
rendered once without a viewer and dropped per subscriber who blocks or mutes the author or a
mentioned account, is blocked by the author, or blocks the author's domain. Home and list
events are rendered for their recipient (the fan-out worker already applied FeedManager's
rules when it chose them). Who may listen to what is api/streaming/streaming.py's.
"""

from __future__ import annotations

import contextvars
import hashlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from stratus.convert import instance as convert_instance
from stratus.convert.streaming import dumps, frame
from stratus.jobs import messages as jobs
from stratus.model.relationships import Relationships
from stratus.read import (
    announcements,
    conversations,
    filters,
    notifications,
    relationships,
    status_views,
)
from stratus.repo import announcements as announcements_repo
from stratus.repo import connections, feeds
from stratus.repo import conversations as conversations_repo
from stratus.repo import instance as instance_repo
from stratus.repo import notifications as notifications_repo
from stratus.repo import statuses as statuses_repo
from stratus.workers import fanout

FOLLOWERS_PAGE = 1000
PARALLEL_POSTS = 16


# --- delivery ----------------------------------------------------------------------------------
def for_recipient(status: dict[str, Any], matcher: filters.Matcher) -> dict[str, Any] | None:
    """A status rendered once for everyone (public and hashtag streams), prepared for one
    recipient: their filters for the stream's context mark it (`filtered`) or, with `hide`,
    keep it from them (None). Blocks and mutes are decided before this is called."""
    kept = matcher.keep([status])
    return kept[0] if kept else None


def _post_all(messages: list[tuple[str, str]], owners: dict[str, str] | None = None) -> int:
    """Post (connection id, message) pairs, several at a time; gone connections are forgotten
    (`owners`: connection id → account, to clear a presence entry whose connection item is
    already gone). Returns how many posts were made."""
    if not messages:
        return 0
    if len(messages) == 1:
        results = [connections.post(*messages[0])]
    else:
        context = contextvars.copy_context()  # the invocation's identity goes along

        def post(pair: tuple[str, str]) -> bool:
            return context.copy().run(connections.post, *pair)

        with ThreadPoolExecutor(max_workers=min(PARALLEL_POSTS, len(messages))) as pool:
            results = list(pool.map(post, messages))
    gone = {cid for (cid, _), ok in zip(messages, results) if not ok}
    for connection_id in gone:
        connection = connections.get(connection_id)
        if connection is not None:
            connections.remove(connection)
        elif owners and connection_id in owners:
            connections.drop_presence(owners[connection_id], connection_id)
    return len(messages)


def excluded(status: dict[str, Any], relations: Relationships) -> bool:
    """Mastodon's per-subscriber check on the public and hashtag streams: the subscriber blocks
    or mutes the author or a mentioned account, the author blocks the subscriber, or the
    subscriber blocks the author's domain."""
    involved = [status["account_id"], *status.get("mention_ids", [])]
    return (any(a in relations.blocking or a in relations.muting for a in involved)
            or status["account_id"] in relations.blocked_by
            or relations.blocks_domain(status.get("account_domain")))


def public_keys(job: jobs.StreamStatus) -> list[str]:
    """The instance-wide streams a status goes to (FanOutOnWriteService: broadcast_to_hashtag_
    streams!, broadcast_to_public_streams!)."""
    if job.visibility != "public" or job.reblog:
        return []
    found = []
    for tag in dict.fromkeys(t.lower() for t in job.tags):
        found.append(connections.stream_key("hashtag", tag))
        if job.local:
            found.append(connections.stream_key("hashtag:local", tag))
    if not (job.in_reply_to_id and job.in_reply_to_account_id != job.account_id):
        where = "public:local" if job.local else "public:remote"
        found += ["public", where]
        if job.has_media:
            found += ["public:media", where + ":media"]
    return found


def _payload(entity: dict[str, Any]) -> str:
    return dumps(entity)


def stream_status(job: jobs.StreamStatus) -> int:
    """A public status to the public and hashtag streams; an edit also to the homes that hold
    it (Mastodon's status.update reaches followers whose feed has it)."""
    posted = 0
    subscribers = [s for key in public_keys(job) for s in connections.listeners(key)]
    item = statuses_repo.get(job.status_id) if job.event != "delete" else None
    if job.event == "delete":
        posted += _post_all([(s["connection_id"], frame(list(s["stream"]), "delete",
                                                        job.status_id)) for s in subscribers])
    elif item is not None and subscribers:
        rendered = status_views.render([item], None)
        if rendered:
            posted += _post_all(_public_messages(job.event, item, rendered[0], subscribers))
    if job.event == "status.update" and item is not None:
        posted += _edit_to_homes(item) + _edit_to_lists(item)
    return posted


def _public_messages(event: str, item: dict[str, Any], entity: dict[str, Any],
                     subscribers: list[dict[str, Any]]) -> list[tuple[str, str]]:
    views: dict[str, Relationships] = {}
    matchers: dict[str, filters.Matcher] = {}
    messages = []
    for subscriber in subscribers:
        account = subscriber["account_id"]
        if account not in views:
            views[account] = relationships.loader(account).accounts(
                [item["account_id"], *item.get("mention_ids", [])],
                [item["account_domain"]] if item.get("account_domain") else [])
        if excluded(item, views[account]):
            continue
        if account not in matchers:
            matchers[account] = filters.compiled(account, "public")
        prepared = for_recipient(entity, matchers[account])
        if prepared is not None:
            messages.append((subscriber["connection_id"],
                             frame(list(subscriber["stream"]), event, _payload(prepared))))
    return messages


def _edit_to_homes(item: dict[str, Any]) -> int:
    """status.update for the author and the followers whose home holds the status and who
    are listening: followers a page at a time, one presence read per hundred."""
    author, posted, after = item["account_id"], 0, None
    first = True
    while True:
        page, after = feeds.followers_page(author, after, FOLLOWERS_PAGE)
        if first:
            page, first = [author, *page], False
        listening = {a: s for a, s in connections.account_listeners(page).items()
                     if s.get("user")}
        if listening:
            holding = feeds.present([(feeds.home(a), item["id"]) for a in listening],
                                    markers=False)
            owners = [a for a in listening if (feeds.home(a), item["id"]) in holding]
            posted += _to_accounts("status.update", item, {a: listening[a] for a in owners},
                                   "user")
        if after is None:
            return posted


def _edit_to_lists(item: dict[str, Any]) -> int:
    """status.update on the list streams of lists that hold the status (the author's lists
    whose owner is listening to that list), as Mastodon's fan-out of an edit does."""
    targets, _ = fanout.author_lists(item["account_id"])
    if not targets:
        return 0
    listening = connections.account_listeners(sorted({t["owner_id"] for t in targets}))
    wanted = [t for t in targets
              if listening.get(t["owner_id"], {}).get(connections.stream_key("list", t["id"]))]
    if not wanted:
        return 0
    holding = feeds.present([(feeds.of_list(t["id"]), item["id"]) for t in wanted],
                            markers=False)
    posted = 0
    for listed in wanted:
        if (feeds.of_list(listed["id"]), item["id"]) in holding:
            stream = connections.stream_key("list", listed["id"])
            posted += _to_accounts("status.update", item,
                                   {listed["owner_id"]: listening[listed["owner_id"]]}, stream)
    return posted


def _to_accounts(event: str, item: dict[str, Any], listening: dict[str, dict[str, set[str]]],
                 key: str, context: str = "home") -> int:
    """Render `item` for each listening account and post it on their `key` stream (what
    does not depend on the recipient is read once for all of them)."""
    messages = []
    shared: status_views.Shared = {}
    for account, streams in listening.items():
        targets = streams.get(key) or set()
        if not targets:
            continue
        # Rendered for the recipient with their filters for the context: `hide` keeps it
        # from them, `warn`/`blur` mark it.
        rendered = status_views.render([item], account,
                                       matcher=filters.compiled(account, context),
                                       shared=shared)
        if not rendered:
            continue
        prepared = rendered[0]
        data = frame(connections.stream_of(key), event, _payload(prepared))
        messages += [(cid, data) for cid in sorted(targets)]
    return _post_all(messages, {cid: a for a, s in listening.items()
                                for cid in s.get(key) or ()})


def _owners(listening: dict[str, dict[str, set[str]]]) -> dict[str, str]:
    return {cid: account for account, streams in listening.items()
            for cids in streams.values() for cid in cids}


def stream_to_feeds(job: jobs.StreamToFeeds) -> int:
    """What fan-out put into (or took out of) homes and lists, to their listening owners."""
    owners = {listed["owner_id"] for listed in job.lists}
    listening = connections.account_listeners([*job.receivers, *owners])
    if not listening:
        return 0
    homes = {a: listening[a] for a in job.receivers if a in listening}
    lists = [(listed, listening[listed["owner_id"]]) for listed in job.lists
             if listed["owner_id"] in listening]
    if job.event == "delete":
        messages = [(cid, frame(["user"], "delete", job.status_id))
                    for streams in homes.values() for cid in sorted(streams.get("user", ()))]
        messages += [(cid, frame(["list", listed["id"]], "delete", job.status_id))
                     for listed, streams in lists
                     for cid in sorted(streams.get(connections.stream_key("list", listed["id"]),
                                                   ()))]
        return _post_all(messages, _owners(listening))
    item = statuses_repo.get(job.status_id)
    if item is None:
        return 0
    posted = _to_accounts("update", item, homes, "user")
    for listed, streams in lists:
        posted += _to_accounts("update", item, {listed["owner_id"]: streams},
                               connections.stream_key("list", listed["id"]))
    return posted


def stream_notification(job: jobs.StreamNotification) -> int:
    streams = connections.account_listeners([job.account_id]).get(job.account_id, {})
    targets = [(key, cid) for key in (connections.USER_WITH_NOTIFICATIONS, "user:notification")
               for cid in sorted(streams.get(key, ()))]
    if not targets:
        return 0
    item = notifications_repo.get(job.account_id, job.notification_id)
    rendered = notifications.render_for(job.account_id, [item]) if item else []
    if not rendered:
        return 0
    payload = _payload(rendered[0])  # a status a `hide` filter removes drops the notification
    return _post_all([(cid, frame(connections.stream_of(key), "notification", payload))
                      for key, cid in targets], {cid: job.account_id for _, cid in targets})


def stream_conversation(job: jobs.StreamConversation) -> int:
    streams = connections.account_listeners([job.account_id]).get(job.account_id, {})
    targets = sorted(streams.get("direct", ()))
    if not targets:
        return 0
    item = conversations_repo.get(job.account_id, job.conversation_id)
    rendered = conversations.render_for(job.account_id, [item]) if item else []
    if not rendered:
        return 0
    payload = _payload(rendered[0])
    return _post_all([(cid, frame(["direct"], "conversation", payload)) for cid in targets],
                     {cid: job.account_id for cid in targets})


def stream_filters_changed(job: jobs.StreamFiltersChanged) -> int:
    streams = connections.account_listeners([job.account_id]).get(job.account_id, {})
    targets = sorted(streams.get("user", ()))
    return _post_all([(cid, frame(["user"], "filters_changed")) for cid in targets],
                     {cid: job.account_id for cid in targets})


def close_connections(job: jobs.CloseConnections) -> int:
    """A revoked token's connections end (Mastodon closes them on revocation)."""
    doomed = [c for c in connections.of_account(job.account_id)
              if str(c.get("token_id")) == str(job.token_id)]
    for connection in doomed:
        connections.close(connection["connection_id"])
        connections.remove(connection)
    return len(doomed)


# --- announcements -------------------------------------------------------------
def _announce(event: str, payload: str) -> int:
    """One event to every `user` stream (Mastodon: each active account's timeline channel)."""
    subscribers = connections.listeners(connections.ANNOUNCEMENTS)
    return _post_all([(s["connection_id"], frame(list(s["stream"]), event, payload))
                      for s in subscribers],
                     {s["connection_id"]: s["account_id"] for s in subscribers})


def stream_announcement(job: jobs.StreamAnnouncement) -> int:
    """`announcement`: the announcement rendered once without a viewer (no `read`, no `me`),
    as it is now (gone or unpublished meanwhile: nothing); `announcement.delete`: its id."""
    if job.event == "announcement.delete":
        return _announce(job.event, job.announcement_id)
    item, reactions = announcements_repo.with_reactions(job.announcement_id)
    if item is None or not item.get("published"):
        return 0
    entity = announcements.render([item], {job.announcement_id: reactions}, viewer_id=None)[0]
    return _announce(job.event, _payload(entity))


def stream_announcement_reaction(job: jobs.StreamAnnouncementReaction) -> int:
    """`announcement.reaction`: {name, count, announcement_id} (and the custom emoji's urls),
    the count as the counters worker left it."""
    payload: dict[str, Any] = {"name": job.reaction, "count": max(job.count, 0)}
    if job.custom_emoji:
        found = instance_repo.get_emoji(job.custom_emoji)
        if found:
            emoji_entity = convert_instance.custom_emoji(found)
            payload.update(url=emoji_entity["url"], static_url=emoji_entity["static_url"])
    payload["announcement_id"] = job.announcement_id
    return _announce("announcement.reaction", _payload(payload))


HANDLERS = {jobs.StreamStatus: stream_status, jobs.StreamToFeeds: stream_to_feeds,
            jobs.StreamNotification: stream_notification,
            jobs.StreamConversation: stream_conversation,
            jobs.StreamFiltersChanged: stream_filters_changed,
            jobs.CloseConnections: close_connections,
            jobs.StreamAnnouncement: stream_announcement,
            jobs.StreamAnnouncementReaction: stream_announcement_reaction}


def handle(job: jobs.Job) -> int:
    """Run a stream job once: a job delivered again after it succeeded (SQS is at-least-once;
    fan-out may send the same batch twice) posts nothing again. A job that fails gives its
    claim back, so its retry posts (what the failed attempt already posted may then arrive
    twice). Closing a revoked token's connections is idempotent and always runs."""
    handler = HANDLERS.get(type(job))
    if handler is None:
        raise ValueError(f"not a streaming job: {job.name}")
    if isinstance(job, jobs.CloseConnections):
        return handler(job)
    claim = hashlib.sha256(dumps(job.to_dict()).encode()).hexdigest()
    if not connections.claim("stream", claim):
        return 0
    try:
        return handler(job)
    except Exception:
        connections.release("stream", claim)
        raise
