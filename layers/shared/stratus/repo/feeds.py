"""Home and list feeds in the Feed table (ids only), and the graph reads fan-out needs: who
follows an account, whom an account follows, and one batched read of every relationship that
decides whether a status goes into a batch of receivers' feeds."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from stratus.core.config import settings
from stratus.core.paging import Budget
from stratus.repo import base, keys

FEED_TTL = 30 * 86400  # entries older than a month go; trimming keeps the newest FEED_SIZE
MARKER_TTL = 2 * 86400
ACTIVE_DAYS = 7  # Mastodon's User::ACTIVE_DURATION: feeds of users idle longer are not fed


def _table() -> str:
    return settings().feed_table


def home(account_id: str) -> str:
    """An account's home feed: the name the verbs below take for it."""
    return keys.home_feed(account_id)


def of_list(list_id: str) -> str:
    """A list's feed: the name the verbs below take for it."""
    return keys.list_feed(list_id)


def active_until(now: int) -> int:
    """Until when (epoch seconds) the feed of an account that used the API at `now` is kept
    fed (its meta's `active_until`): fan-out skips owners idle for longer than ACTIVE_DAYS."""
    return now + ACTIVE_DAYS * 86400


# --- the graph, as fan-out reads it ---------------------------------------------------------------
def followers_page(account_id: str, after: str | None, limit: int, *, until: str | None = None
                   ) -> tuple[list[str], str | None]:
    """Up to `limit` followers of an account by follow id, after the cursor (and at most
    `until`, when given); and the next cursor (None at the end)."""
    low = keys.pad(int(after) + 1) if after else keys.pad(0)
    high = keys.pad(until) if until else keys.MAX_SK
    entries = list(base.query(keys.followers_of(account_id), index="GSI1",
                              sk_between=(low, high), limit=limit))
    cursor = entries[-1]["id"] if len(entries) == limit else None
    return [e["account_id"] for e in entries], cursor


def followings_page(account_id: str, after: str | None, limit: int
                    ) -> tuple[list[str], str | None]:
    """Up to `limit` accounts an account follows, by follow id, after the cursor."""
    low = keys.pad(int(after) + 1) if after else keys.pad(0)
    entries = list(base.query(keys.followings_of(account_id), index="GSI2",
                              sk_between=(low, keys.MAX_SK), limit=limit))
    cursor = entries[-1]["id"] if len(entries) == limit else None
    return [e["target_id"] for e in entries], cursor


@dataclass
class Crutches:
    """What receivers have to do with the accounts of a few statuses (Mastodon's "crutches"):
    (receiver, account) pairs, from one batched read."""

    follows: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    blocks: set[tuple[str, str]] = field(default_factory=set)
    mutes: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def following(self, receiver: str, account: str) -> dict[str, Any] | None:
        return self.follows.get((receiver, account))

    def blocking(self, receiver: str, account: str) -> bool:
        return (receiver, account) in self.blocks

    def mute(self, receiver: str, account: str) -> dict[str, Any] | None:
        return self.mutes.get((receiver, account))


def crutches(receivers: list[str], accounts: set[str], *, follows_of: set[str],
             blocked_by: set[str]) -> Crutches:
    """For every receiver: whether they follow each of `follows_of`, block or mute each of
    `accounts`, and whether each of `blocked_by` blocks them."""
    wanted = []
    for receiver in receivers:
        wanted += [keys.follow(receiver, a) for a in follows_of]
        wanted += [keys.block(receiver, a) for a in accounts]
        wanted += [keys.mute(receiver, a) for a in accounts]
        wanted += [keys.block(a, receiver) for a in blocked_by]
    found = Crutches()
    for item in base.batch_get(wanted):
        source, kind, target = keys.id_in(item["PK"]), keys.prefix_of(item["SK"]), \
            keys.id_in(item["SK"])
        if kind == keys.FOLLOWING:
            found.follows[(source, target)] = item
        elif kind == keys.BLOCK:
            found.blocks.add((source, target))
        elif kind == keys.MUTE:
            found.mutes[(source, target)] = item
    return found


# --- feeds ------------------------------------------------------------------------------------------
def metas(feeds: list[str]) -> dict[str, dict[str, Any]]:
    """{feed: its meta (`state`, `active_until`)} of the feeds that have one."""
    return {item["PK"]: base.record(item) for item in
            base.batch_get([keys.feed_meta(f) for f in feeds], table_name=_table())}


def meta(feed: str) -> dict[str, Any] | None:
    return base.record(base.get(keys.feed_meta(feed), consistent=True, table_name=_table()))


def set_meta(feed: str, **attributes: Any) -> None:
    base.update(keys.feed_meta(feed), "SET " + ", ".join(f"#a{i} = :a{i}" for i in
                                                          range(len(attributes))),
                names={f"#a{i}": name for i, name in enumerate(attributes)},
                vals={f":a{i}": value for i, value in enumerate(attributes.values())},
                table_name=_table())


def mark_active(feed: str, now: int) -> bool:
    """Keep a feed fed until `active_until(now)` (its owner used the API at `now`). A feed that
    was not active (idle past its `active_until`, or never read) is also marked `regenerating`
    in the same write: True then, for the caller to have it rebuilt — only one caller of
    several racing gets True. One write when the feed was active, two when it was not."""
    until = active_until(now)
    failed = base.dynamodb().exceptions.ConditionalCheckFailedException
    try:
        base.update(keys.feed_meta(feed), "SET active_until = :u",
                    vals={":u": until, ":n": now}, condition="active_until > :n",
                    table_name=_table())
        return False
    except failed:
        pass
    try:
        base.update(keys.feed_meta(feed), "SET #s = :r, active_until = :u",
                    names={"#s": "state"}, vals={":r": "regenerating", ":u": until, ":n": now},
                    condition="attribute_not_exists(active_until) OR active_until <= :n",
                    table_name=_table())
    except failed:
        return False  # another request marked it meanwhile (and had it rebuilt if stale)
    return True


def present(feeds_and_ids: list[tuple[str, str]], *, markers: bool) -> set[tuple[str, str]]:
    """Which (feed, status id) pairs have an entry (or, with `markers`, a boost marker)."""
    make = keys.feed_reblog_marker if markers else keys.feed_entry
    found = base.batch_get([make(feed, sid) for feed, sid in feeds_and_ids],
                           table_name=_table())
    return {(item["PK"], keys.id_in(item["SK"])) for item in found}


def add(entries: list[tuple[str, dict[str, Any]]], markers: list[tuple[str, str]],
        now: int) -> None:
    """Write feed entries ((feed, status item)) and boost markers ((feed, original id))."""
    items = [{**keys.feed_entry(feed, status["id"]), "status_id": status["id"],
              "author_id": status["account_id"],
              "reblog_of_id": status.get("reblog_of_id"),
              "ttl": now + FEED_TTL} for feed, status in entries]
    items += [{**keys.feed_reblog_marker(feed, original), "ttl": now + MARKER_TTL}
              for feed, original in markers]
    base.write_many(puts=items, table_name=_table())


def remove(feeds_and_ids: list[tuple[str, str]], *, markers: list[tuple[str, str]] = ()
           ) -> None:
    """Delete feed entries ((feed, status id)) and boost markers ((feed, original id))."""
    doomed = [keys.feed_entry(feed, sid) for feed, sid in feeds_and_ids]
    doomed += [keys.feed_reblog_marker(feed, original) for feed, original in markers]
    base.write_many(deletes=doomed, table_name=_table())


def entries(feed: str, low: int | None, high: int | None, descending: bool, *, budget: Budget,
            step: int) -> Iterator[dict[str, Any]]:
    """A feed's entries with status ids in [low, high] (None: unbounded)."""
    partition, bounds = keys.feed_entries(feed, *keys.id_range(low, high))
    return base.records(base.query(partition, sk_between=bounds, descending=descending,
                                   budget=budget, step=step, table_name=_table()))


def entries_by(feed: str, author_ids: set[str] | None, limit: int) -> list[dict[str, Any]]:
    """A feed's newest `limit` entries, only those by `author_ids` if given."""
    partition, bounds = keys.feed_entries(feed, keys.pad(0), keys.MAX_SK)
    return [base.record(e) for e in base.query(partition, sk_between=bounds, descending=True,
                                               limit=limit, table_name=_table())
            if author_ids is None or e.get("author_id") in author_ids]


def trim(feed: str, keep: int) -> int:
    """Remove the entries past the newest `keep`; returns how many went."""
    partition, bounds = keys.feed_entries(feed, keys.pad(0), keys.MAX_SK)
    beyond = [keys.key(e["PK"], e["SK"]) for i, e in enumerate(base.query(
        partition, sk_between=bounds, descending=True, projection="PK, SK",
        table_name=_table())) if i >= keep]
    base.write_many(deletes=beyond, table_name=_table())
    return len(beyond)


def drop(feed: str) -> None:
    """Delete a whole feed (a deleted list's timeline)."""
    partition, _ = keys.feed_entries(feed, keys.pad(0), keys.MAX_SK)
    found = [keys.key(i["PK"], i["SK"]) for i in base.query(partition, projection="PK, SK",
                                                            table_name=_table())]
    base.write_many(deletes=found, table_name=_table())
