"""Hashtags: the hashtag index (a tag's statuses, and the marker that the tag was ever used),
their daily use counters, followed-hashtag edges, and the pages of a tag's followers that home
fan-out reads.

The index is one entry per tag and status (`keys.tagged_status`), carrying what hashtag
timelines filter by (`entry_fields`). A status's own write adds and removes its entries
(repo/status_writes.py: `index_ops`, `unindex_ops`), as Mastodon writes `statuses_tags` in the
request; a status with more tags than one transaction holds leaves the rest to the effects
worker (`index`, `unindex`: the same items, written outside a transaction).

A followed tag is one item in the follower's partition (`keys.followed_tag`), so whether a
viewer follows a page of tags is one batched read. GSI1 lists a tag's followers and GSI2 a
user's followed tags, both by the follow's id. Use counters live on the tag's `STATS` item, one
attribute per day and measure (`uses_<yyyymmdd>`, `accounts_<yyyymmdd>`), kept by the counters
worker from the stream (workers/counters.py); `tag_use` items make `accounts` distinct.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from stratus.model import tags as model
from stratus.repo import base, keys

FOLLOWED_TAG, TAG_USE = "followed_tag", "tag_use"
USE_TTL = 14 * 86400  # Mastodon keeps a day's tag activity for 14 days


# --- the hashtag index ----------------------------------------------------------------------------
def entry_fields(*, visibility: str | None, account_id: str, local: bool, has_media: bool
                 ) -> dict[str, Any]:
    """What hashtag timelines filter a status's index entries by (`tag_entries`)."""
    return {"visibility": visibility, "account_id": account_id, "local": local,
            "has_media": has_media}


def _entry(name: str, status_id: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {**keys.tagged_status(name, status_id), "type": "tagged_status",
            "status_id": status_id, "tag": name, **fields}


def _marker_op(name: str) -> base.Op:
    """The tag's marker (`known`), written without a condition (the same values again when it
    exists), so that a transaction never fails because the tag was used before. It carries the
    tag's id and places the tag in the staff's listing of every tag (repo/tag_admin.py)."""
    tag_id = model.tag_id(name)
    listing = keys.tag_listing_keys(tag_id)
    return base.Op("Update", key=keys.tag(name),
                   expression="SET #t = :t, #n = :n, #i = :i, #g = :g, #s = :s",
                   names={"#t": "type", "#n": "name", "#i": "id", "#g": "GSI1PK", "#s": "GSI1SK"},
                   vals={":t": "tag", ":n": name, ":i": tag_id, ":g": listing["GSI1PK"],
                         ":s": listing["GSI1SK"]})


def unknown(names: Iterable[str]) -> list[str]:
    """Which of `names` have no marker yet (one batched read). A status's write sets the
    marker only for these: a busy tag's marker is then never an item every post's transaction
    touches (concurrent transactions on one item cancel each other)."""
    wanted = list(dict.fromkeys(names))
    found = {item["PK"] for item in base.batch_get([keys.tag(n) for n in wanted])}
    return [n for n in wanted if keys.tag(n)["PK"] not in found]


def index_ops(status_id: str, names: list[str], fields: dict[str, Any], *,
              new: list[str] | None = None) -> list[base.Op]:
    """The puts of the status's entries under `names` (a put again is the same item), and
    the markers of those of `new` (default: `names`; the names the status did not have before)
    that no status used yet."""
    ops = [base.Op("Put", item=_entry(name, status_id, fields)) for name in names]
    candidates = names if new is None else new
    return ops + [_marker_op(name) for name in (unknown(candidates) if candidates else [])]


def unindex_ops(status_id: str, names: Iterable[str]) -> list[base.Op]:
    return [base.Op("Delete", key=keys.tagged_status(name, status_id)) for name in names]


def index(status_id: str, names: list[str], fields: dict[str, Any]) -> None:
    """Write the entries (and missing markers) outside a transaction: the tags beyond those
    a status's own write holds (workers/effects.py). Idempotent."""
    if not names:
        return
    base.write_many(puts=[_entry(name, status_id, fields) for name in names])
    for name in unknown(names):
        op = _marker_op(name)
        base.update(op.key, op.expression, names=op.names, vals=op.vals)


def unindex(status_id: str, names: list[str]) -> None:
    if names:
        base.delete_many([keys.tagged_status(name, status_id) for name in names])


# --- followed tags --------------------------------------------------------------------------------
def followed_item(follow_id: str, account_id: str, tag: str, created_at: str
                  ) -> dict[str, Any]:
    """A new followed-tag edge's record (`tag`: the normalised name; `follow` writes it)."""
    return {"type": FOLLOWED_TAG, "id": follow_id, "account_id": account_id, "tag": tag,
            "created_at": created_at}


def follow(record: dict[str, Any]) -> bool:
    """Write a followed-tag edge (a record from `followed_item`, with its keys and index keys)
    once; False if the account follows the tag already."""
    account_id, tag = record["account_id"], record["tag"]
    return base.put({**keys.followed_tag(account_id, tag), **record,
                     **keys.followed_tag_index_keys(account_id, tag, record["id"])},
                    condition="attribute_not_exists(PK)")


def unfollow(account_id: str, tag: str) -> dict[str, Any] | None:
    """Remove the edge; returns its record as it was (None if there was none)."""
    return base.record(base.delete(keys.followed_tag(account_id, tag), returning=True))


def load(tags: Iterable[str], viewer_id: str | None, *, consistent: bool = False
         ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The tags' STATS records and, with a viewer, the viewer's edges to them — one batched
    read (per 100 keys): ({tag: stats}, {tag: followed-tag edge}), all records."""
    stats, edges, _ = load_for_viewer(tags, viewer_id, consistent=consistent)
    return stats, edges


def load_for_viewer(tags: Iterable[str], viewer_id: str | None, *, consistent: bool = False
                    ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]],
                               dict[str, dict[str, Any]]]:
    """`load`, and with a viewer also whether the viewer features each tag (the Tag's
    `featuring`), in the same batched read: (stats, followed edges, featured tags)."""
    wanted = list(dict.fromkeys(tags))
    item_keys = [keys.tag_stats(t) for t in wanted]
    if viewer_id:
        item_keys += [keys.followed_tag(viewer_id, t) for t in wanted]
        item_keys += [keys.featured_tag(viewer_id, t) for t in wanted]
    stats: dict[str, dict[str, Any]] = {}
    edges: dict[str, dict[str, Any]] = {}
    featured: dict[str, dict[str, Any]] = {}
    for item in base.records(base.batch_get(item_keys, consistent=consistent)):
        if item.get("type") == FOLLOWED_TAG:
            edges[item["tag"]] = item
        elif item.get("type") == "featured_tag":
            featured[item["tag"]] = item
        elif item.get("name"):
            stats[item["name"]] = item
    return stats, edges, featured


def followed_entries(account_id: str, low: int | None, high: int | None, descending: bool,
                     limit: int) -> list[dict[str, Any]]:
    """A user's followed tags by follow id, ids in [low, high] (None: unbounded; records with
    `id` and `tag`)."""
    return [{**base.record(entry), "tag": keys.followed_tag_name(entry["SK"])}
            for entry in base.query(keys.followed_tags_of(account_id), index="GSI2",
                                    sk_between=keys.id_range(low, high), descending=descending,
                                    limit=limit)]


def tag_followers_page(tag: str, after: str | None, limit: int) -> tuple[list[str], str | None]:
    """Up to `limit` local accounts following `tag` (a normalised name), by follow id after the
    cursor `after`; and the next cursor (None at the end). Home fan-out pages through a
    status's hashtags' followers with it, as it pages through the author's followers."""
    low = keys.pad(int(after) + 1) if after else keys.pad(0)
    entries = list(base.query(keys.tag_followers(tag), index="GSI1",
                              sk_between=(low, keys.MAX_SK), limit=limit))
    cursor = entries[-1]["id"] if len(entries) == limit else None
    return [e["account_id"] for e in entries], cursor


# --- use counters ---------------------------------------------------------------------------------
def record_use(name: str, day: str, account_id: str, expires_at: int) -> bool:
    """Note that an account used a tag on a day; False if it had already (its insert is what
    the counters worker counts as one more distinct account)."""
    return base.put({**keys.tag_use(name, day, account_id), "type": TAG_USE, "tag": name.lower(),
                     "day": day, "account_id": account_id, "ttl": expires_at},
                    condition="attribute_not_exists(PK)")


def tag_use_key(item: dict[str, Any]) -> dict[str, str]:
    """The key of a `tag_use` item, from its attributes (the counters' guard)."""
    return keys.tag_use(item["tag"], item["day"], item["account_id"])


def stats_key(name: str) -> dict[str, str]:
    return keys.tag_stats(name)



def save_max_score(name: str, max_score: float, max_score_at: float) -> None:
    """A hashtag's best trend score and when it was reached (api/trends/trends.py)."""
    base.update(keys.tag_stats(name), "SET max_score = :m, max_score_at = :a, #t = :t, #n = :n",
                names={"#t": "type", "#n": "name"},
                vals={":m": str(max_score), ":a": str(max_score_at), ":t": "tag_stats",
                      ":n": name.lower()})


def known(name: str) -> bool:
    """Whether any status ever used the tag (its marker in the hashtag index: Mastodon's
    Tag.find_normalized!)."""
    return base.get(keys.tag(name)) is not None
