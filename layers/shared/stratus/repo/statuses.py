"""Statuses, their stats and edit history, viewer edges, polls, media, scheduled statuses."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from stratus.core import parallel
from stratus.core.paging import Budget
from stratus.model.edges import ViewerEdges
from stratus.model.statuses import Edit, Media, Poll, Status, StatusStats, Vote
from stratus.repo import base, keys

STATUS, STATS = "STATUS", "STATS"


def status_item(status: dict[str, Any]) -> dict[str, Any]:
    """The item of a status, with the flags its index entries are filtered by (projected into
    the GSIs): a reply to someone else, a boost, media attached. Public statuses that are not
    boosts are in their scope's public timeline (GSI3)."""
    flags = {"is_reply": bool(status.get("in_reply_to_id")) and
             status.get("in_reply_to_account_id") != status["account_id"],
             "is_reblog": bool(status.get("reblog_of_id")),
             "has_media": bool(status.get("media_ids"))}
    public = status.get("visibility") == "public" and not status.get("reblog_of_id")
    scope = ("LOCAL" if status.get("local", True) else "REMOTE") if public else None
    return {**keys.status(status["id"]), "type": "status",
            **keys.status_index_keys(status["account_id"], status["id"], status["thread_id"],
                                     scope), **status, **flags}


def stats_item(status_id: str) -> dict[str, Any]:
    return {**keys.status_stats(status_id), "type": "status_stats", "replies_count": 0,
            "reblogs_count": 0, "favourites_count": 0}


def get_many(status_ids: list[str]) -> dict[str, Status]:
    """{id: status item with `stats`} for the ids that exist, in one batched read."""
    wanted = [k for sid in dict.fromkeys(status_ids)
              for k in (keys.status(sid), keys.status_stats(sid))]
    found: dict[str, dict[str, Any]] = {}
    stats: dict[str, dict[str, Any]] = {}
    for item in base.batch_get(wanted):
        sid = keys.id_in(item["PK"])
        if item["SK"] == STATUS:
            found[sid] = base.record(item)
        else:
            stats[sid] = base.record(item)
    for sid, item in found.items():
        item["stats"] = stats.get(sid, {})
    return found


def get(status_id: str) -> Status | None:
    return get_many([status_id]).get(status_id)


def _listing_filter(*, exclude_replies: bool = False, exclude_reblogs: bool = False,
                    only_media: bool = False) -> base.Filter | None:
    parts: list[str] = []
    names: dict[str, str] = {}
    vals: dict[str, Any] = {}
    for wanted, attribute, alias in ((exclude_replies, "is_reply", "#reply"),
                                     (exclude_reblogs, "is_reblog", "#reblog")):
        if wanted:
            parts.append(f"(attribute_not_exists({alias}) OR {alias} = :no)")
            names[alias], vals[":no"] = attribute, False
    if only_media:
        parts.append("#media = :yes")
        names["#media"], vals[":yes"] = "has_media", True
    return (" AND ".join(parts), names, vals) if parts else None


def account_status_entries(account_id: str, lo: str, hi: str, descending: bool, *,
                           budget: Budget, step: int, exclude_replies: bool = False,
                           exclude_reblogs: bool = False, only_media: bool = False
                           ) -> Iterator[Status]:
    """An account's statuses (index entries), the listing's filters applied by DynamoDB."""
    return base.records(base.query(
        keys.account_statuses(account_id), index="GSI1", sk_between=(lo, hi),
        descending=descending, budget=budget, step=step,
        filter=_listing_filter(exclude_replies=exclude_replies, exclude_reblogs=exclude_reblogs,
                               only_media=only_media)))


def recent_status_entries(account_id: str, limit: int) -> list[Status]:
    """An account's newest `limit` statuses (index entries)."""
    return list(base.records(base.query(keys.account_statuses(account_id), index="GSI1",
                                        descending=True, limit=limit)))


def thread_entries(thread_id: str) -> list[Status]:
    return list(base.records(base.query(keys.thread(thread_id), index="GSI2")))


def thread_entries_after(thread_id: str, after_id: str) -> Iterator[Status]:
    """A thread's index entries with ids above `after_id`, oldest first, read as they are
    consumed."""
    return base.records(base.query(keys.thread(thread_id), index="GSI2",
                                   sk_between=keys.id_range(int(after_id) + 1, None)))


def edits(status_id: str) -> list[Edit]:
    return list(base.records(base.query(keys.status_pk(status_id),
                                        sk_prefix=keys.EDIT_PREFIX)))


EDGES_IN_RANGE = 100  # a kind's edges one Query reads over a page's id range


def viewer_edges(viewer_id: str, statuses: list[dict[str, Any]]) -> ViewerEdges:
    """The viewer's favourites, boosts, bookmarks, pins and muted threads among a page's
    statuses: one round trip, a Query per kind over the page's id range in the viewer's
    partition (a page's five point keys per status mostly name edges that do not exist, each
    still charged); a kind with more than `EDGES_IN_RANGE` edges in that range (a page that
    spans a long time) reads its point keys instead."""
    status_ids = {s["id"] for s in statuses}
    thread_ids = {s.get("thread_id") or s["id"] for s in statuses}
    kinds = [(keys.FAV, status_ids, keys.favourite), (keys.BOOKMARK, status_ids, keys.bookmark),
             (keys.REBLOG, status_ids, keys.reblog_edge), (keys.PIN, status_ids, keys.pin),
             (keys.MUTED_THREAD, thread_ids, keys.muted_thread)]

    def of_kind(prefix: str, wanted: set[str], point: Any) -> list[dict[str, Any]]:
        low, high = min(wanted, key=int), max(wanted, key=int)
        found = list(base.query(keys.account_pk(viewer_id),
                                sk_between=(prefix + keys.pad(low), prefix + keys.pad(high)),
                                limit=EDGES_IN_RANGE + 1))
        if len(found) > EDGES_IN_RANGE:
            found = base.batch_get([point(viewer_id, w) for w in wanted])
        return [item for item in found if keys.id_in(item["SK"]) in wanted]

    edges = ViewerEdges()
    if not statuses:
        return edges
    sets = {keys.FAV: edges.favourited, keys.REBLOG: edges.reblogged,
            keys.BOOKMARK: edges.bookmarked, keys.PIN: edges.pinned,
            keys.MUTED_THREAD: edges.muted_threads}
    uncounted = {keys.FAV: "favourites_count", keys.REBLOG: "reblogs_count"}
    for (kind, _, _), items in zip(kinds, parallel.gather(*[lambda k=k: of_kind(*k)
                                                         for k in kinds]), strict=True):
        for item in items:
            status_id = keys.id_in(item["SK"])
            sets[kind].add(status_id)
            if kind in uncounted and not (item.get("counted") or item.get("tallied")):
                edges.expect(status_id, uncounted[kind], 1)
    return edges


def follows(follower_id: str, followed_ids: list[str]) -> set[str]:
    """Which of `followed_ids` the follower follows (base-table reads: never stale)."""
    if not followed_ids:
        return set()
    items = base.batch_get([keys.follow(follower_id, f) for f in dict.fromkeys(followed_ids)])
    return {keys.id_in(i["SK"]) for i in items}


def edge(key: dict[str, str]) -> dict[str, Any] | None:
    return base.get(key, consistent=True)


def edge_entries(index: str, partition: str, lo: str, hi: str, descending: bool, *,
                 budget: Budget | None = None, step: int = 100) -> Iterator[dict[str, Any]]:
    return base.records(base.query(partition, index=index, sk_between=(lo, hi),
                                   descending=descending, budget=budget, step=step))


def get_poll(poll_id: str) -> Poll | None:
    return base.record(base.get(keys.poll(poll_id), consistent=True))


def get_polls_and_votes(poll_ids: list[str], viewer_id: str | None
                        ) -> tuple[dict[str, Poll], dict[str, Vote]]:
    wanted = [keys.poll(p) for p in poll_ids]
    if viewer_id:
        wanted += [keys.poll_vote(p, viewer_id) for p in poll_ids]
    polls, votes = {}, {}
    for item in base.batch_get(wanted):
        poll_id = keys.id_in(item["PK"])
        (polls if item["SK"] == "POLL" else votes)[poll_id] = base.record(item)
    return polls, votes


def get_media(media_ids: list[str]) -> dict[str, Media]:
    return {item["id"]: base.record(item)
            for item in base.batch_get([keys.media(m) for m in media_ids])}


def put_media(item: dict[str, Any]) -> None:
    base.put({**keys.media(item["id"]), "type": "media_attachment", **item})


def delete_media(media_id: str) -> None:
    base.delete(keys.media(media_id))


def tag_status_ids(name: str, lo: str, hi: str) -> list[str]:
    partition, bounds = keys.tagged_range(name, lo, hi)
    return [keys.id_in(i["SK"]) for i in base.query(partition, sk_between=bounds,
                                                      descending=True)]


# --- timelines read from the index ----------------------------------------------------------------
def _flags_filter(*, only_media: bool = False, local: bool | None = None,
                  public_only: bool = False) -> base.Filter | None:
    parts: list[str] = []
    names: dict[str, str] = {}
    vals: dict[str, Any] = {}
    if only_media:
        parts.append("#media = :yes")
        names["#media"], vals[":yes"] = "has_media", True
    if local is not None:
        parts.append("#local = :local")
        names["#local"], vals[":local"] = "local", local
    if public_only:
        parts.append("#visibility = :public")
        names["#visibility"], vals[":public"] = "visibility", "public"
    return (" AND ".join(parts), names, vals) if parts else None


def public_bucket_entries(scope: str, hour: str, low: int, high: int, descending: bool, *,
                          limit: int, only_media: bool, budget: Budget) -> list[Status]:
    """The public statuses of one hour of a scope with ids in [low, high], newest (or, not
    `descending`, oldest) `limit` of them, merged across the hour's shards (read at once)."""
    lo, hi = keys.pad(low), keys.pad(high)

    def shard(number: int) -> list[Status]:
        return list(base.records(base.query(
            keys.public_partition(scope, hour, number), index="GSI3", sk_between=(lo, hi),
            descending=descending, limit=limit, budget=budget, step=limit,
            filter=_flags_filter(only_media=only_media))))

    found = [e for part in parallel.gather(*[lambda n=n: shard(n)
                                            for n in range(keys.PUBLIC_SHARDS)]) for e in part]
    found.sort(key=lambda e: int(e["id"]), reverse=descending)
    return found[:limit]


def public_hours(scope: str, low: int, high: int, descending: bool, limit: int,
                 after: str | None = None) -> list[str]:
    """The hours a scope's public statuses with ids in [low, high] may be in, in walking order:
    the edge's own hour (newest, or, not `descending`, oldest), then up to `limit - 1` further
    hours that have public statuses (one Query). `after`: the last hour an earlier call gave;
    the next `limit` hours that have statuses after it."""
    first, last = keys.public_hour(high), keys.public_hour(low)
    edge, bound = (first, last) if descending else (last, first)
    start = after or edge
    span = (bound, start) if descending else (start, bound)
    hours = [] if after else [edge]
    for item in base.query(keys.public_hours(scope), sk_between=span, descending=descending,
                           limit=limit + 1):
        if item["SK"] != start:
            hours.append(item["SK"])
    return hours[:limit]


def newest_public_hours(scope: str, limit: int) -> list[str]:
    """The newest `limit` hours of a scope that have public statuses, newest first (one
    Query of the directory)."""
    return [item["SK"] for item in base.query(keys.public_hours(scope), descending=True,
                                              limit=limit)]


def hour_before(hour: str) -> str:
    """The public timeline bucket an hour before `hour`."""
    moment = datetime.strptime(hour, "%Y%m%d%H") - timedelta(hours=1)
    return moment.strftime("%Y%m%d%H")


def edge_public_hour(low: int, high: int, descending: bool) -> str:
    """The hour a public walk over ids in [low, high] starts in (before `public_hours` says
    which others have statuses)."""
    return keys.public_hour(high) if descending else keys.public_hour(low)


def public_hour(status_id: str) -> str:
    """The hour (`yyyymmddhh`, UTC) a status id was minted in: its public timeline bucket."""
    return keys.public_hour(status_id)


def register_public_hour(scope: str, hour: str) -> None:
    base.put({**keys.public_hour_entry(scope, hour), "type": "public_hour"})


def tag_entries(name: str, low: int | None, high: int | None, descending: bool, *,
                only_media: bool, local: bool | None, budget: Budget, step: int
                ) -> Iterator[Status]:
    """A hashtag's public statuses with ids in [low, high] (None: unbounded; index entries,
    `{"id": status id, ...}`)."""
    partition, bounds = keys.tagged_range(name, *keys.id_range(low, high))
    for item in base.query(partition, sk_between=bounds, descending=descending, budget=budget,
                           step=step, filter=_flags_filter(only_media=only_media, local=local,
                                                           public_only=True)):
        yield {**base.record(item), "id": item["status_id"]}


def bodies(status_ids: list[str]) -> dict[str, Status]:
    """{id: status item} without counters (for a caller that read them already)."""
    found = base.batch_get([keys.status(sid) for sid in dict.fromkeys(status_ids)])
    return {item["id"]: base.record(item) for item in found}


def stats_many(status_ids: list[str]) -> dict[str, StatusStats]:
    """{id: STATS item} for the ids that have counters (one batched read, no status bodies)."""
    found = base.batch_get([keys.status_stats(sid) for sid in dict.fromkeys(status_ids)])
    return {keys.id_in(item["PK"]): base.record(item) for item in found}


def account_statuses_between(account_id: str, low: int | None, high: int | None,
                             descending: bool, *, budget: Budget, step: int,
                             exclude_replies: bool = False, exclude_reblogs: bool = False,
                             only_media: bool = False) -> Iterator[Status]:
    """An account's statuses with ids in [low, high] (None: unbounded; index entries), the
    listing's filters applied by DynamoDB."""
    return account_status_entries(account_id, *keys.id_range(low, high), descending,
                                  budget=budget, step=step, exclude_replies=exclude_replies,
                                  exclude_reblogs=exclude_reblogs, only_media=only_media)


def pinned_status_ids(account_id: str) -> list[str]:
    """The ids of the statuses an account pinned, the latest pin first."""
    return [e["status_id"] for e in edge_entries("GSI2", keys.edges_of("PIN", account_id),
                                                 *keys.id_range(None, None), descending=True)]


def attach_media_ops(account_id: str, media_ids: list[str], status_id: str,
                     scheduled_id: str | None, *, taken: Exception) -> list[base.Op]:
    """Attach the author's media to a new status, each only while it is the author's and
    attached to nothing else (a scheduled post's own media may move on to the status it
    becomes); its expiry goes. `taken`: the error when one is attached already."""
    condition = "account_id = :me AND attribute_not_exists(status_id) AND " + (
        "scheduled_status_id = :sched" if scheduled_id else
        "attribute_not_exists(scheduled_status_id)")
    vals = {":s": status_id, ":me": account_id,
            **({":sched": scheduled_id} if scheduled_id else {})}
    return [base.Op("Update", key=keys.media(m),
                    expression="SET status_id = :s REMOVE #ttl, scheduled_status_id",
                    condition=condition, names={"#ttl": "ttl"}, vals=vals, on_conflict=taken)
            for m in media_ids]
